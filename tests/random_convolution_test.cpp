// Randomized comparison of the convolution kernels against the plain C++ reference: thousands of
// configurations (ranks 3-5, batch > 1, groups, depthwise, channel multipliers, output channel
// counts around the packing block of 16, odd and wide sizes, strides 1-4, dilations 1-3,
// asymmetric pads, every auto_pad, bias or none, every activation, both weights layouts, f32/f16/
// bf16/f64, dense and strided views; 1x1 stride-1 cases for the pointwise kernels), each instruction set
// forced in turn. The runtime picks the kernels (KernelChoice below checks its choice): depthwise
// cases run on the depthwise kernels (1-D depthwise kernels where the output is one row high),
// dense 1x1 stride-1 unpadded ones on the pointwise kernels, undilated 3x3(xk) cases with equal x
// and y strides and two or more output rows on the row-pair kernels, the others on the general
// ones (3x3 kernels with dilation 2 and stride 4 on their own fast paths there; f32 on AVX-512
// CPUs that halve their 512-bit FMAs, Zen 4, on the general plan's one-vector kernels).
//
// Tolerances:
//   - "dyadic" data (multiples of 1/4 in [-3, 3]): exact. Every product is a multiple of 1/16 below
//     9 and every sum stays far below 2^20, so the kernels' f32 sums are exact in any order, and
//     f16/bf16 outputs are one rounding of the exact value, as in the reference.
//   - uniform data (f32 and f64): |got - expected| <= 1e-5 * (taps per output) * max|x| * max|w|: each
//     f32 addition errs by at most 2^-24 of a partial sum bounded by that product; for f64 1e-14
//     (2^-53), which an f32 sum, or weights packed in f32, would miss by orders of magnitude.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "reference/reference_convolution.h"
#include "runtime/dispatch.h"
#include "tests/test_util.h"

namespace poolconv {
namespace {

using test::Rng;
using test::Tensor;
using Shape = std::vector<int64_t>;

using test::chance;
using test::uniform;

struct ConvCase {
    Shape input_shape, weights_shape, output_shape;
    ConvAttributes attributes;
    bool with_bias = true;
    int64_t in_per_group = 1;
};

// Which kernels the cases are drawn for: any; 1x1 kernels with stride 1 and no padding (the
// runtime's pointwise kernels), on planes up to 70 wide and up to 40 input channels per group; or
// 3x3(xk) kernels with no dilation and the same stride (1 or 2) along x and y (the row-pair
// kernels), not depthwise, on planes up to 24 (3-D: 9) per side and up to 16 input channels per
// group; or, on the same sizes, 3x3(xk) kernels with dilation 2 along x and y, mostly with stride
// 1 along x (the general kernels' constant-offset path for atrous layers); or any kernels on 2-D
// planes of 33-130 columns by 33-70 rows with up to 4 input channels per group (planes with so
// many x chunks that each parallel task takes several rows); or depthwise undilated 3x3(xk)
// kernels with equal x and y strides, mostly 1, on the row-pair draws' sizes (the depthwise
// kernels' constant-offset path); or depthwise convolutions with up to 33 taps (a third of them 3)
// on rows of up to 1500 columns, 1-D or, a quarter of them, 2-D on planes of up to 3 rows, often
// one output row high (the 1-D depthwise kernels; their rows span several tasks' chunks).
enum class Kernels { any, pointwise, row_pairs, dilated_3x3, large_planes, depthwise_3x3, depthwise_1d };

// The draws whose y and x kernel axes are 3 wide.
bool windows_3x3(Kernels kernels) {
    return kernels == Kernels::row_pairs || kernels == Kernels::dilated_3x3 || kernels == Kernels::depthwise_3x3;
}

ConvCase random_case(Rng &rng, int rank, Kernels kernels) {
    const bool pointwise = kernels == Kernels::pointwise, row_pairs = kernels == Kernels::row_pairs;
    const bool depthwise = kernels == Kernels::depthwise_3x3, undilated = row_pairs || depthwise;
    const bool depthwise_1d = kernels == Kernels::depthwise_1d;
    const bool windows = windows_3x3(kernels);
    const bool large = kernels == Kernels::large_planes;
    const int spatial = rank - 2;
    for (;;) {
        ConvCase c;
        ConvAttributes &a = c.attributes;
        // 0-1 depthwise, 2 channel multiplier, else any
        const int kind = depthwise || depthwise_1d ? 0 : uniform(rng, windows ? 2 : 0, 9);
        const int64_t groups = kind < 3 ? uniform(rng, 1, 9) : (chance(rng, 0.6) ? 1 : uniform(rng, 2, 3));
        const int64_t in_per_group =
            kind < 3 ? 1 : uniform(rng, 1, pointwise ? 40 : windows ? 16 : large ? 4 : 6);
        const int64_t out_per_group = kind < 2                           ? 1
                                      : kind == 2                        ? uniform(rng, 2, 3)
                                      : row_pairs && chance(rng, 1.0 / 3) ? uniform(rng, 17, 70)
                                                                         : uniform(rng, 1, 20);
        c.in_per_group = in_per_group;
        c.input_shape = {uniform(rng, 1, 2), groups * in_per_group};
        const bool wide = spatial < 3 && chance(rng, 0.25);
        for (int i = 0; i < spatial; i++) {
            const bool last = i == spatial - 1;
            c.input_shape.push_back(depthwise_1d     ? (!last ? uniform(rng, 1, 3)
                                                        : chance(rng, 0.2) ? uniform(rng, 200, 1500)
                                                                           : uniform(rng, 1, 200))
                                    : large          ? uniform(rng, 33, last ? 130 : 70)
                                    : wide && last     ? uniform(rng, 30, 90)
                                    : pointwise      ? uniform(rng, 1, spatial == 3 ? 12 : 70)
                                    : windows        ? uniform(rng, 2, spatial == 3 ? 9 : 24)
                                                     : uniform(rng, 1, spatial == 3 ? 6 : 12));
        }
        a.weights_layout = chance(rng, 0.2) ? WeightsLayout::grouped : WeightsLayout::onnx;
        if (a.weights_layout == WeightsLayout::grouped) {
            c.weights_shape = {groups, out_per_group, in_per_group};
        } else {
            c.weights_shape = {groups * out_per_group, in_per_group};
            a.group = groups;
        }
        const bool default_strides = chance(rng, 0.15);
        const bool default_dilations = kernels != Kernels::dilated_3x3 && chance(rng, 0.5);
        const int row_pair_stride = depthwise && chance(rng, 0.8) ? 1 : uniform(rng, 1, 2);
        for (int i = 0; i < spatial; i++) {
            const bool window_axis = windows && i >= spatial - 2;  // y and x
            const bool x_axis = i == spatial - 1;
            const int k = pointwise      ? 1
                          : window_axis  ? 3
                          : depthwise_1d ? (!x_axis ? uniform(rng, 1, 3) : chance(rng, 0.3) ? 3 : uniform(rng, 1, 33))
                                         : uniform(rng, 1, spatial == 3 ? 3 : 5);
            const int s = pointwise                ? 1
                          : undilated && window_axis ? row_pair_stride
                          : window_axis            ? (x_axis && chance(rng, 0.8) ? 1 : uniform(rng, 1, 2))
                          : chance(rng, 0.5)       ? 1
                                                   : uniform(rng, 2, 4);
            const int d = window_axis ? (undilated ? 1 : 2) : chance(rng, 0.7) ? 1 : uniform(rng, 2, 3);
            c.weights_shape.push_back(k);
            if (!default_strides) a.strides.push_back(s);
            if (!default_dilations) a.dilations.push_back(d);
            const int dk = (k - 1) * (default_dilations ? 1 : d) + 1;
            a.pads_begin.push_back(pointwise ? 0 : uniform(rng, 0, dk));
            a.pads_end.push_back(pointwise ? 0 : uniform(rng, 0, dk));
        }
        const int mode = uniform(rng, 0, 9);
        a.auto_pad = mode < 6 ? AutoPad::explicit_pads
                     : mode < 7 ? AutoPad::valid
                     : mode < 8 ? AutoPad::same_upper
                                : AutoPad::same_lower;
        a.activation = static_cast<Activation>(uniform(rng, 0, 3));
        a.clamp_min = static_cast<float>(uniform(rng, -8, 0)) / 2.0f;
        a.clamp_max = a.clamp_min + static_cast<float>(uniform(rng, 0, 8)) / 2.0f;
        c.with_bias = chance(rng, 0.8);
        try {
            c.output_shape = infer_conv_shape(c.input_shape, c.weights_shape, a).output_shape;
        } catch (const Error &) {
            continue;  // output < 1: draw again
        }
        return c;
    }
}

std::string describe(const ConvCase &c, DType dtype, bool dyadic) {
    const ConvAttributes &a = c.attributes;
    std::ostringstream s;
    s << "dtype " << dtype_name(dtype) << ", input " << shape_to_string(c.input_shape) << ", weights "
      << shape_to_string(c.weights_shape) << (a.weights_layout == WeightsLayout::grouped ? " (grouped layout)" : "")
      << ", group " << a.group << ", output " << shape_to_string(c.output_shape)
      << ", strides=" << test::list_to_string(a.strides) << " dilations=" << test::list_to_string(a.dilations)
      << " pads_begin=" << test::list_to_string(a.pads_begin) << " pads_end=" << test::list_to_string(a.pads_end)
      << " auto_pad=" << test::auto_pad_name(a.auto_pad) << " activation=" << static_cast<int>(a.activation)
      << " clamp=[" << a.clamp_min << ", " << a.clamp_max << "]" << (c.with_bias ? " bias" : " no bias")
      << (dyadic ? ", dyadic data" : ", uniform data") << ", isa " << isa_name(active_isa());
    return s.str();
}

using RandomConvolution = test::IsaTest;

void random_convolutions(uint64_t seed, int iterations, Kernels kernels = Kernels::any) {
    Rng rng(seed);
    test::FailureBudget budget;
    const DType types[] = {DType::f32, DType::f16, DType::bf16, DType::f64};
    for (int it = 0; it < iterations; it++) {
        const int rank = kernels == Kernels::large_planes   ? 4
                         : kernels == Kernels::depthwise_1d ? (chance(rng, 0.75) ? 3 : 4)
                                                            : uniform(rng, windows_3x3(kernels) ? 4 : 3, 5);
        const ConvCase c = random_case(rng, rank, kernels);
        const DType dtype = types[uniform(rng, 0, 3)];
        const bool dyadic = test::is_16_bit(dtype) || chance(rng, 0.8);
        test::FillOptions fill;
        fill.ties = dyadic;
        // Views with gaps between rows and planes now and then.
        auto make = [&](const Shape &shape) {
            if (!chance(rng, 0.15)) return Tensor::dense(dtype, shape);
            Shape extra(shape.size(), 0);
            for (std::size_t d = 0; d + 1 < shape.size(); d++) extra[d] = uniform(rng, 0, 2);
            return Tensor::padded(dtype, shape, extra);
        };
        Tensor input = make(c.input_shape), weights = make(c.weights_shape);
        Tensor bias = Tensor::dense(dtype, {c.output_shape[1]});
        test::fill_random(input, rng, fill);
        test::fill_random(weights, rng, fill);
        test::fill_random(bias, rng, fill);
        Tensor expected = Tensor::dense(dtype, c.output_shape), got = make(c.output_shape);
        const TensorView bias_view = bias.view();
        const TensorView *b = c.with_bias ? &bias_view : nullptr;
        reference::convolution(input.view(), weights.view(), b, expected.view(), c.attributes);

        test::CompareOptions tolerance;
        if (!dyadic) {
            double taps = static_cast<double>(c.in_per_group);
            for (std::size_t i = 2; i < c.weights_shape.size(); i++) taps *= static_cast<double>(c.weights_shape[i]);
            // Uniform data lies in [-100, 100].
            tolerance.abs_tol = (dtype == DType::f64 ? 1e-14 : 1e-5) * (taps + 1) * 100.0 * 100.0;
        }
        const std::string where = "iteration " + std::to_string(it) + ": " + describe(c, dtype, dyadic);
        try {
            convolution(input.view(), weights.view(), b, got.view(), c.attributes);
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            continue;
        }
        budget.check(test::tensors_match(got.dense_copy(), expected, tolerance), where);
    }
}

TEST_P(RandomConvolution, AgainstReference) { random_convolutions(3001, 1500); }

// 1x1, stride 1, no padding: dense tensors take the pointwise kernels (planes merged into one
// row), strided views the general ones.
TEST_P(RandomConvolution, Pointwise) { random_convolutions(3003, 400, Kernels::pointwise); }

// Undilated 3x3 and 3x3xk kernels with equal x and y strides: those with two or more output rows
// take the row-pair kernels (tiles two rows high), the rest the general ones; on AVX-512, f32 3x3
// ones at stride 1 where rounding the output channels up to 32 wastes less than rounding rows up
// to 16 columns the channel-vector kernels (tiles of output-channel vectors: a third of these
// draws have 17-70 output channels per group).
TEST_P(RandomConvolution, RowPairs) { random_convolutions(3004, 400, Kernels::row_pairs); }

// 3x3 and 3x3xk kernels with dilation 2 along x and y (atrous layers): with stride 1 along x and a
// 3x3 kernel they take the general kernels' constant-offset path, the rest the general paths.
TEST_P(RandomConvolution, Dilated3x3) { random_convolutions(3005, 300, Kernels::dilated_3x3); }

// Planes of 33-130 columns by 33-70 rows: tasks of several rows (the tile loops of one task then
// cross rows, and the last task's rows are guarded).
TEST_P(RandomConvolution, LargePlanes) { random_convolutions(3006, 60, Kernels::large_planes); }

// Makes cpu_halves_512_bit_fmas answer `halved` while it lives (runtime/dispatch.h).
class HalvedFmas {
public:
    explicit HalvedFmas(bool halved) { detail::override_halved_512_bit_fmas(halved); }
    ~HalvedFmas() { detail::override_halved_512_bit_fmas(std::nullopt); }
    HalvedFmas(const HalvedFmas &) = delete;
    HalvedFmas &operator=(const HalvedFmas &) = delete;
};

// The general plan's two tiles on the AVX-512 path: the one-vector kernels (f32), which the runtime
// takes on CPUs that halve their 512-bit FMAs (Zen 4; schedules/conv_plan.h), and the two-vector
// ones elsewhere. Each answer forced in turn, so that both kernels run on any AVX-512 host.
TEST_P(RandomConvolution, EitherFmaWidth) {
    if (GetParam() != Isa::avx512) GTEST_SKIP() << "the one-vector kernels are built for AVX-512 only";
    for (bool halved : {true, false}) {
        const HalvedFmas forced(halved);
        random_convolutions(halved ? 3021 : 3022, 300);
        random_convolutions(halved ? 3023 : 3024, 30, Kernels::large_planes);
    }
}

// Depthwise undilated 3x3 and 3x3xk kernels with equal x and y strides: at stride 1 and with a 3x3
// kernel they take the depthwise kernels' constant-offset path, the rest their general paths.
TEST_P(RandomConvolution, Depthwise3x3) { random_convolutions(3008, 300, Kernels::depthwise_3x3); }

// 1-D depthwise convolutions (Conformer-style modules, short causal convolutions) and 2-D ones
// with one output row: the CPU's 1-D depthwise kernels, which tile one row.
TEST_P(RandomConvolution, Depthwise1d) { random_convolutions(3009, 300, Kernels::depthwise_1d); }

// KernelChoice's table with cpu_halves_512_bit_fmas answering `halved`.
void kernel_choice(Isa isa, bool halved) {
    const HalvedFmas forced(halved);
    const bool gpu = test::is_gpu(isa);
    const std::string general = halved && isa == Isa::avx512 ? "conv_f32_one_vector" : "conv_f32";
    const std::string row_pairs = gpu ? general : "conv_f32_row_pairs";
    const std::string pointwise = gpu ? general : "conv_f32_pointwise", depthwise = "conv_f32_depthwise";
    const std::string depthwise_1d = gpu ? depthwise : "conv_f32_depthwise_1d";
    const std::string wide_window = gpu ? "conv_f32_wide_window" : general;
    const std::string channel_vectors = isa == Isa::avx512 ? "conv_f32_channel_vectors" : row_pairs;
    struct Choice {
        const char *what;
        Shape input, weights;
        std::vector<int64_t> strides, dilations;
        int64_t pads, group;
        std::string kernel;
        bool strided_views = false;  // rows padded: the planes are not dense
    };
    const Choice choices[] = {
        {"3x3 stride 1", {1, 8, 9, 10}, {8, 8, 3, 3}, {}, {}, 1, 1, row_pairs},
        {"3x3 stride 1, 32 output channels", {1, 8, 9, 10}, {32, 8, 3, 3}, {}, {}, 1, 1, channel_vectors},
        {"3x3 stride 1, 32 columns, 32 output channels", {1, 8, 9, 32}, {32, 8, 3, 3}, {}, {}, 1, 1, row_pairs},
        {"3x3 stride 1, 14 columns, 60 output channels", {1, 8, 5, 14}, {60, 8, 3, 3}, {}, {}, 1, 1, channel_vectors},
        {"3x3 stride 1 unpadded, 32 output channels", {1, 8, 9, 10}, {32, 8, 3, 3}, {}, {}, 0, 1, channel_vectors},
        // Rows wider than 8 tiles of 14 columns: a channel-vector task copies whole rows.
        {"3x3 stride 1, 150 columns, 32 output channels", {1, 4, 6, 150}, {32, 4, 3, 3}, {}, {}, 1, 1, channel_vectors},
        {"3x3 stride 2", {2, 4, 9, 10}, {8, 4, 3, 3}, {2, 2}, {}, 1, 1, row_pairs},
        {"3x3x3 stride 1", {1, 4, 5, 6, 7}, {4, 4, 3, 3, 3}, {}, {}, 1, 1, row_pairs},
        {"3x3 grouped, strided views", {1, 8, 9, 10}, {8, 4, 3, 3}, {}, {}, 1, 2, row_pairs, true},
        {"3x3 grouped, 32 channels a group, strided views", {1, 8, 9, 10}, {64, 4, 3, 3}, {}, {}, 1, 2, channel_vectors, true},
        {"3x3 strides 1 and 2", {1, 8, 9, 10}, {8, 8, 3, 3}, {1, 2}, {}, 1, 1, general},
        {"3x3 stride 3", {1, 8, 9, 10}, {8, 8, 3, 3}, {3, 3}, {}, 1, 1, general},
        {"4x4 stride 4 (patchify)", {1, 3, 16, 84}, {8, 3, 4, 4}, {4, 4}, {}, 0, 1, general},
        {"3x3 dilation 2", {1, 8, 9, 10}, {8, 8, 3, 3}, {}, {2, 2}, 2, 1, general},
        {"3x3, one output row", {1, 8, 3, 10}, {8, 8, 3, 3}, {}, {}, 0, 1, general},
        {"3x1", {1, 8, 9, 10}, {8, 8, 3, 1}, {}, {}, 1, 1, general},
        {"5x5", {1, 8, 9, 10}, {8, 8, 5, 5}, {}, {}, 2, 1, general},
        {"1-D, 3 taps", {1, 8, 30}, {8, 8, 3}, {}, {}, 1, 1, general},
        {"1x1", {2, 8, 9, 10}, {16, 8, 1, 1}, {}, {}, 0, 1, pointwise},
        {"1x1 grouped", {1, 8, 9, 10}, {8, 2, 1, 1}, {}, {}, 0, 4, pointwise},
        {"1x1, strided views", {1, 8, 9, 10}, {16, 8, 1, 1}, {}, {}, 0, 1, general, true},
        {"1x1 stride 2", {1, 8, 9, 10}, {16, 8, 1, 1}, {2, 2}, {}, 0, 1, general},
        {"1x1 padded", {1, 8, 9, 10}, {16, 8, 1, 1}, {}, {}, 1, 1, general},
        {"3x3 depthwise", {1, 8, 9, 10}, {8, 1, 3, 3}, {}, {}, 1, 8, depthwise},
        {"1x1 depthwise", {1, 8, 9, 10}, {8, 1, 1, 1}, {}, {}, 0, 8, depthwise},
        {"1-D depthwise", {1, 8, 40}, {8, 1, 5}, {}, {}, 2, 8, depthwise_1d},
        {"3x3 depthwise, one output row", {1, 8, 3, 10}, {8, 1, 3, 3}, {}, {}, 0, 8, depthwise_1d},
        {"1-D, channel multiplier 2", {1, 4, 40}, {8, 1, 5}, {}, {}, 2, 4, general},
        // Windows too wide to stage in a GPU block's shared memory (schedules/conv_plan.h).
        {"3x3x3 stride 2, dilation 2", {1, 4, 12, 14, 16}, {8, 4, 3, 3, 3}, {2, 2, 2}, {2, 2, 2}, 2, 1, wide_window},
        {"11x11 stride 4", {1, 3, 40, 60}, {8, 3, 11, 11}, {4, 4}, {}, 2, 1, wide_window},
        {"3x3 depthwise, dilation 64", {1, 4, 130, 140}, {4, 1, 3, 3}, {}, {64, 64}, 64, 4, gpu ? wide_window : depthwise},
    };
    Rng rng(3007);
    for (const Choice &choice : choices) {
        ConvAttributes a;
        a.strides = choice.strides;
        a.dilations = choice.dilations;
        a.pads_begin.assign(choice.input.size() - 2, choice.pads);
        a.pads_end = a.pads_begin;
        a.group = choice.group;
        Tensor weights = Tensor::dense(DType::f32, choice.weights);
        test::fill_random(weights, rng, {});
        const PreparedConvolution conv(weights.view(), nullptr, a);
        const Shape out_shape = conv.infer_shape(choice.input).output_shape;
        const Shape gaps(choice.input.size(), choice.strided_views ? 1 : 0);
        Tensor input = Tensor::padded(DType::f32, choice.input, gaps), got = Tensor::padded(DType::f32, out_shape, gaps);
        test::fill_random(input, rng, {});
        EXPECT_EQ(conv.kernel_name(input.view(), got.view()), choice.kernel) << choice.what << (halved ? ", halved FMAs" : "");
        // And the kernel it names computes the convolution.
        Tensor expected = Tensor::dense(DType::f32, out_shape);
        reference::convolution(input.view(), weights.view(), nullptr, expected.view(), a);
        conv.run(input.view(), got.view());
        EXPECT_TRUE(test::tensors_match(got.dense_copy(), expected)) << choice.what;
    }
}

// Which kernel the runtime picks (runtime/convolution.cpp; README, "CPU convolution kernels"): the
// general and row-pair kernels compute any convolution, and both depthwise kernels any depthwise
// one, so a wrong choice among them would only be slow and pass every other test. The CPU takes row pairs for undilated 3x3(xk) kernels with
// equal x and y strides (1 or 2) and two or more output rows, pointwise kernels for dense 1x1
// stride-1 unpadded convolutions, and 1-D depthwise kernels for depthwise convolutions one output
// row high; on AVX-512, channel vectors for 2-D undilated 3x3 stride-1 ones where rounding the
// channels up to 32 wastes less than rounding rows up to 16 columns; GPUs have none of these, but take their wide_window kernels where the
// input window would not fit a block's shared memory. On AVX-512 CPUs that halve their 512-bit
// FMAs (forced both ways here) the general plan's calls take its one-vector kernels.
TEST_P(RandomConvolution, KernelChoice) {
    for (bool halved : {false, true}) kernel_choice(GetParam(), halved);
}

// Types GPUs have no kernels for (bf16) run on the CPU whatever the active path, and there take the
// CPU's kernel choice: row pairs, pointwise.
TEST_P(RandomConvolution, KernelChoiceWithoutGpuKernels) {
    Rng rng(3010);
    struct Choice {
        Shape input, weights;
        std::string kernel;
    };
    for (const Choice &choice : {Choice{{1, 8, 9, 10}, {8, 8, 3, 3}, "conv_bf16_row_pairs"},
                                 Choice{{1, 8, 9, 10}, {16, 8, 1, 1}, "conv_bf16_pointwise"}}) {
        ConvAttributes a;
        Tensor weights = Tensor::dense(DType::bf16, choice.weights);
        test::fill_random(weights, rng, {});
        const PreparedConvolution conv(weights.view(), nullptr, a);
        const Shape out_shape = conv.infer_shape(choice.input).output_shape;
        Tensor input = Tensor::dense(DType::bf16, choice.input), got = Tensor::dense(DType::bf16, out_shape);
        Tensor expected = Tensor::dense(DType::bf16, out_shape);
        test::fill_random(input, rng, {});
        EXPECT_EQ(conv.kernel_name(input.view(), got.view()), choice.kernel);
        reference::convolution(input.view(), weights.view(), nullptr, expected.view(), a);
        conv.run(input.view(), got.view());
        EXPECT_TRUE(test::tensors_match(got, expected)) << choice.kernel;
    }
}

// A prepared convolution runs many times, on inputs of different spatial sizes and batch (its
// 3x3 kernel takes the row-pair kernels, but the general ones where the output is one row high).
TEST_P(RandomConvolution, PreparedRunsRepeatedly) {
    Rng rng(3002);
    Tensor weights = Tensor::dense(DType::f32, {24, 8, 3, 3}), bias = Tensor::dense(DType::f32, {24});
    test::fill_random(weights, rng, {});
    test::fill_random(bias, rng, {});
    ConvAttributes a;
    a.group = 2;
    a.pads_begin = {1, 0};
    a.pads_end = {1, 2};
    a.activation = Activation::relu;
    const TensorView bias_view = bias.view();
    const PreparedConvolution conv(weights.view(), &bias_view, a);
    for (const Shape &shape : {Shape{1, 16, 9, 40}, Shape{3, 16, 20, 5}, Shape{1, 16, 1, 40}, Shape{1, 16, 9, 40}}) {
        Tensor input = Tensor::dense(DType::f32, shape);
        test::fill_random(input, rng, {});
        const Shape out_shape = conv.infer_shape(shape).output_shape;
        Tensor expected = Tensor::dense(DType::f32, out_shape), got = Tensor::dense(DType::f32, out_shape);
        reference::convolution(input.view(), weights.view(), &bias_view, expected.view(), a);
        conv.run(input.view(), got.view());
        EXPECT_TRUE(test::tensors_match(got, expected)) << "input " << shape_to_string(shape);
    }
}

// An axis of one output takes any stride (a 4-tap window over 10 columns with stride 1181952:
// found by fuzz_shape, where the per-task input copy, laid out by stride phase, asked Halide for
// 2.2 GB of scratch); the kernels get stride 1 there, which computes the same window.
TEST_P(RandomConvolution, OneOutputAnyStride) {
    Rng rng(3011);
    ConvAttributes a;
    a.strides = {1181952};
    a.pads_begin = {3};
    a.pads_end = {3};
    Tensor x = Tensor::dense(DType::f32, {2, 10, 10}), w = Tensor::dense(DType::f32, {4, 10, 4});
    test::fill_random(x, rng, {});
    test::fill_random(w, rng, {});
    const Shape out_shape = infer_conv_shape(x.shape(), w.shape(), a).output_shape;
    ASSERT_EQ(out_shape, (Shape{2, 4, 1}));
    Tensor got = Tensor::dense(DType::f32, out_shape), expected = Tensor::dense(DType::f32, out_shape);
    reference::convolution(x.view(), w.view(), nullptr, expected.view(), a);
    ASSERT_NO_THROW(convolution(x.view(), w.view(), nullptr, got.view(), a));
    EXPECT_TRUE(test::tensors_match(got, expected));
}

// A 1x1 kernel with stride 3 along a row of 3 (one output there): not a pointwise convolution
// (whose kernels take an input as wide as the output), though the kernels get stride 1 on that
// axis (found by fuzz_conv: f64, 4 groups, on the pointwise kernels, 4 wrong values).
TEST_P(RandomConvolution, OneOutputStrideIsNotPointwise) {
    Rng rng(3012);
    ConvAttributes a;
    a.group = 4;
    a.strides = {1, 3};
    a.dilations = {1, 2};
    a.auto_pad = AutoPad::valid;
    for (DType dtype : {DType::f32, DType::f64}) {
        Tensor x = Tensor::dense(dtype, {2, 4, 9, 3}), w = Tensor::dense(dtype, {8, 1, 1, 1});
        test::fill_random(x, rng, {});
        test::fill_random(w, rng, {});
        const PreparedConvolution conv(w.view(), nullptr, a);
        const Shape out_shape = conv.infer_shape(x.shape()).output_shape;
        ASSERT_EQ(out_shape, (Shape{2, 8, 9, 1}));
        Tensor got = Tensor::dense(dtype, out_shape), expected = Tensor::dense(dtype, out_shape);
        EXPECT_EQ(conv.kernel_name(x.view(), got.view()).find("pointwise"), std::string::npos);
        reference::convolution(x.view(), w.view(), nullptr, expected.view(), a);
        conv.run(x.view(), got.view());
        EXPECT_TRUE(test::tensors_match(got, expected)) << dtype_name(dtype);
    }
}

// The channel-vector kernels (AVX-512) split the output channels into as many parallel chunks as
// the pool's thread count asks for, read when the kernel runs (schedules/convolution_schedule.cpp):
// every split computes the same values. 5 rows make 2 row tasks (2 chunks of the 3 channel tiles at
// 1 thread, 3 from 2 threads on), two 14-row images 8 (1 chunk up to 3 threads, 2 from 4 on).
TEST_P(RandomConvolution, AnyThreadCount) {
    Rng rng(3013);
    const int threads_before = num_threads();
    ConvAttributes a;
    a.pads_begin = {1, 1};
    a.pads_end = {1, 1};
    Tensor weights = Tensor::dense(DType::f32, {96, 8, 3, 3});
    test::fill_random(weights, rng, {});
    const PreparedConvolution conv(weights.view(), nullptr, a);
    for (const Shape &shape : {Shape{1, 8, 5, 14}, Shape{2, 8, 14, 14}}) {
        Tensor input = Tensor::dense(DType::f32, shape);
        test::fill_random(input, rng, {});
        const Shape out_shape = conv.infer_shape(shape).output_shape;
        Tensor expected = Tensor::dense(DType::f32, out_shape);
        reference::convolution(input.view(), weights.view(), nullptr, expected.view(), a);
        for (int threads : {1, 2, 3, 7, 16}) {
            set_num_threads(threads);
            Tensor got = Tensor::dense(DType::f32, out_shape);
            if (GetParam() == Isa::avx512) {
                EXPECT_EQ(conv.kernel_name(input.view(), got.view()), "conv_f32_channel_vectors");
            }
            conv.run(input.view(), got.view());
            EXPECT_TRUE(test::tensors_match(got, expected)) << threads << " threads, input " << shape_to_string(shape);
        }
    }
    set_num_threads(threads_before);
}

// The fused activation clamps to [lo, hi] and keeps a NaN sum NaN, infinities clamped like any
// value, on the pointwise, general and depthwise kernels. Each output is one input value times a
// weight of 1 (the other input channel holds 3, weighted 0), so every sum is exactly that value,
// NaN and infinities included. The random tests' data has no NaN or infinity.
TEST_P(RandomConvolution, ActivationKeepsNaN) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> values = {nan, -inf, inf, -7.0f, -1.0f, -0.0f, 0.0f, 0.25f, 1.5f, 5.5f, 6.5f, 100.0f, -nan};
    const int64_t width = static_cast<int64_t>(values.size()), rows = 2;
    struct Layer {
        const char *what;
        int64_t channels, group, stride;  // as many output channels as input ones
        const char *cpu_kernel;           // what the CPU paths' kernel name ends with ("" for any)
    };
    const bool gpu = test::is_gpu(GetParam());
    for (const Layer &layer : {Layer{"1x1", 2, 1, 1, "_pointwise"}, Layer{"1x1 stride 2", 2, 1, 2, ""},
                               Layer{"depthwise 1x1", 4, 4, 1, "_depthwise"}}) {
        const bool depthwise = layer.group > 1;
        const int64_t in_width = width * layer.stride;
        Tensor x = Tensor::dense(DType::f32, {1, layer.channels, rows, in_width});
        auto *xs = static_cast<float *>(x.data());
        for (int64_t i = 0; i < x.element_count(); i++) {
            const int64_t column = i % in_width, row = i / in_width, channel = row / rows;
            // The values, rotated by one per row, at the columns the stride samples, in the channel
            // the outputs read; elsewhere a number no output's sum counts.
            const bool read = column % layer.stride == 0 && (depthwise || channel == 0);
            xs[i] = read ? values[static_cast<size_t>((column / layer.stride + row) % width)] : 3.0f;
        }
        Tensor w = Tensor::dense(DType::f32, {layer.channels, layer.channels / layer.group, 1, 1});
        auto *ws = static_cast<float *>(w.data());
        for (int64_t i = 0; i < w.element_count(); i++) ws[i] = (depthwise || i % layer.channels == 0) ? 1.0f : 0.0f;
        for (const Activation activation : {Activation::none, Activation::relu, Activation::relu6, Activation::clamp}) {
            ConvAttributes a;
            a.group = layer.group;
            a.strides = {1, layer.stride};
            a.activation = activation;
            a.clamp_min = -0.5f;
            a.clamp_max = 2.0f;
            float lo = -inf, hi = inf;
            if (activation == Activation::relu) lo = 0.0f;
            if (activation == Activation::relu6) lo = 0.0f, hi = 6.0f;
            if (activation == Activation::clamp) lo = a.clamp_min, hi = a.clamp_max;
            const PreparedConvolution conv(w.view(), nullptr, a);
            Tensor got = Tensor::dense(DType::f32, {1, layer.channels, rows, width});
            const std::string kernel = conv.kernel_name(x.view(), got.view());
            const std::string where = std::string(layer.what) + ", activation " + std::to_string(static_cast<int>(activation)) +
                                      ", kernel " + kernel;
            const std::string suffix = layer.cpu_kernel;
            if (!gpu) {  // the kernels this test is about (the GPUs' 1x1 may take their general kernel)
                EXPECT_TRUE(kernel.size() >= suffix.size() && kernel.compare(kernel.size() - suffix.size(), suffix.size(), suffix) == 0)
                    << where;
            }
            conv.run(x.view(), got.view());
            const auto *ys = static_cast<const float *>(got.data());
            for (int64_t i = 0; i < got.element_count(); i++) {
                const int64_t column = i % width, row = i / width % rows, channel = i / (width * rows);
                const float v = xs[((depthwise ? channel : 0) * rows + row) * in_width + column * layer.stride];
                const float want = v < lo ? lo : v > hi ? hi : v;  // a NaN stays
                if (std::isnan(want)) {
                    EXPECT_TRUE(std::isnan(ys[i])) << where << ": input " << v << " gave " << ys[i];
                } else {
                    EXPECT_EQ(ys[i], want) << where << ": input " << v;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, RandomConvolution, ::testing::ValuesIn(test::all_isas()), test::isa_param_name);

}  // namespace
}  // namespace poolconv
