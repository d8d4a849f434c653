// fuzz_conv: differential fuzzing of Convolution. Small random shapes (groups, depthwise, channel
// multipliers, 1-3 spatial dimensions), attributes, weights layouts, bias, activations and data
// run through PreparedConvolution on every CPU path this machine has, against the plain C++
// reference, within the tolerances of tests/random_convolution_test.cpp: f16/bf16 data are
// multiples of 1/4 in [-3, 3], whose sums are exact, so their results are bit-exact; f32 and f64
// data are any values in [-100, 100], within 1e-5 (f64: 1e-14) * (taps + 1) * 100 * 100. An error
// is a finding too: every call made here is a valid one.
#include <cstddef>
#include <cstdint>
#include <string>

#include "reference/reference_convolution.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace poolconv;
using test::Tensor;
using Shape = std::vector<int64_t>;

constexpr DType kTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    static const std::vector<Isa> isas = fuzz::host_isas();
    FuzzedDataProvider in(data, size);
    const std::size_t spatial = in.ConsumeIntegralInRange<std::size_t>(1, 3);
    const bool depthwise = in.ConsumeBool();
    const int64_t group = in.ConsumeIntegralInRange<int64_t>(1, depthwise ? 6 : 3);
    const int64_t in_per_group = depthwise ? 1 : in.ConsumeIntegralInRange<int64_t>(1, 4);
    const int64_t out_per_group = depthwise ? in.ConsumeIntegralInRange<int64_t>(1, 2) : in.ConsumeIntegralInRange<int64_t>(1, 9);
    Shape input = {in.ConsumeIntegralInRange<int64_t>(1, 2), group * in_per_group};
    Shape weights = {group * out_per_group, in_per_group};
    ConvAttributes a;
    for (std::size_t i = 0; i < spatial; i++) {
        input.push_back(in.ConsumeIntegralInRange<int64_t>(1, spatial == 3 ? 6 : 12));
        weights.push_back(in.ConsumeIntegralInRange<int64_t>(1, spatial == 3 ? 3 : 4));
        a.strides.push_back(in.ConsumeIntegralInRange<int64_t>(1, 3));
        a.dilations.push_back(in.ConsumeIntegralInRange<int64_t>(1, 2));
        a.pads_begin.push_back(in.ConsumeIntegralInRange<int64_t>(0, 2));
        a.pads_end.push_back(in.ConsumeIntegralInRange<int64_t>(0, 2));
    }
    a.auto_pad = fuzz::pick_enum(in, AutoPad::same_lower);
    a.group = group;
    a.activation = fuzz::pick_enum(in, Activation::clamp);
    a.clamp_min = static_cast<float>(in.ConsumeIntegralInRange<int>(-8, 0));
    a.clamp_max = static_cast<float>(in.ConsumeIntegralInRange<int>(0, 8));
    ConvGeometry g;
    try {
        g = infer_conv_shape(input, weights, a);
    } catch (const Error &) {
        return 0;  // e.g. a window larger than the padded input: fuzz_shape covers those
    }
    const DType dtype = kTypes[in.ConsumeIntegralInRange<int>(0, 3)];
    const bool exact = test::is_16_bit(dtype);
    Tensor x = Tensor::dense(dtype, input), w = Tensor::dense(dtype, weights), b = Tensor::dense(dtype, {weights[0]});
    const double range = exact ? 3 : 100, step = exact ? 0.25 : 0;
    fuzz::fill(in, x, range, step, false);
    fuzz::fill(in, w, range, step, false);
    fuzz::fill(in, b, range, step, false);
    const bool with_bias = in.ConsumeBool();
    const TensorView bias_view = b.view();
    const TensorView *bias = with_bias ? &bias_view : nullptr;

    Tensor want = Tensor::dense(dtype, g.output_shape), got = Tensor::dense(dtype, g.output_shape);
    reference::convolution(x.view(), w.view(), bias, want.view(), a);
    // The same weights in OpenVINO GroupConvolution's layout now and then: the same memory.
    ConvAttributes run_a = a;
    Shape run_shape = weights;
    if (in.ConsumeBool()) {
        run_a.weights_layout = WeightsLayout::grouped;
        run_shape = {group, out_per_group, in_per_group};
        run_shape.insert(run_shape.end(), weights.begin() + 2, weights.end());
    }
    TensorView run_w = w.view();
    run_w.shape = run_shape;
    run_w.strides.clear();  // dense
    test::CompareOptions o;
    if (!exact) {
        const double taps = static_cast<double>(w.element_count() / weights[0]);
        o.abs_tol = (dtype == DType::f64 ? 1e-14 : 1e-5) * (taps + 1) * 100.0 * 100.0;
    }
    PoolAttributes window;  // the window attributes, printed as pooling's are
    static_cast<WindowAttributes &>(window) = a;
    window.kernel.assign(weights.begin() + 2, weights.end());
    const std::string shapes = std::string("convolution ") + dtype_name(dtype) + " input " + shape_to_string(input) +
                               ", weights " + shape_to_string(run_shape) + ", group " + std::to_string(group) + ", " +
                               test::describe(window) + ", activation " + std::to_string(static_cast<int>(a.activation)) +
                               (with_bias ? ", bias" : "");
    try {
        const PreparedConvolution conv(run_w, bias, run_a);
        for (Isa isa : isas) {
            set_isa(isa);
            conv.run(x.view(), got.view());
            const test::CompareResult r = test::compare_tensors(got, want, o);
            if (!r.ok(o, want.element_count())) {
                fuzz::finding(shapes + ", kernel " + conv.kernel_name(x.view(), got.view()) + ", isa " + isa_name(isa) +
                              ": " + std::to_string(r.wrong) + " wrong" + r.log);
            }
        }
    } catch (const Error &e) {
        fuzz::finding(shapes + ": threw " + e.what());
    }
    set_isa(Isa::best);
    return 0;
}
