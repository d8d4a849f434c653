// MaxPool (values, optionally argmax indices) and AvgPool over NC[D]HW tensors.
//
// The algorithms only: window geometry and layout are explained in pool_window.h, the loop
// structure is in schedules/pooling_schedule.cpp, and every padding mode, rounding rule and
// divisor convention is resolved to plain numbers by runtime/ before a kernel runs.
#include <array>
#include <functional>
#include <limits>

#include "Halide.h"

#include "generators/pool_window.h"
#include "schedules/pool_limits.h"

namespace poolconv::generators {

using namespace Halide;

// Values are compared and summed in f32 when the data type is a 16-bit float: x86 and most ARM
// cores have no f16 arithmetic, and f32 holds every f16/bf16 value exactly. f64 stays f64.
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

// MaxPool compares keys: integers whose order is the order MaxPool wants, so that every tap is
// one plain integer max (or compare) however NaNs and padding must behave.
//   Floats (computed in f32, or f64): the key of a value is its sign-magnitude bit pattern read as
//     a two's-complement integer: -x gets the negated key of x, so the keys of non-NaN values
//     order exactly as the values do, and -0 and +0 share the key 0 (equal values: the first
//     stays). Every NaN gets one key above +infinity: a NaN wins and then stays (PyTorch). A key
//     decodes to +0, or the canonical quiet NaN, for those.
//   Integers: the value itself, widened to int32 when positions are tracked, so that the padding
//     key (the lowest of the key type) lies below every element. Values-only pooling keeps the
//     data type (more lanes); there padding equals the type's minimum, which is harmless for a max.
// So with positions tracked no element's key is the padding key (the argmax kernels find windows
// of padding only by it): float keys end at -infinity's, and integer data is 8-bit (an int32
// data type would need int64 keys).
// Padded kernels encode once per input element (in the padded-input copy), unpadded ones at each
// tap (except those of f32, bf16 and f64, which compare values: see MaxPool::generate).
class MaxKeys {
public:
    MaxKeys(const Type &data, bool with_indices)
        : data_(data), work_(work_type(data)),
          key_(work_.is_float() ? Int(work_.bits()) : (with_indices ? Int(32) : data)) {}

    const Type &type() const { return key_; }
    Expr padding() const { return key_.min(); }
    Expr lowest() const { return cast(work_, lowest_finite(data_)); }

    Expr encode(const Expr &v) const {
        if (!work_.is_float()) return cast(key_, v);
        Expr bits = reinterpret(key_, cast(work_, v));
        Expr magnitude = bits & sign_mask();
        Expr key = select(bits < 0, -magnitude, magnitude);
        return select(magnitude > infinity_bits(), quiet_nan_bits(), key);
    }

    // The value of a key in the work type (a key no element has, such as padding(), is not decoded).
    Expr decode(const Expr &key) const {
        if (!work_.is_float()) return cast(work_, key);
        Expr bits = select(key < 0, (-key) | ~sign_mask(), key);
        return reinterpret(work_, bits);
    }

    // For kernels that compare float values instead (MaxPool's compare_values): what the keys
    // make of a value. Every NaN is the canonical quiet NaN (a constant from bits), and -0 is +0
    // (-0 and +0 share a key): v + 0 in strict float, which fast-math flags cannot drop, is +0
    // for either zero and v itself otherwise (one add; the test of the bits it replaced was a
    // compare and a blend, P3 0.93x the time on Zen 4). Under denormals-are-zero (a mode some
    // engines set) a subnormal maximum becomes +0, as that mode asks.
    Expr quiet_nan() const { return reinterpret(work_, quiet_nan_bits()); }
    Expr positive_zero(const Expr &v) const { return strict_float(v + cast(work_, 0)); }

private:
    Expr sign_mask() const { return key_.bits() == 64 ? Expr(int64_t(0x7fffffffffffffffLL)) : Expr(int32_t(0x7fffffff)); }
    Expr infinity_bits() const { return key_.bits() == 64 ? Expr(int64_t(0x7ff0000000000000LL)) : Expr(int32_t(0x7f800000)); }
    Expr quiet_nan_bits() const { return key_.bits() == 64 ? Expr(int64_t(0x7ff8000000000000LL)) : Expr(int32_t(0x7fc00000)); }

    Type data_, work_, key_;
};

class MaxPool : public PoolGenerator<MaxPool> {
public:
    // Emit a second output with the position of each maximum (argmax), or values only.
    GeneratorParam<bool> with_indices{"with_indices", false};
    // Width of the indices output elements: 32 or 64 (int32 / int64).
    GeneratorParam<int> index_bits{"index_bits", 64};
    // Reduce each window's rows first, reading the input in place (values only, padded, f32,
    // bf16 or f64): see generate_rows_first. The runtime picks this kernel where it pays
    // (rows_first_kernel_pays, schedules/pool_limits.h).
    GeneratorParam<bool> rows_first{"rows_first", false};

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
        if (global && with_indices) throw CompileError("max_pool: global pooling has no indices output");
        if (rows_first && flat_plane) throw CompileError("max_pool: rows_first and flat_plane are two plans, not one");
        if (rows_first) return generate_rows_first();
        if (flat_plane) return generate_flat_plane();
        const FixedLayer &layer_shape = fixed_layer();
        Expr coef[5];
        for (int i = 0; i < 5; i++) coef[i] = layer_shape.value("index_coef", i, index_coef[i]);
        // ---- Algorithm ----
        // The window reduction compares keys (see MaxKeys): plain integer maxima that order NaN
        // above everything, with the padding key below every real value. Except in unpadded
        // values-only kernels of f32, bf16 and f64 (compare_values): those read the input in place
        // (where the runtime's rule, unpadded_kernel_pays, finds them faster), so an element's
        // encoding (five vector instructions) would run at every tap that reads it; they compare
        // the values themselves (see the window reduction below). The NaN test is is_nan, not
        // nan_bits (element_type.h), which costs four more instructions per tap: its operands are
        // loads that carry no fast-math flags (checked in the LLVM IR), so LLVM cannot take them
        // for never NaN. On f16 data, widened to f32 by `fpext`, the NaN tests were lost on x86
        // and OpenCL (random_pooling_test found it; strict_float on the widening did not help, the
        // cause not pinned down): f16 keeps the keys (bf16 widens by a shift).
        const MaxKeys keys(data_type(), with_indices);
        const Type work = work_type(data_type());
        const bool compare_values = !with_indices && !padded && !global && work.is_float() && data_type() != Float(16);
        Func in = compare_values
                      ? window_input("input_values", [&](const Expr &v) { return cast(work, v); },
                                     Expr(), output)  // unpadded: no padding value
                      : window_input("input_keys", [&](const Expr &v) { return keys.encode(v); }, keys.padding(), output);

        // Candidate (v, offset) beats the running best (acc, acc_offset), which starts as the first
        // tap, when its key is strictly greater: among equal keys the first stays (ties, and the
        // first NaN), and padding, whose key is below every element's, never beats an element.
        // Values-only pooling keeps just the largest key.
        // The position an argmax carries is its tap's offset from the window's first element, in
        // index units (k * dilation * index_coef along each axis): one constant per tap where the
        // taps unroll, so each tap after the first costs a compare, a max and a masked move (a
        // position computed per tap cost a broadcast and an add more); the window's origin is
        // added once per output.
        Func along[kSpatialAxes] = {Func("max_along_x"), Func("max_along_y"), Func("max_along_z")};
        RDom taps[kSpatialAxes] = {taps_along(0), taps_along(1), taps_along(2)};
        const Var coord[kSpatialAxes] = {x, y, z};
        RDom window_taps;  // compare_values: the whole window's taps (x taps in pairs), x innermost
        if (compare_values) {
            // The whole window in one reduction, reading every tap from the input, with the NaN
            // test kept apart from the maximum: per tap a plain max, per pair of taps a NaN test
            // of both or-ed into a flag, and once per output the canonical NaN
            // where any tap was one, whereas a NaN-propagating max cost a compare, a max and a
            // masked move per tap. One stage, not x, y and z stages: no stage result is reused by
            // another output vector here (the windows are read in place), and the stages' own
            // maxima (one per row, one per plane) cost as much as taps. P2's (2x2/2) AVX-512 loop
            // went from 45 to 23 instructions per output vector. The flag is an integer as wide
            // as the values, so it stays the compare's own mask: as uint8 or bool, the AVX2
            // kernels packed each tap's mask into bytes (1.4-2.1x the time). Figures in
            // docs/PERFORMANCE_HISTORY.md, "2026-11-29, 811c796..": whole-window unpadded MaxPool.
            // The x taps go in pairs (an odd row's last pair is its last tap twice, which a max
            // may read again), each pair's NaN test one `vcmpunordps` of both: P6 (3x3/2) took
            // 0.86-0.90x the time on Zen 4 with AVX-512 than with one test per tap.
            window_taps = RDom({{0, (window_kernel(0) + 1) / 2}, {0, window_kernel(1)}, {0, window_kernel(2)}}, "window_taps");
            const Type flag_type = Int(work.bits());
            auto nan_flag = [&](const Expr &is) { return select(is, cast(flag_type, -1), cast(flag_type, 0)); };
            Func window("max_of_window");
            auto v = [&](const Expr &kx) { return in(tap(0, x, kx), tap(1, y, window_taps.y), tap(2, z, window_taps.z), c, n); };
            Expr v0 = v(2 * window_taps.x), v1 = v(min(2 * window_taps.x + 1, window_kernel(0) - 1));
            window(x, y, z, c, n) = Tuple(work.min(), cast(flag_type, 0));  // (maximum, any tap NaN)
            Expr acc = window(x, y, z, c, n)[0], nan_seen = window(x, y, z, c, n)[1];
            Expr larger = select(v0 > acc, v0, acc);
            window(x, y, z, c, n) = Tuple(select(v1 > larger, v1, larger), nan_seen | nan_flag(is_nan(v0) || is_nan(v1)));
            for (Func &stage : along) stage = window;
        }
        for (int a = 0; a < kSpatialAxes && !compare_values; a++) {
            Expr i = tap(a, coord[a], taps[a]);
            std::vector<Expr> at = {x, y, z, c, n};  // where this stage reads its source
            at[a] = i;
            const Expr step = taps[a] * window_dilation(a) * coef[a];
            Expr v, offset;
            if (a == 0) {
                // Taps of one input row (padding holds the padding key).
                v = in(at);
                offset = step;
            } else {
                // Results of the previous stage, one per row (or plane) of taps.
                if (with_indices) {
                    v = along[a - 1](at)[0];
                    offset = along[a - 1](at)[1] + step;
                } else {
                    v = along[a - 1](at);
                }
            }
            if (with_indices) {
                // The first tap is taken as it is (no compare where its index is a constant: the
                // schedule unrolls the x and y taps in threes, and a z loop of one tap is gone), so
                // a window made only of padding keeps the padding key, with an offset inside it.
                along[a](x, y, z, c, n) = Tuple(keys.padding(), 0);
                Expr acc = along[a](x, y, z, c, n)[0], acc_offset = along[a](x, y, z, c, n)[1];
                Expr take = taps[a] == 0 || v > acc;
                along[a](x, y, z, c, n) = Tuple(select(take, v, acc), select(take, offset, acc_offset));
            } else {
                along[a](x, y, z, c, n) = keys.padding();
                along[a](x, y, z, c, n) = max(along[a](x, y, z, c, n), v);
            }
        }

        // A window made only of padding keeps the padding key: its value is the lowest finite
        // value of the type (OpenVINO), and its index the first element of its plane.
        const Func &best = along[kSpatialAxes - 1];
        Expr best_key = (with_indices || compare_values) ? Expr(best(x, y, z, c, n)[0]) : Expr(best(x, y, z, c, n));
        Expr value;
        if (compare_values) {
            // A NaN wins (the canonical one); the window has at least one element (no padding).
            // The maxima of -0 and +0 may be either: the output makes it +0 (as the keys do).
            value = select(best(x, y, z, c, n)[1] != 0, keys.quiet_nan(), keys.positive_zero(best_key));
        } else {
            value = keys.decode(best_key);
            if (keys.type() != data_type()) value = select(best_key == keys.padding(), keys.lowest(), value);
        }
        output(x, y, z, c, n) = to_data_type(data_type(), value);
        if (with_indices) {
            Expr origin = tap(0, x, 0) * coef[0] + tap(1, y, 0) * coef[1] + tap(2, z, 0) * coef[2];
            Expr offset = best(x, y, z, c, n)[1];
            Expr plane = c * coef[3] + n * coef[4];
            (*indices)(x, y, z, c, n) = cast(Int(index_bits), select(best_key == keys.padding(), 0, origin + offset) + plane);
        }

        // ---- Estimates (autoschedulers) ----
        set_input_estimates();
        for (int a = 0; a < 5; a++) index_coef.set_estimate(a, 1);
        set_output_estimates(output);
        if (indices) set_output_estimates(*indices);
        fix_window_layer();
        layer_shape.estimate(index_coef, "index_coef");
        layer_shape.constrain(output, "output");
        if (indices) layer_shape.constrain(*indices, "indices");

        // ---- Schedule ----
        require_dense_from_zero(input);
        require_dense_from_zero(output);
        if (indices) require_dense_from_zero(*indices);
        if (scheduled_elsewhere()) return;

        schedules::PoolingStages stages = pooling_stages(output, in, along, taps);
        if (compare_values) {
            stages.whole_window = true;
            stages.taps[0] = window_taps.x;
            stages.taps[1] = window_taps.y;
            stages.taps[2] = window_taps.z;
        }
        if (indices) stages.second_output = *indices;
        if (global) {
            schedules::schedule_global_pooling(stages, target_params(), keys.type());
        } else {
            const Type compared = compare_values ? work : keys.type();
            schedules::schedule_pooling(stages, target_params(), compared, indices ? 4 : compared.bytes());
        }
    }

    // Rows first: for each output row, the window's rows (its y and z taps) are reduced column
    // by column, reading the input in place (a row outside the input is padding, or the nearest
    // row inside for windows undilated along y and z: see rows_first_stages), into a band of
    // such rows inside a margin of padding; then each output reduces along x over its band row.
    // Nothing is copied or encoded: values are compared (a NaN-propagating max at each tap: a NaN
    // flag beside the max, as the unpadded kernels keep, measured slower here; -0 made +0 at the
    // end), with -infinity for padding, below every value but -inf
    // itself, which it equals. So a window of padding only is found by geometry instead (the
    // taps it counts, per axis, as AvgPool's divisor does), and takes the lowest finite value.
    // On stride-2 windows this reads each input element where its windows need it, where the
    // padded kernels copy and encode every element first (the runtime's rule, pool_limits.h,
    // has the figures).
    void generate_rows_first() {
        const Type work = work_type(data_type());
        if (with_indices || global || !padded || !work.is_float() || data_type() == Float(16)) {
            throw CompileError("max_pool: rows_first is for padded values-only kernels of f32, bf16 or f64");
        }
        const MaxKeys keys(data_type(), false);
        const Expr none = work.min();  // -infinity

        // ---- Algorithm ----
        schedules::RowsFirstStages stages =
            rows_first_stages("max", work, none, max_or_nan(keys), true,
                              {output.dim(0).extent(), output.dim(1).extent(), output.dim(2).extent()});

        // A window of padding only (no tap counted along some axis): the lowest finite value
        // (OpenVINO). Never the case where stages.windows_never_empty holds: the schedule
        // specializes on that.
        std::array<Func, kSpatialAxes> counted;
        for (int a = 0; a < kSpatialAxes; a++) counted[a] = counted_taps(a, 0, input_extent(a));
        // (An autoscheduler gets the plain test: Mullapudi2016 stops, on an internal error, at an
        // output whose definition reads the output's own extents.)
        Expr empty = counted[0](x) * counted[1](y) * counted[2](z) == 0;
        if (!scheduled_elsewhere()) empty = !stages.windows_never_empty && empty;
        Expr value = keys.positive_zero(stages.along_x(x, y, z, c, n));
        output(x, y, z, c, n) = to_data_type(data_type(), select(empty, keys.lowest(), value));

        // ---- Estimates (autoschedulers) ----
        set_values_only_estimates();

        // ---- Schedule ----
        schedule_rows_first(stages, output, counted, work);
    }

    // Each plane pooled as one flat row (stride-1 windows that keep the plane's size; see
    // flat_plane_stages), values compared as the rows-first kernels compare them. No window is
    // padding only: each holds its own position (the pads are inside the window).
    void generate_flat_plane() {
        const Type work = work_type(data_type());
        if (with_indices || global || !padded || !work.is_float() || data_type() == Float(16)) {
            throw CompileError("max_pool: flat_plane is for padded values-only kernels of f32, bf16 or f64");
        }
        const MaxKeys keys(data_type(), false);

        // ---- Algorithm ----
        schedules::FlatPlaneStages stages = flat_plane_stages("max", work, work.min(), max_or_nan(keys), true);
        const Var &f = stages.position;
        stages.pooled(f, z, c, n) = keys.positive_zero(stages.along_x(f, z, c, n));
        define_flat_plane_output(stages, output);

        // ---- Estimates (autoschedulers) ----
        set_values_only_estimates();

        // ---- Schedule ----
        schedule_flat_plane(stages, output, {stages.columns}, work);
    }

    // The estimates of the values-only kernels that compare values (rows first, flat plane).
    void set_values_only_estimates() {
        set_input_estimates();
        for (int a = 0; a < 5; a++) index_coef.set_estimate(a, 1);
        set_output_estimates(output);
        fix_window_layer();
        fixed_layer().estimate(index_coef, "index_coef");
        fixed_layer().constrain(output, "output");
    }

    // The fold of the rows-first and flat-plane kernels, which compare values: the larger, or a
    // quiet NaN where either is NaN.
    static std::function<Expr(const Expr &, const Expr &)> max_or_nan(const MaxKeys &keys) {
        return [nan = keys.quiet_nan()](const Expr &acc, const Expr &v) {
            return select(is_nan(acc) || is_nan(v), nan, max(acc, v));
        };
    }

    void schedule() {
        prefetch_input_read_in_place(rows_first);
        apply_checked_in_schedule(with_indices ? "max_pool_with_indices"
                                  : global     ? "max_pool_global"
                                  : rows_first ? "max_pool_rows_first"
                                  : flat_plane ? "max_pool_flat_plane"
                                  : padded     ? "max_pool"
                                               : "max_pool_unpadded");
    }
};

class AvgPool : public PoolGenerator<AvgPool> {
public:
    // The divisor of each window counts the taps whose coordinate lies in [count_begin, count_end)
    // along every axis. The runtime picks these bounds: [0, extent) excludes padding;
    // [-pad_begin, extent + pad_end) is ONNX/PyTorch count_include_pad; a range wider than any
    // window is OpenVINO's include-pad (the whole kernel volume). Padding itself always adds 0.
    Input<int[kSpatialAxes]> count_begin{"count_begin"};
    Input<int[kSpatialAxes]> count_end{"count_end"};
    // Sum each window's rows first, reading the input in place (padded kernels of floating-point
    // types): see generate_rows_first. The runtime picks this kernel where it pays
    // (rows_first_kernel_pays, schedules/pool_limits.h).
    GeneratorParam<bool> rows_first{"rows_first", false};

    // Averages, NCDHW as (x, y, z, c, n), type data_type.
    Output<Buffer<void, 5>> output{"output"};

    void configure() {
        input.set_type(data_type());
        output.set_type(data_type());
    }

    void generate() {
        if (rows_first && flat_plane) throw CompileError("avg_pool: rows_first and flat_plane are two plans, not one");
        if (rows_first) return generate_rows_first();
        if (flat_plane) return generate_flat_plane();
        // ---- Algorithm ----
        // Values are summed in the work type (f32, or f64 for f64 data); padding holds 0. Global
        // pooling has no padding (the runtime guarantees it): its taps read the input itself, as
        // unpadded kernels' do.
        const Type work = work_type(data_type());
        const Expr zero = cast(work, 0);
        auto to_work = [&](const Expr &v) { return cast(work, v); };
        Func in = window_input("input_f32", to_work, zero, output);

        // The window sum, one axis at a time; padding adds 0.
        Func along[kSpatialAxes] = {Func("sum_along_x"), Func("sum_along_y"), Func("sum_along_z")};
        RDom taps[kSpatialAxes] = {taps_along(0), taps_along(1), taps_along(2)};
        const Var coord[kSpatialAxes] = {x, y, z};
        for (int a = 0; a < kSpatialAxes; a++) {
            Expr i = tap(a, coord[a], taps[a]);
            std::vector<Expr> at = {x, y, z, c, n};
            at[a] = i;
            along[a](x, y, z, c, n) = zero;
            if (a == 0) {
                along[a](x, y, z, c, n) += in(at);
            } else {
                along[a](x, y, z, c, n) += along[a - 1](at);
            }
        }

        std::array<Func, kSpatialAxes> counted = define_average(along[kSpatialAxes - 1](x, y, z, c, n), work);

        // ---- Estimates (autoschedulers) ----
        set_estimates();

        // ---- Schedule ----
        require_dense_from_zero(input);
        require_dense_from_zero(output);
        if (scheduled_elsewhere()) return;

        schedules::PoolingStages stages = pooling_stages(output, in, along, taps);
        stages.axis_tables = {counted[0], counted[1], counted[2]};
        if (global) {
            schedules::schedule_global_pooling(stages, target_params(), work);
        } else {
            schedules::schedule_pooling(stages, target_params(), work, work.bytes());
        }
    }

    // Rows first, as MaxPool's generate_rows_first: for each output row, the window's rows summed
    // column by column, reading the input in place (a row outside the input adds 0), into a row of
    // sums inside a margin of zeros; then each output sums along x over its row, and is divided as
    // above. Nothing is copied: where the padded kernel copies each plane into a padded scratch
    // and then sums along x first, this reads each input element once for every output row whose
    // window holds it (the runtime's rule, pool_limits.h, has the figures).
    // The sums add the window's elements in another order than the padded kernel's (rows, then
    // columns): results may differ from it in the last bits.
    void generate_rows_first() {
        const Type work = work_type(data_type());
        if (global || !padded || !work.is_float()) {
            throw CompileError("avg_pool: rows_first is for padded kernels of floating-point types");
        }
        const Expr zero = cast(work, 0);

        // ---- Algorithm ----
        schedules::RowsFirstStages stages = rows_first_stages(
            "sum", work, zero, add, false,
            {output.dim(0).extent(), output.dim(1).extent(), output.dim(2).extent()});
        std::array<Func, kSpatialAxes> counted = define_average(stages.along_x(x, y, z, c, n), work);

        // ---- Estimates (autoschedulers) ----
        set_estimates();

        // ---- Schedule ----
        schedule_rows_first(stages, output, counted, work);
    }

    // Each plane pooled as one flat row (stride-1 windows that keep the plane's size; see
    // flat_plane_stages), each position's sum divided as above: by its taps counted along x and
    // y (a table over the plane's positions, per call) and along z.
    void generate_flat_plane() {
        const Type work = work_type(data_type());
        if (global || !padded || !work.is_float()) {
            throw CompileError("avg_pool: flat_plane is for padded kernels of floating-point types");
        }
        const Expr zero = cast(work, 0);

        // ---- Algorithm ----
        schedules::FlatPlaneStages stages =
            flat_plane_stages("sum", work, zero, add, false);
        const Var &f = stages.position;
        const std::array<Func, kSpatialAxes> counted = divisor_factors();
        Func divisors("divisors");
        // (Clamped for bounds inference: a position's column and row lie inside the plane.)
        const Expr column = clamp(stages.columns(f), 0, input_extent(0) - 1);
        const Expr row = clamp(flat_row(f, stages.width), 0, input_extent(1) - 1);
        divisors(f) = counted[0](column) * counted[1](row);
        stages.pooled(f, z, c, n) = average(stages.along_x(f, z, c, n), divisors(f) * counted[2](z), work);
        define_flat_plane_output(stages, output);

        // ---- Estimates (autoschedulers) ----
        set_estimates();

        // ---- Schedule ----
        schedule_flat_plane(stages, output, {stages.columns, counted[0], counted[1], counted[2], divisors}, work);
    }

    // The fold of the rows-first and flat-plane kernels: a sum.
    static Expr add(const Expr &acc, const Expr &v) { return acc + v; }

    // Per axis, the taps of each output coordinate's window that the divisor counts: those inside
    // [count_begin, count_end).
    std::array<Func, kSpatialAxes> divisor_factors() {
        std::array<Func, kSpatialAxes> counted;
        const FixedLayer &layer_shape = fixed_layer();
        for (int a = 0; a < kSpatialAxes; a++) {
            counted[a] = counted_taps(a, layer_shape.value("count_begin", a, count_begin[a]),
                                      layer_shape.value("count_end", a, count_end[a]));
        }
        return counted;
    }

    // A window's sum divided by the taps counted. A window that counts no tap (exclude-pad, all
    // padding) averages to 0.
    static Expr average(const Expr &sum, const Expr &count, const Type &work) {
        return select(count > 0, sum / cast(work, max(count, 1)), cast(work, 0));
    }

    // The output: a window's sum divided by the taps its divisor counts, those inside
    // [count_begin, count_end) (one table per axis, returned for the schedule).
    std::array<Func, kSpatialAxes> define_average(const Expr &sum, const Type &work) {
        std::array<Func, kSpatialAxes> counted = divisor_factors();
        const Expr count = counted[0](x) * counted[1](y) * counted[2](z);
        output(x, y, z, c, n) = to_data_type(data_type(), average(sum, count, work));
        return counted;
    }

    void set_estimates() {
        const FixedLayer &layer_shape = fixed_layer();
        set_input_estimates();
        for (int a = 0; a < kSpatialAxes; a++) {
            count_begin.set_estimate(a, 0);
            count_end.set_estimate(a, global       ? (a == 0 ? EstimateShape::global_plane : 1)
                                      : flat_plane ? EstimateShape::flat_plane[a]
                                                   : EstimateShape::in[a]);
        }
        set_output_estimates(output);
        fix_window_layer();
        layer_shape.estimate(count_begin, "count_begin");
        layer_shape.estimate(count_end, "count_end");
        layer_shape.constrain(output, "output");
    }

    void schedule() {
        prefetch_input_read_in_place(rows_first);
        apply_checked_in_schedule(global       ? "avg_pool_global"
                                  : rows_first ? "avg_pool_rows_first"
                                  : flat_plane ? "avg_pool_flat_plane"
                                  : padded     ? "avg_pool"
                                               : "avg_pool_unpadded");
    }
};

}  // namespace poolconv::generators

HALIDE_REGISTER_GENERATOR(poolconv::generators::MaxPool, max_pool)
HALIDE_REGISTER_GENERATOR(poolconv::generators::AvgPool, avg_pool)
