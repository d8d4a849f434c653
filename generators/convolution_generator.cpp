// Convolution (ONNX Conv; OpenVINO Convolution and GroupConvolution) over NC[D]HW tensors:
//
//   output[n, g, co, o] = clamp(bias[g, co] + sum over ci, k of weights[g, co, ci, k] * input[n, g, ci, o * stride - pad_begin + k * dilation])
//
// where o and k are 3-D (x, y, z) and input positions outside the input are 0 (zero padding).
// The channel axis C of a tensor is seen as (group g, channel within the group): a grouped
// convolution is then G independent convolutions side by side, and depthwise is the case of one
// channel per group. The runtime resolves auto_pad, packs the weights and bias (f32, output
// channels padded to a multiple of kOutputChannelBlock, in runs of kPackedChannels, in the
// arithmetic type: see schedules/conv_packing.h) and views 1-D and 2-D convolution as 3-D with extent-1 axes (and, for
// the pointwise variant, a dense 1x1 stride-1 convolution's planes as one x axis). The loop
// structure is in schedules/convolution_schedule.cpp.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Halide.h"

#include "generators/element_type.h"
#include "generators/margin_box.h"
#include "generators/scheduled_generator.h"
#include "schedules/conv_packing.h"
#include "schedules/convolution_schedule.h"
#include "schedules/target_params.h"

namespace poolconv::generators {

using namespace Halide;

// The shapes the estimates describe (autoscheduler input), all benchmark layers. Any kernel (and
// row pairs): C1, 1x64x56x56 * 64x64x3x3, pads 1 -> 1x64x56x56 (ResNet). Pointwise: C3,
// 1x256x56x56 * 64x256x1x1 (ResNet), its 56x56 plane seen as one axis of 3136 pixels. Depthwise:
// C5, 1x144x56x56 * 144x1x3x3 in 144 groups, pads 1 (MobileNetV2). Depthwise 1-D: a Conformer
// convolution module's, 1x256x512 * 256x1x31 in 256 groups, pads 15.
struct ConvEstimateShape {
    int spatial[3];
    int kernel[3];
    int pad[3];
    int channels_in, channels_out, groups, batch;
};
constexpr ConvEstimateShape kAnyKernelEstimate{{56, 56, 1}, {3, 3, 1}, {1, 1, 0}, 64, 64, 1, 1};
constexpr ConvEstimateShape kPointwiseEstimate{{56 * 56, 1, 1}, {1, 1, 1}, {0, 0, 0}, 256, 64, 1, 1};
constexpr ConvEstimateShape kDepthwiseEstimate{{56, 56, 1}, {3, 3, 1}, {1, 1, 0}, 144, 144, 144, 1};
constexpr ConvEstimateShape kDepthwise1dEstimate{{512, 1, 1}, {31, 1, 1}, {15, 0, 0}, 256, 256, 256, 1};

// The plans by their generator-parameter names (plan=row_pairs), from schedules/conv_plan.h.
static std::map<std::string, ConvPlan> conv_plan_names() {
    std::map<std::string, ConvPlan> names;
    for (const ConvPlanName &p : kConvPlanNames) names[p.name] = p.plan;
    return names;
}

class Convolution : public ScheduledGenerator<Convolution> {
public:
    // Element type of input and output. The arithmetic (and the packed weights and bias) is f32,
    // or f64 for f64 data (ONNX and PyTorch compute double convolutions in double).
    GeneratorParam<Type> data_type{"data_type", Float(32)};
    // Which convolutions the kernel is built for (schedules/conv_plan.h, where the runtime's rule
    // for choosing among them is too):
    //   general       any convolution;
    //   one_vector    the same in tiles one vector wide (AVX-512 f32 only), for cores that run one
    //                 512-bit FMA a cycle (the runtime's rule says which);
    //   row_pairs     3x3 and 3x3xk kernels with no dilation and the same x and y strides (1 or
    //                 2): tiles two output rows high, whose windows share input rows. Computes any
    //                 convolution correctly, but only those fast; the runtime sends it those with
    //                 two or more output rows;
    //   depthwise     one input and one output channel per group: tiles output rows instead of
    //                 output channels, and takes only weights of one input channel per group;
    //   depthwise_1d  the same for outputs one row high (1-D convolutions): tiles a row's
    //                 columns, where the depthwise tile's other rows would be discarded;
    //   channel_vectors  undilated 3x3 kernels at stride 1 (AVX-512 f32 only): tiles of output-
    //                 channel vectors by columns, each tap a broadcast input value per column.
    //                 Computes any convolution correctly; the runtime sends it those where it
    //                 over-computes less than the row-pair kernels (schedules/conv_plan.h);
    //   pointwise     1x1 kernels with stride 1 and no padding, a matrix product over the pixels:
    //                 the runtime passes dense spatial axes as one x axis (so tiles do not stop at
    //                 row ends), and the kernel takes only 1x1x1 weights.
    GeneratorParam<ConvPlan> plan{"plan", ConvPlan::general, conv_plan_names()};
    // Our schedule's accumulator tile for the plan, "XxCxR" (x vectors, output channels, rows:
    // schedules/target_params.h), instead of the target's; empty: the target's. poolconv-tune
    // tries several. (Pointwise kernels' input panels are as wide as the tile.)
    GeneratorParam<std::string> tile{"tile", ""};
    // A parallel task's share of the output for our schedule, "XxR" (x tiles, row tiles:
    // schedules/convolution_schedule.h), instead of the plan's rule; empty: the rule.
    GeneratorParam<std::string> task{"task", ""};

    // Data (x, y, z, ci, g, n): NCDHW with C split into groups of C_in / G channels.
    Input<Buffer<void, 6>> input{"input"};
    // Packed weights (co % kPackedChannels, kx, ky, kz, ci, co / kPackedChannels, g), in the
    // arithmetic type (channel_vectors: runs of kChannelVectorRun instead). The channel extent may
    // exceed the output's (padding channels, zero): tiles read whole runs.
    Input<Buffer<void, 7>> weights{"weights"};
    // Packed bias (co, g), in the arithmetic type, padded like the weights' co axis (zeros when
    // there is no bias).
    Input<Buffer<void, 2>> bias{"bias"};
    // Per spatial axis (0 = x, 1 = y, 2 = z): >= 1 except pad_begin >= 0. The kernel size is the
    // weights' extent.
    Input<int[3]> stride{"stride"};
    Input<int[3]> dilation{"dilation"};
    Input<int[3]> pad_begin{"pad_begin"};
    // Fused activation: when `clamp_output` is set, every result is clamped to [clamp_min,
    // clamp_max] (ReLU is [0, inf), ReLU6 [0, 6]). A NaN result stays NaN.
    Input<bool> clamp_output{"clamp_output"};
    Input<float> clamp_min{"clamp_min"};
    Input<float> clamp_max{"clamp_max"};

    // (x, y, z, co, g, n), type data_type.
    Output<Buffer<void, 6>> output{"output"};

    // The arithmetic type: f32 holds every f16 and bf16 value exactly; f64 stays f64.
    Type arithmetic_type() const { return Type(data_type) == Float(64) ? Float(64) : Float(32); }

    void configure() {
        input.set_type(data_type);
        output.set_type(data_type);
        weights.set_type(arithmetic_type());
        bias.set_type(arithmetic_type());
    }

    void generate() {
        // The plan shapes the algorithm and estimates too, not only the schedule.
        const ConvPlan kernel_plan = plan;
        const bool depthwise = kernel_plan == ConvPlan::depthwise;
        const bool depthwise_1d = kernel_plan == ConvPlan::depthwise_1d;
        const bool pointwise = kernel_plan == ConvPlan::pointwise;
        const bool any_depthwise = depthwise || depthwise_1d;
        // The layer's constants where the kernel is built for one (generators/fixed_layer.h).
        const FixedLayer &layer_shape = fixed_layer();
        auto extent = [&](const auto &buffer, const char *name, int d) {
            return layer_shape.value(name, d, buffer.dim(d).extent());
        };
        Expr stride_at[3], dilation_at[3], pad_at[3];
        for (int a = 0; a < 3; a++) {
            stride_at[a] = layer_shape.value("stride", a, stride[a]);
            dilation_at[a] = layer_shape.value("dilation", a, dilation[a]);
            pad_at[a] = layer_shape.value("pad_begin", a, pad_begin[a]);
        }
        // Our schedule's numbers for the target (its table, with poolconv-tune's tile), which the
        // algorithm reads too (the padding-row test, the pointwise panel width). None where others
        // schedule the pipeline: it may be planned for a machine with no table.
        std::optional<schedules::TargetParams> our_target;
        if (!scheduled_elsewhere()) our_target = target_with_tile(kernel_plan);

        // ---- Algorithm ----
        // The input in the arithmetic type, zero outside [0, extent) along x, y and z. (The stage
        // keeps its historical name, which the checked-in f32 schedules refer to.)
        const Type arithmetic = arithmetic_type();
        const Expr zero = cast(arithmetic, 0);
        Func input_f32("input_f32");
        input_f32(x, y, z, c, g, n) = cast(arithmetic, input(x, y, z, c, g, n));
        Func padded = BoundaryConditions::constant_exterior(
            input_f32, zero,
            {{0, extent(input, "input", 0)}, {0, extent(input, "input", 1)}, {0, extent(input, "input", 2)}});

        // Taps: kernel position (kx, ky, kz) and input channel ci of the group, kx innermost.
        RDom taps({{0, extent(weights, "weights", 1)}, {0, extent(weights, "weights", 2)}, {0, extent(weights, "weights", 3)},
                   {0, extent(weights, "weights", 4)}},
                  "taps");
        const RVar kx = taps.x, ky = taps.y, kz = taps.z, ci = taps.w;
        // The runtime passes strides >= 1; the max lets bounds inference see that x's is positive.
        const Expr stride_x = max(stride_at[0], 1);
        // Input row (a = 1) or plane (a = 2) of output position o's tap k.
        auto at = [&](int a, const Expr &o, const Expr &k) { return o * stride_at[a] - pad_at[a] + k * dilation_at[a]; };
        // A window row (or plane) that lies in the padding adds zeros: where the target's table
        // says it pays (TargetParams::conv_skips_padding_rows: AVX-512), its taps are skipped, as
        // oneDNN's direct kernels skip them. A test at every ky (and kz) tap in the input-channel
        // loop, true for every row but the first and last few: 2 of C4's 42 row taps (3x3 on 14
        // rows), 4 of C6's 96 (dilation 2 on 32 rows), 2 of C7's 48 plane taps (3-D, 16 planes).
        // Columns are not skipped: a tile's vector spans columns inside and outside the input.
        // Not in pointwise kernels (no padding), depthwise ones (C5 took 2.4x the time: the loads
        // of input rows its 7-row tile shares went into the branches), pipelines others schedule
        // (the checked-in autoscheduler results were planned without it), nor for windows one row
        // high or one plane deep (1-D layers, where it never skips; a 1xk window keeps its padding
        // rows' taps). Figures in docs/PERFORMANCE_HISTORY.md, "2026-11-29, ad25651".
        const bool skip_padding_rows = !pointwise && !any_depthwise && our_target && our_target->conv_skips_padding_rows;
        if (skip_padding_rows) {
            const Expr iy = at(1, y, ky), iz = at(2, z, kz);
            const Expr row_inside = extent(weights, "weights", 2) == 1 || (iy >= 0 && iy < extent(input, "input", 1));
            const Expr plane_inside = extent(weights, "weights", 3) == 1 || (iz >= 0 && iz < extent(input, "input", 2));
            taps.where(row_inside && plane_inside);
        }

        // The padded input with x split by stride phase: column q * stride_x + r is phased(q, r).
        // Output column o's taps then read columns q = o + (k * dilation - pad) / stride, so a
        // row of outputs reads a dense row of q, whatever the stride.
        Func phased("phased");
        Var q("q"), r("r");
        // Depthwise and channel-vector CPU kernels write the same values as the zeros of the
        // margin the taps read around the input, then the input itself: the copy then has no
        // border test per element. With the test, each row's first and last vectors were gathers
        // of clamped columns (C1 on an Intel Xeon: 9% of the kernel's samples; C4's 14-column rows
        // were all gathers); with zeros everywhere first (a memset of the task's scratch), the
        // zeros took 10% of a 56x56 3x3 depthwise layer's time (Zen 4). GPU kernels keep the
        // one-line definition below: their schedule stages it block by block.
        // The margins are whole phased columns q (every phase r) left and right of the input: the
        // right one may zero columns of the last q, which the copy overwrites. Depthwise tasks
        // copy whole planes, so their margins are the rows above and below the plane too; a
        // channel-vector task copies whole rows (the rows its windows cover; rows outside the
        // input are zero by a test per row). Taps past the last window (whole vectors of outputs
        // past a row's end) read scratch no margin wrote, into sums no output keeps.
        RDom copied;  // the input plane (depthwise) or row (channel vectors), copied inside the margins
        std::vector<RDom> margins;
        const bool copy_inside_margins =
            (any_depthwise || kernel_plan == ConvPlan::channel_vectors) && !get_target().has_gpu_feature();
        if (copy_inside_margins) {
            const Expr width = extent(input, "input", 0), height = extent(input, "input", 1);
            const Expr last_column = at(0, extent(output, "output", 0) - 1, extent(weights, "weights", 1) - 1);
            const Expr q_first = min(0, (0 - pad_at[0]) / stride_x), q_inside = width / stride_x;
            const Expr q_end = max(q_inside, last_column / stride_x + 1);
            phased(q, r, y, z, c, g, n) = undef(arithmetic);
            if (any_depthwise) {
                Func depth_padded = BoundaryConditions::constant_exterior(
                    input_f32, zero, {{Expr(), Expr()}, {Expr(), Expr()}, {0, extent(input, "input", 2)}});
                const Expr last_row = at(1, extent(output, "output", 1) - 1, extent(weights, "weights", 2) - 1);
                const Expr y_first = min(0, 0 - pad_at[1]), y_end = max(height, last_row + 1);
                margins = {box_or_origin({q_first, y_first}, {Expr(0), y_end}, "margin_left"),
                           box_or_origin({q_inside, y_first}, {q_end, y_end}, "margin_right"),
                           box_or_origin({Expr(0), y_first}, {q_inside, Expr(0)}, "margin_above"),
                           box_or_origin({Expr(0), height}, {q_inside, y_end}, "margin_below")};
                copied = RDom({{0, width}, {0, height}}, "plane");
                for (const RDom &m : margins) phased(m.x, r, m.y, z, c, g, n) = zero;
                phased(copied.x / stride_x, copied.x % stride_x, copied.y, z, c, g, n) =
                    depth_padded(copied.x, copied.y, z, c, g, n);
            } else {
                Func row_padded = BoundaryConditions::constant_exterior(
                    input_f32, zero, {{Expr(), Expr()}, {0, height}, {0, extent(input, "input", 2)}});
                margins = {box_or_origin({q_first}, {Expr(0)}, "margin_left"),
                           box_or_origin({q_inside}, {q_end}, "margin_right")};
                copied = RDom({{0, width}}, "row");
                for (const RDom &m : margins) phased(m.x, r, y, z, c, g, n) = zero;
                phased(copied.x / stride_x, copied.x % stride_x, y, z, c, g, n) = row_padded(copied.x, y, z, c, g, n);
            }
        } else {
            phased(q, r, y, z, c, g, n) = padded(q * stride_x + r, y, z, c, g, n);
        }

        // Pointwise kernels (a 1x1 kernel over dense planes seen as one x axis: a matrix product)
        // read their input in panels, as GEMMs pack their B matrix: x in panels as wide as the
        // schedule's tile, each panel's input channels one after another. A tile's inputs are then
        // one contiguous block (AVX2, 256 channels: 24 KB on 384 cache lines) that stays in L1
        // while every output channel tile reads it. Stored as rows of a task's columns, a tile's
        // 96-byte piece of each row straddled two lines: 512 lines, all of L1, so the streaming
        // weights evicted it.
        // The panel width is our schedule's tile width (with a tile the generator is given, the
        // one it schedules); pipelines others schedule (autoschedulers now, or their checked-in
        // results, planned on this same algorithm) use one vector.
        const int panel_width = our_target ? our_target->lanes(arithmetic) * our_target->pointwise_tile.x_vectors
                                           : natural_vector_size(arithmetic);
        Func panel("panel");
        Var panel_x("panel_x"), panel_index("panel_index");
        panel(panel_x, c, panel_index, g, n) = padded(panel_index * panel_width + panel_x, 0, 0, c, g, n);

        Func sum("sum"), tapped("tapped");
        sum(x, y, z, c, g, n) = bias(c, g);
        const int run = weight_run(kernel_plan);
        const Expr weight = weights(c % run, kx, ky, kz, ci, c / run, g);
        if (pointwise) {
            sum(x, y, z, c, g, n) += weight * panel(x % panel_width, ci, x / panel_width, g, n);
        } else {
            // Column x * stride + tap_offset, split by phase as above: the division is per tap, so a
            // row of outputs reads a dense vector at any stride. Written per column (column /
            // stride), only the strides the schedule specializes (1, 2) simplified to that; the
            // rest divided every lane and gathered.
            const Expr tap_offset = kx * dilation_at[0] - pad_at[0];
            if (kernel_plan == ConvPlan::channel_vectors) {
                // The same columns, once per kx tap: column x of tap k is tapped(x, k), so no two
                // taps of a tile read one address (schedules/convolution_schedule.cpp says why).
                Var k("k");
                const Expr offset_k = k * dilation_at[0] - pad_at[0];
                tapped(x, k, y, z, c, g, n) = phased(x + offset_k / stride_x, offset_k % stride_x, y, z, c, g, n);
                sum(x, y, z, c, g, n) += weight * tapped(x, kx, at(1, y, ky), at(2, z, kz), ci, g, n);
            } else {
                sum(x, y, z, c, g, n) += weight * phased(x + tap_offset / stride_x, tap_offset % stride_x, at(1, y, ky),
                                                         at(2, z, kz), ci, g, n);
            }
        }

        // The fused activation keeps NaNs (strict_float: fast-math would let the comparisons drop them).
        // The bounds are per output channel (the same for every channel): the schedule can then
        // store them, and a tile loads its channels' bounds after its sums instead of keeping
        // them in registers (schedules/convolution_schedule.cpp). Without activation they are
        // -inf and inf, which leave every value (NaN too) as it is.
        const Expr inf = cast(arithmetic, std::numeric_limits<float>::infinity());
        Func activation_min("activation_min"), activation_max("activation_max");
        activation_min(c, g) = select(clamp_output, cast(arithmetic, clamp_min), -inf);
        activation_max(c, g) = select(clamp_output, cast(arithmetic, clamp_max), inf);
        Expr v = sum(x, y, z, c, g, n);
        Expr lo = activation_min(c, g), hi = activation_max(c, g);
        // The upper bound first, then the lower one on that result: each select is then one
        // min or max instruction that passes a NaN on (x86's `minps`/`maxps` return their second
        // operand where either is NaN), where testing v against lo cost a compare and a blend more
        // per output vector (C5 0.96x / 0.97x the time at 1 / 2 threads on Zen 3, AVX2; the same
        // results, the runtime requiring clamp_min <= clamp_max).
        Expr below_hi = select(v > hi, hi, v);
        Expr activated = strict_float(select(below_hi < lo, lo, below_hi));
        output(x, y, z, c, g, n) = to_data_type(output.type(), activated);

        set_estimates(kernel_plan);
        constrain_layouts(kernel_plan);
        fix_layer(layer_shape);
        if (scheduled_elsewhere()) return;

        schedules::ConvolutionStages stages;
        stages.output = output;
        stages.sum = sum;
        stages.activation_bounds = {activation_min, activation_max};
        stages.input_copy = pointwise ? panel : phased;
        stages.shifted_copy = tapped;
        stages.taps = {kx, ky, kz, ci};
        if (copied.defined()) {
            stages.copied_input = {copied.x};
            if (copied.dimensions() == 2) stages.copied_input.push_back(copied.y);
        }
        stages.copy_margins = margins;
        stages.kernel_x = extent(weights, "weights", 1);
        stages.kernel_y = extent(weights, "weights", 2);
        stages.kernel_z = extent(weights, "weights", 3);
        stages.output_width = extent(output, "output", 0);
        stages.output_height = extent(output, "output", 1);
        stages.output_images = extent(output, "output", 4) * extent(output, "output", 5);
        stages.output_channels = extent(output, "output", 3);
        stages.stride_x = stride_at[0];
        stages.stride_y = stride_at[1];
        stages.dilation_x = dilation_at[0];
        stages.dilation_y = dilation_at[1];
        schedules::ConvTaskShape task_shape;
        if (!task.value().empty()) {
            const std::vector<int> t = parse_positive("task", task.value(), 2);
            task_shape = {t[0], t[1]};
        }
        schedules::schedule_convolution(stages, *our_target, kernel_plan, task_shape);
    }

    // The target's table (schedules/target_params.h), its tile for `kernel_plan` replaced by the
    // `tile` parameter where that is set.
    schedules::TargetParams target_with_tile(ConvPlan kernel_plan) const {
        schedules::TargetParams params = schedules::target_params(get_target());
        if (!tile.value().empty()) {
            const std::vector<int> t = parse_positive("tile", tile.value(), 3);
            schedules::conv_plan_tile(params, kernel_plan) = {t[0], t[1], t[2]};
        }
        return params;
    }

    // Estimates on every input, parameter and output (autoschedulers): a bench layer of the
    // plan's kind.
    void set_estimates(ConvPlan kernel_plan) {
        const bool pointwise = kernel_plan == ConvPlan::pointwise;
        const bool depthwise = kernel_plan == ConvPlan::depthwise;
        const bool depthwise_1d = kernel_plan == ConvPlan::depthwise_1d;
        const ConvEstimateShape &est = pointwise      ? kPointwiseEstimate
                                       : depthwise    ? kDepthwiseEstimate
                                       : depthwise_1d ? kDepthwise1dEstimate
                                                      : kAnyKernelEstimate;
        const int cin_g = est.channels_in / est.groups, cout_g = est.channels_out / est.groups;
        input.set_estimates({{0, est.spatial[0]}, {0, est.spatial[1]}, {0, est.spatial[2]}, {0, cin_g}, {0, est.groups}, {0, est.batch}});
        const int run = weight_run(kernel_plan);
        weights.set_estimates({{0, run}, {0, est.kernel[0]}, {0, est.kernel[1]}, {0, est.kernel[2]}, {0, cin_g},
                               {0, cout_g / run}, {0, est.groups}});
        bias.set_estimates({{0, cout_g}, {0, est.groups}});
        for (int a = 0; a < 3; a++) {
            stride.set_estimate(a, 1);
            dilation.set_estimate(a, 1);
            pad_begin.set_estimate(a, est.pad[a]);
        }
        clamp_output.set_estimate(false);
        clamp_min.set_estimate(-std::numeric_limits<float>::infinity());
        clamp_max.set_estimate(std::numeric_limits<float>::infinity());
        output.set_estimates({{0, est.spatial[0]}, {0, est.spatial[1]}, {0, est.spatial[2]}, {0, cout_g}, {0, est.groups}, {0, est.batch}});
    }

    // A kernel built for one layer: its extents and window attributes are constants, and its
    // estimates (generators/fixed_layer.h).
    void fix_layer(const FixedLayer &layer_shape) {
        layer_shape.constrain(input, "input");
        layer_shape.constrain(weights, "weights");
        layer_shape.constrain(bias, "bias");
        layer_shape.constrain(output, "output");
        layer_shape.estimate(stride, "stride");
        layer_shape.estimate(dilation, "dilation");
        layer_shape.estimate(pad_begin, "pad_begin");
    }

    // Output channels per run of the packed weights (schedules/conv_packing.h).
    static int weight_run(ConvPlan kernel_plan) {
        return kernel_plan == ConvPlan::channel_vectors ? kChannelVectorRun : kPackedChannels;
    }

    // The `tile` (XxCxR) or `task` (XxR) parameter's `count` positive numbers.
    static std::vector<int> parse_positive(const std::string &name, const std::string &text, std::size_t count) {
        const std::vector<int> v = FixedLayer::parse_list(text, name);
        if (v.size() != count || *std::min_element(v.begin(), v.end()) < 1) {
            throw CompileError(name + ": expected " + std::to_string(count) + " positive numbers joined by x, got \"" + text + "\"");
        }
        return v;
    }

    // What the kernels may assume of their buffers' layouts (the runtime guarantees it).
    void constrain_layouts(ConvPlan kernel_plan) {
        const bool pointwise = kernel_plan == ConvPlan::pointwise;
        const bool any_depthwise = kernel_plan == ConvPlan::depthwise || kernel_plan == ConvPlan::depthwise_1d;
        // Data tensors are dense along x and start at 0; the packed weights are runs of channels.
        input.dim(0).set_stride(1);
        output.dim(0).set_stride(1);
        for (int d = 0; d < 6; d++) {
            input.dim(d).set_min(0);
            output.dim(d).set_min(0);
        }
        const int run = weight_run(kernel_plan);
        weights.dim(0).set_bounds(0, run).set_stride(1);
        for (int d = 1; d < 7; d++) weights.dim(d).set_min(0);
        // The runtime packs a run's taps densely, kx steps one run: as a constant, the taps of a
        // kernel row address their weights from one register. With a runtime stride each tap had a
        // register of its own, and LLVM spilled them.
        weights.dim(1).set_stride(run);
        if (pointwise) {
            for (int d = 1; d <= 3; d++) weights.dim(d).set_extent(1);  // kx, ky, kz: the taps vanish
        }
        // Depthwise: one input channel, so no channel loop around the taps. With a loop of one
        // iteration around them, LLVM kept all 36 tap addresses of a 3x3 tile live across it and
        // spilled them.
        if (any_depthwise) weights.dim(4).set_extent(1);
        bias.dim(0).set_min(0);
        bias.dim(1).set_min(0);
    }

    // A checked-in result, when schedule_by names one (generators/scheduled_generator.h). Row
    // pairs take the general result: the plan changes only our schedule.
    void schedule() {
        const char *variant = plan == ConvPlan::pointwise         ? "convolution_pointwise"
                              : plan == ConvPlan::depthwise       ? "convolution_depthwise"
                              : plan == ConvPlan::depthwise_1d    ? "convolution_depthwise_1d"
                              : plan == ConvPlan::channel_vectors ? "convolution_channel_vectors"
                                                                  : "convolution";
        apply_checked_in_schedule(variant);
    }

private:
    Var x{"x"}, y{"y"}, z{"z"}, c{"c"}, g{"g"}, n{"n"};
};

}  // namespace poolconv::generators

HALIDE_REGISTER_GENERATOR(poolconv::generators::Convolution, convolution)
