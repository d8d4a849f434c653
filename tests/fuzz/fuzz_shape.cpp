// fuzz_shape: shape inference for any attribute combination. infer_pool_shape and
// infer_conv_shape either throw poolconv::Error or return a geometry that is consistent (rank, N
// and C, pads of the spatial rank) and that the operators then accept: with an input and output
// small enough to allocate, MaxPool (with and without indices), AvgPool and Convolution must run
// on it without an error. The one exception is the padded pooling kernels' scratch limit, for
// windows reaching so far past the input that the padded plane they read exceeds 2 GiB (checked
// here independently from the geometry), and there only for calls that need the padded kernels:
// where every window lies inside the input, calls without indices run a kernel that reads the
// input in place, with no scratch (runtime/pooling.cpp, pool_kernel); and f32 MaxPool without
// indices and f32 AvgPool may run the rows-first kernels, whose scratch is a band of 8 rows, or
// the flat-plane kernels (stride-1 windows that keep the plane's size, planes under 2^24
// positions), so they may run or be refused there.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace poolconv;
using test::Tensor;
using Shape = std::vector<int64_t>;

constexpr int64_t kMaxRunElements = 1 << 14;

void check_geometry(const Shape &input, const PoolGeometry &g, int64_t channels, const std::string &what) {
    const std::size_t spatial = input.size() - 2;
    bool ok = g.output_shape.size() == input.size() && g.output_shape[0] == input[0] && g.output_shape[1] == channels &&
              g.pads_begin.size() == spatial && g.pads_end.size() == spatial;
    for (std::size_t i = 0; ok && i < spatial; i++) ok = g.output_shape[i + 2] >= 0;
    if (!ok) fuzz::finding(what + ": inconsistent geometry for input " + shape_to_string(input) + ": output " +
                           shape_to_string(g.output_shape));
}

// The bytes of the kernels' scratch plane for a pooling call, at most: the input and every tap the
// windows of a row's last vector read (64 outputs past its end at most) and of a step's second
// row (one row past the last), 8 bytes per element at most. Along an axis of one output the
// kernels get stride 1, and along a window of one tap dilation 1. Beyond Halide's limit of
// 2^31 - 1 bytes the operators report "scratch limit". Worked out here from the geometry alone.
long double padded_plane_bytes(const Shape &input, const PoolGeometry &g, const PoolAttributes &a) {
    const std::size_t spatial = input.size() - 2;
    long double bytes = 8;
    for (std::size_t i = 0; i < spatial; i++) {
        const auto at = [&](const std::vector<int64_t> &v) { return v.empty() ? int64_t{1} : v[i]; };
        const int64_t out = g.output_shape[i + 2];
        const long double outputs = static_cast<long double>(out) + (i + 1 == spatial ? 63 : i + 2 == spatial ? 1 : 0);
        const long double stride = out == 1 ? 1 : at(a.strides), dilation = a.kernel[i] == 1 ? 1 : at(a.dilations);
        const long double last = (outputs - 1) * stride - g.pads_begin[i] + (a.kernel[i] - 1.0L) * dilation;
        const long double begin = g.pads_begin[i] > 0 ? -static_cast<long double>(g.pads_begin[i]) : 0;
        bytes *= std::max<long double>(input[i + 2], last + 1) - begin;
    }
    // A 1-D call's row is the kernels' one row along y, which they step two at a time.
    return spatial == 1 ? 2 * bytes : bytes;
}

// Whether every window lies inside the input (no padding tap, none past the end), where the
// pooling runtime may take an unpadded kernel: no scratch, so no scratch limit.
bool windows_inside(const Shape &input, const PoolGeometry &g, const PoolAttributes &a) {
    const std::size_t spatial = input.size() - 2;
    for (std::size_t i = 0; i < spatial; i++) {
        const auto at = [&](const std::vector<int64_t> &v) { return v.empty() ? int64_t{1} : v[i]; };
        const long double last = (static_cast<long double>(g.output_shape[i + 2]) - 1) * at(a.strides) -
                                 g.pads_begin[i] + (a.kernel[i] - 1.0L) * at(a.dilations);
        if (g.pads_begin[i] > 0 || last >= static_cast<long double>(input[i + 2])) return false;
    }
    return true;
}

// Whether running the call is quick: the kernels visit every tap of every window, padding
// included, and windows millions of taps wide over a few input elements (which shape inference
// rightly accepts) take seconds. This target checks that such calls are accepted, not how fast.
bool small_work(const PoolGeometry &g, const Shape &kernel) {
    long double taps = 1;
    for (std::size_t d = 0; d < g.output_shape.size(); d++) {
        taps *= static_cast<long double>(g.output_shape[d]) + (d + 1 == g.output_shape.size() ? 63 : 0);  // whole vectors
    }
    for (int64_t k : kernel) taps *= static_cast<long double>(k);
    return taps <= 1e8L;
}

// Whether a convolution's per-task input copy stays small: the kernels copy the input rows a task
// reads, stride phase by stride phase, so the copy grows with stride x outputs (and dilated
// kernel); strides and pads of hundreds of thousands over a few elements make it exceed Halide's
// 2 GiB scratch limit, which the kernel reports (an open limitation: see the README of this
// folder). Estimated generously: a whole row of outputs and three rows of tiles per task, every
// input channel, 8 bytes each; calls beyond 64 MiB are not run.
bool small_conv_copy(const Shape &input, const PoolGeometry &g, const ConvAttributes &a, const Shape &kernel) {
    const std::size_t spatial = input.size() - 2;
    long double bytes = 8.0L * static_cast<long double>(input[1]);
    for (std::size_t i = 0; i < spatial; i++) {
        const long double outputs = static_cast<long double>(g.output_shape[i + 2]);
        const long double s = outputs == 1 || a.strides.empty() ? 1 : a.strides[i];
        const long double d = a.dilations.empty() ? 1 : a.dilations[i];
        const long double per_task = i + 1 == spatial ? outputs + 64 : std::min<long double>(outputs, 3) + 2;
        bytes *= per_task * s + (kernel[i] - 1) * d + s;
    }
    return bytes <= 67108864.0L;
}

// The operator accepted the shape; running it must not fail either, except for the scratch limit
// where the geometry shows it (`scratch_limit_applies`). (FUZZ_VERBOSE=1 prints each call first:
// what a crash inside a kernel was running.)
template <typename Call>
void must_run(const Call &call, const std::string &what, bool scratch_limit_applies = false) {
    static const bool verbose = std::getenv("FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "running %s\n", what.c_str());
    try {
        call();
    } catch (const Error &e) {
        if (scratch_limit_applies && std::string(e.what()).find("scratch limit") != std::string::npos) return;
        fuzz::finding(what + ": shape inference accepted the call but the operator refused it: " + e.what());
    }
}

void pooling(FuzzedDataProvider &in) {
    const Shape input = fuzz::pick_shape(in, 12);
    const std::size_t spatial = input.size() >= 2 ? input.size() - 2 : 0;
    PoolAttributes a;
    a.kernel = fuzz::pick_list(in, spatial, 1, 5);
    fuzz::pick_window(in, spatial, a);
    a.rounding = fuzz::pick_enum(in, Rounding::ceil_torch);
    PoolGeometry g;
    try {
        g = infer_pool_shape(input, a);
    } catch (const Error &) {
        return;
    }
    check_geometry(input, g, input[1], "pooling " + test::describe(a));
    const int64_t in_count = fuzz::small_count(input, kMaxRunElements);
    const int64_t out_count = fuzz::small_count(g.output_shape, kMaxRunElements);
    // Run where the plane is small whatever the element size (the call must succeed) or too large
    // whatever it is (a quick refusal); in between, planes of up to 2 GiB would be allocated and
    // filled: seconds per call, and nothing new.
    const long double plane = padded_plane_bytes(input, g, a);  // at 8 bytes per element
    const bool scratch = plane / 8 > 2147483647.0L;
    if (in_count < 0 || out_count < 0 || !small_work(g, a.kernel) || (plane > 16777216.0L && !scratch)) return;

    const DType dtype = in.ConsumeBool() ? DType::f32 : DType::u8;
    Tensor x = Tensor::dense(dtype, input), y = Tensor::dense(dtype, g.output_shape);
    Tensor indices = Tensor::dense(DType::i64, g.output_shape);
    fuzz::fill(in, x, 10, 0, true);
    MaxPoolAttributes max_a;
    static_cast<PoolAttributes &>(max_a) = a;
    max_a.axis = in.ConsumeIntegralInRange<int64_t>(-static_cast<int64_t>(input.size()), 2);
    AvgPoolAttributes avg_a;
    static_cast<PoolAttributes &>(avg_a) = a;
    avg_a.pad_mode = fuzz::pick_enum(in, AvgPadMode::include_pad_openvino);
    const std::string what = "pooling, input " + shape_to_string(input) + ", " + test::describe(a);
    // Values-only calls whose windows all lie inside the input never meet the limit.
    const bool values_scratch = scratch && !windows_inside(input, g, a);
    must_run([&] { max_pool(x.view(), y.view(), max_a); }, "max_pool " + what, values_scratch);
    const TensorView iv = indices.view();
    must_run([&] { max_pool(x.view(), y.view(), max_a, &iv); }, "max_pool with indices " + what, scratch);
    if (dtype == DType::f32) must_run([&] { avg_pool(x.view(), y.view(), avg_a); }, "avg_pool " + what, values_scratch);
    // f32 MaxPool and AvgPool may take the rows-first or flat-plane kernels instead (on the AVX2
    // and AVX-512 paths, where the rules in schedules/pool_limits.h pick them), whose scratch is 8
    // rows of the plane or one flat plane: they may run.
    if (values_scratch && dtype != DType::f32) {
        // Refused whatever the type: a plane of 1-byte elements is already beyond the limit.
        bool refused = false;
        try {
            max_pool(x.view(), y.view(), max_a);
        } catch (const Error &) {
            refused = true;
        }
        if (!refused) fuzz::finding("max_pool " + what + ": ran with a padded plane beyond the scratch limit");
    }
}

void convolution(FuzzedDataProvider &in) {
    const Shape input = fuzz::pick_shape(in, 10);
    const std::size_t spatial = input.size() >= 2 ? input.size() - 2 : 0;
    ConvAttributes a;
    fuzz::pick_window(in, spatial, a);
    a.weights_layout = fuzz::pick_enum(in, WeightsLayout::grouped);
    a.group = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegral<int64_t>() : in.ConsumeIntegralInRange<int64_t>(1, 4);
    // Weights: [C_out, C_in / group, k...] or [G, C_out / G, C_in / G, k...], usually consistent.
    const int64_t channels = input.size() >= 2 ? input[1] : 1;
    const int64_t group = a.group >= 1 && a.group <= 4 ? a.group : 1;
    Shape weights;
    if (a.weights_layout == WeightsLayout::grouped) weights.push_back(group);
    const int64_t out_per_group = in.ConsumeIntegralInRange<int64_t>(1, 5);
    weights.push_back(a.weights_layout == WeightsLayout::grouped ? out_per_group : out_per_group * group);
    weights.push_back(channels / group > 0 ? channels / group : 1);
    for (std::size_t i = 0; i < spatial; i++) weights.push_back(in.ConsumeIntegralInRange<int64_t>(1, 5));
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) weights = fuzz::pick_shape(in, 6);  // anything
    ConvGeometry g;
    try {
        g = infer_conv_shape(input, weights, a);
    } catch (const Error &) {
        return;
    }
    const int64_t out_channels = a.weights_layout == WeightsLayout::grouped ? weights[0] * weights[1] : weights[0];
    check_geometry(input, g, out_channels, "convolution");
    const int64_t in_count = fuzz::small_count(input, kMaxRunElements);
    const int64_t out_count = fuzz::small_count(g.output_shape, kMaxRunElements);
    const int64_t w_count = fuzz::small_count(weights, kMaxRunElements);
    if (in_count < 0 || out_count < 0 || w_count < 0 || !small_work(g, Shape(weights.end() - spatial, weights.end())) ||
        !small_conv_copy(input, g, a, Shape(weights.end() - spatial, weights.end()))) {
        return;
    }
    Tensor x = Tensor::dense(DType::f32, input), w = Tensor::dense(DType::f32, weights);
    Tensor y = Tensor::dense(DType::f32, g.output_shape);
    fuzz::fill(in, x, 4, 0, false);
    fuzz::fill(in, w, 4, 0, false);
    PoolAttributes window;  // the window attributes, printed as pooling's are
    static_cast<WindowAttributes &>(window) = a;
    must_run([&] { poolconv::convolution(x.view(), w.view(), nullptr, y.view(), a); },
             "convolution, input " + shape_to_string(input) + ", weights " + shape_to_string(weights) + ", " +
                 test::describe(window) + ", group " + std::to_string(a.group));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    if (in.ConsumeBool()) {
        pooling(in);
    } else {
        convolution(in);
    }
    return 0;
}
