// MaxPool (values, optionally argmax indices) and AvgPool over NC[D]HW tensors.
//
// The algorithms only: window geometry and layout are explained in pool_window.h, the loop
// structure is in schedules/pooling_schedule.cpp, and every padding mode, rounding rule and
// divisor convention is resolved to plain numbers by runtime/ before a kernel runs.
#include <limits>

#include "Halide.h"

#include "generators/pool_window.h"

namespace poolconv::generators {

using namespace Halide;

// Values are compared and summed in f32 when the data type is a 16-bit float: x86 and most ARM
// cores have no f16 arithmetic, and f32 holds every f16/bf16 value exactly.
static Type work_type(const Type &t) {
    return (t.is_float() && t.bits() < 32) ? Float(32) : t;
}

// The lowest finite value of t: what a window with no input element in it produces (OpenVINO).
// (Halide's Type::min() is -infinity for floats.)
static Expr lowest_finite(const Type &t) {
    if (t.is_bfloat()) return Expr(-3.38953139e38f);  // the lowest finite bf16, as the f32 it converts to
    if (t.is_float() && t.bits() == 16) return Expr(-65504.0f);
    if (t.is_float() && t.bits() == 32) return Expr(std::numeric_limits<float>::lowest());
    if (t.is_float()) return Expr(std::numeric_limits<double>::lowest());
    return t.min();
}

class MaxPool : public PoolGenerator<MaxPool> {
public:
    // Emit a second output with the position of each maximum (argmax), or values only.
    GeneratorParam<bool> with_indices{"with_indices", false};
    // Width of the indices output elements: 32 or 64 (int32 / int64).
    GeneratorParam<int> index_bits{"index_bits", 64};

    // Index arithmetic: an argmax at input position (ix, iy, iz) of plane (c, n) is reported as
    //     ix * index_coef[0] + iy * index_coef[1] + iz * index_coef[2] + c * index_coef[3] + n * index_coef[4]
    // The runtime derives the coefficients from OpenVINO's axis and ONNX's storage_order; a
    // coefficient is 0 for an axis before `axis`. Only read when with_indices is set.
    Input<int[5]> index_coef{"index_coef"};

    // Pooled values, NCDHW as (x, y, z, c, n), type data_type; then the indices when with_indices.
    Output<Buffer<void, 5>> output{"output"};
    Output<Buffer<>> *indices = nullptr;

    void configure() {
        input.set_type(data_type());
        output.set_type(data_type());
        if (with_indices) {
            indices = add_output<Buffer<>>("indices", Int(index_bits), 5);
        }
    }

    void generate() {
        // ---- Algorithm ----
        const Type work = work_type(data_type());
        const Expr lowest = cast(work, lowest_finite(data_type()));
        Func in = input_rows();

        // Candidate (v, pos) beats the running best (acc, acc_pos) if it is an input element
        // (pos >= 0; padding never wins) and is greater, or is a NaN where acc is not (a NaN then
        // stays: PyTorch), or nothing has been seen yet. Strict comparison keeps the first of equal
        // values. Values-only pooling needs no positions: its running best starts at `lowest`.
        auto wins = [&](const Expr &v, const Expr &acc) {
            Expr w = v > acc;
            if (work.is_float()) w = w || (nan_bits(v) && !nan_bits(acc));
            return w;
        };
        // IEEE semantics wherever a NaN passes: Halide otherwise lets LLVM assume there are no NaNs
        // (fast-math) and fold the NaN tests or turn the selects into max instructions that drop
        // NaNs. (to_data_type, in element_type.h, does the same for the final conversion.)
        auto ieee = [&](const Expr &e) { return work.is_float() ? strict_float(e) : e; };
        Func along[kSpatialAxes] = {Func("max_along_x"), Func("max_along_y"), Func("max_along_z")};
        RDom taps[kSpatialAxes] = {taps_along(0), taps_along(1), taps_along(2)};
        const Var coord[kSpatialAxes] = {x, y, z};
        for (int a = 0; a < kSpatialAxes; a++) {
            Expr i = tap(a, coord[a], taps[a]);
            std::vector<Expr> at = {x, y, z, c, n};  // where this stage reads its source
            at[a] = i;
            Expr v, pos, candidate_valid = Internal::const_true();
            if (a == 0) {
                // Taps of one input row: x-padding is masked lane by lane.
                v = ieee(cast(work, in(at)));
                pos = i * index_coef[0] + y * index_coef[1] + z * index_coef[2];
                candidate_valid = inside_x(i);
            } else {
                // Results of the previous stage, one per row of taps; padding rows are skipped.
                skip_padding(taps[a], a, i);
                if (with_indices) {
                    v = along[a - 1](at)[0];
                    pos = along[a - 1](at)[1];
                } else {
                    v = along[a - 1](at);
                }
            }
            if (with_indices) {
                // Position -1: no input element seen yet. A window made only of padding keeps
                // `lowest`, and its index becomes the first element of its plane.
                along[a](x, y, z, c, n) = Tuple(lowest, -1);
                Expr acc = along[a](x, y, z, c, n)[0], acc_pos = along[a](x, y, z, c, n)[1];
                Expr take = candidate_valid && pos >= 0 && (acc_pos < 0 || wins(v, acc));
                along[a](x, y, z, c, n) = Tuple(ieee(select(take, v, acc)), ieee(select(take, pos, acc_pos)));
            } else {
                // Floats start below every value (-infinity must be able to win); a window with
                // no input element gets `lowest` at the end instead.
                along[a](x, y, z, c, n) = work.is_float() ? cast(work, Expr(-std::numeric_limits<float>::infinity())) : lowest;
                Expr acc = along[a](x, y, z, c, n);
                along[a](x, y, z, c, n) = ieee(select(candidate_valid && wins(v, acc), v, acc));
            }
        }
        const Func &best = along[kSpatialAxes - 1];
        Func taps_inside[kSpatialAxes];
        for (int a = 0; a < kSpatialAxes; a++) taps_inside[a] = counted_taps(a, 0, input.dim(a).extent());
        if (with_indices) {
            Expr plane = c * index_coef[3] + n * index_coef[4];
            output(x, y, z, c, n) = to_data_type(data_type(), best(x, y, z, c, n)[0]);
            (*indices)(x, y, z, c, n) = cast(Int(index_bits), max(best(x, y, z, c, n)[1], 0) + plane);
        } else if (work.is_float()) {
            Expr empty = taps_inside[0](x) == 0 || taps_inside[1](y) == 0 || taps_inside[2](z) == 0;
            output(x, y, z, c, n) = to_data_type(data_type(), select(empty, lowest, best(x, y, z, c, n)));
        } else {
            output(x, y, z, c, n) = to_data_type(data_type(), best(x, y, z, c, n));
        }

        // ---- Estimates (autoschedulers) ----
        set_input_estimates();
        for (int a = 0; a < 5; a++) index_coef.set_estimate(a, 1);
        set_output_estimates(output);
        if (indices) set_output_estimates(*indices);

        // ---- Schedule ----
        require_dense_from_zero(input);
        require_dense_from_zero(output);
        if (indices) require_dense_from_zero(*indices);
        if (get_auto_schedule()) return;

        schedules::PoolingStages stages = pooling_stages(output, in, along, taps);
        if (indices) stages.second_output = *indices;
        if (!indices && work.is_float()) stages.axis_tables = {taps_inside[0], taps_inside[1], taps_inside[2]};
        schedules::schedule_pooling(stages, target_params(), work, indices ? 4 : work.bytes());
    }
};

class AvgPool : public PoolGenerator<AvgPool> {
public:
    // The divisor of each window counts the taps whose coordinate lies in [count_begin, count_end)
    // along every axis. The runtime picks these bounds: [0, extent) excludes padding;
    // [-pad_begin, extent + pad_end) is ONNX/PyTorch count_include_pad; a range wider than any
    // window is OpenVINO's include-pad (the whole kernel volume). Padding itself always adds 0.
    // Schedule for global pooling: the runtime flattens each plane into one row covered by the
    // window (output 1x1x1), and the sum runs along the row in vector lanes.
    GeneratorParam<bool> global{"global", false};

    Input<int[kSpatialAxes]> count_begin{"count_begin"};
    Input<int[kSpatialAxes]> count_end{"count_end"};

    // Averages, NCDHW as (x, y, z, c, n), type data_type.
    Output<Buffer<void, 5>> output{"output"};

    void configure() {
        input.set_type(data_type());
        output.set_type(data_type());
    }

    void generate() {
        // ---- Algorithm ----
        // Global pooling has no padding (the runtime guarantees it): taps read the input itself.
        Func in = global ? Func(input) : input_rows();

        // The window sum, one axis at a time; padding adds 0.
        Func along[kSpatialAxes] = {Func("sum_along_x"), Func("sum_along_y"), Func("sum_along_z")};
        RDom taps[kSpatialAxes] = {taps_along(0), taps_along(1), taps_along(2)};
        const Var coord[kSpatialAxes] = {x, y, z};
        for (int a = 0; a < kSpatialAxes; a++) {
            Expr i = tap(a, coord[a], taps[a]);
            std::vector<Expr> at = {x, y, z, c, n};
            at[a] = i;
            along[a](x, y, z, c, n) = 0.0f;
            if (a == 0) {
                along[a](x, y, z, c, n) += select(inside_x(i), cast<float>(in(at)), 0.0f);
            } else {
                skip_padding(taps[a], a, i);
                along[a](x, y, z, c, n) += along[a - 1](at);
            }
        }

        // The divisor counts a window's taps inside [count_begin, count_end), one axis at a time.
        Func counted[kSpatialAxes];
        for (int a = 0; a < kSpatialAxes; a++) counted[a] = counted_taps(a, count_begin[a], count_end[a]);
        Expr count = counted[0](x) * counted[1](y) * counted[2](z);

        // A window that counts no tap (exclude-pad, all padding) averages to 0.
        Expr sum = along[kSpatialAxes - 1](x, y, z, c, n);
        output(x, y, z, c, n) = cast(data_type(), select(count > 0, sum / cast<float>(max(count, 1)), 0.0f));

        // ---- Estimates (autoschedulers) ----
        set_input_estimates();
        for (int a = 0; a < kSpatialAxes; a++) {
            count_begin.set_estimate(a, 0);
            count_end.set_estimate(a, EstimateShape::in[a]);
        }
        set_output_estimates(output);

        // ---- Schedule ----
        require_dense_from_zero(input);
        require_dense_from_zero(output);
        if (get_auto_schedule()) return;

        schedules::PoolingStages stages = pooling_stages(output, in, along, taps);
        stages.axis_tables = {counted[0], counted[1], counted[2]};
        if (global) {
            schedules::schedule_global_pooling(stages, target_params(), Float(32));
        } else {
            schedules::schedule_pooling(stages, target_params(), Float(32), 4);
        }
    }

};

}  // namespace poolconv::generators

HALIDE_REGISTER_GENERATOR(poolconv::generators::MaxPool, max_pool)
HALIDE_REGISTER_GENERATOR(poolconv::generators::AvgPool, avg_pool)
