// The rule that picks a convolution plan (schedules/conv_plan.h), case by case: the facts of a
// call, which plans have kernels on its path, and the plan it must get. KernelChoice in
// random_convolution_test.cpp checks the same through real calls (PreparedConvolution::kernel_name).
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "schedules/conv_plan.h"

namespace poolconv {
namespace {

struct Row {
    const char *what;
    ConvCallFacts facts;
    ConvPlan cpu, gpu;  // the plan where every plan is built, and where only general and depthwise are
};

// 2-D facts: kernel, stride and dilation along x and y, output rows (and as many columns; 64 output
// channels), depthwise, 1x1 and dense.
ConvCallFacts facts2d(int64_t kx, int64_t ky, int64_t sx, int64_t sy, int64_t dx, int64_t dy, int64_t rows,
                      bool depthwise = false, bool one_to_one = false, bool dense = true) {
    ConvCallFacts f;
    f.spatial = 2;
    f.kernel[0] = kx, f.kernel[1] = ky, f.stride[0] = sx, f.stride[1] = sy, f.dilation[0] = dx, f.dilation[1] = dy;
    f.output_rows = rows;
    f.output_columns = rows;
    f.output_channels = 64;
    f.depthwise = depthwise;
    f.one_to_one = one_to_one;
    f.planes_dense = dense;
    return f;
}

ConvCallFacts with_channels(ConvCallFacts f, int64_t output_channels) {
    f.output_channels = output_channels;
    return f;
}

ConvCallFacts facts1d(int64_t k, bool depthwise) {
    ConvCallFacts f;
    f.spatial = 1;
    f.kernel[0] = k;
    f.depthwise = depthwise;
    return f;
}

// 3-D facts, axes in Halide order (x, y, z): kernel, stride and dilation.
ConvCallFacts facts3d(std::initializer_list<int64_t> k, std::initializer_list<int64_t> s,
                      std::initializer_list<int64_t> d, int64_t rows) {
    ConvCallFacts f;
    f.spatial = 3;
    for (int a = 0; a < 3; a++) {
        f.kernel[a] = k.begin()[a], f.stride[a] = s.begin()[a], f.dilation[a] = d.begin()[a];
    }
    f.output_rows = rows;
    return f;
}

// Which plans have kernels: on the AVX-512 path (every CPU plan), on AVX2 and the other CPU paths
// (no channel-vector or one-vector kernels), on GPUs (general, depthwise, wide_window).
bool built_avx512(ConvPlan p) { return p != ConvPlan::wide_window; }
bool built_avx2(ConvPlan p) {
    return p != ConvPlan::wide_window && p != ConvPlan::channel_vectors && p != ConvPlan::one_vector;
}
bool built_gpu(ConvPlan p) { return p == ConvPlan::general || p == ConvPlan::depthwise || p == ConvPlan::wide_window; }

TEST(ConvPlan, ChoiceTable) {
    using P = ConvPlan;
    const Row rows[] = {
        {"3x3 stride 1", facts2d(3, 3, 1, 1, 1, 1, 56), P::channel_vectors, P::general},
        {"3x3 stride 1, 112 columns", facts2d(3, 3, 1, 1, 1, 1, 112), P::row_pairs, P::general},
        {"3x3 stride 1, 7 columns", facts2d(3, 3, 1, 1, 1, 1, 7), P::channel_vectors, P::general},
        // Channel vectors round channels up to 32, row pairs columns to 16: the one that wastes less.
        {"3x3 stride 1, 8 channels", with_channels(facts2d(3, 3, 1, 1, 1, 1, 56), 8), P::row_pairs, P::general},
        {"3x3 stride 1, 48 channels", with_channels(facts2d(3, 3, 1, 1, 1, 1, 56), 48), P::row_pairs, P::general},
        {"3x3 stride 1, 96 channels", with_channels(facts2d(3, 3, 1, 1, 1, 1, 56), 96), P::channel_vectors,
         P::general},
        {"3x3 stride 2", facts2d(3, 3, 2, 2, 1, 1, 28), P::row_pairs, P::general},
        {"3x3 strides 1 and 2", facts2d(3, 3, 1, 2, 1, 1, 28), P::general, P::general},
        {"3x3 stride 3", facts2d(3, 3, 3, 3, 1, 1, 10), P::general, P::general},
        {"3x3 dilation 2", facts2d(3, 3, 1, 1, 2, 2, 32), P::general, P::general},
        {"3x3, one output row", facts2d(3, 3, 1, 1, 1, 1, 1), P::general, P::general},
        {"3x1", facts2d(1, 3, 1, 1, 1, 1, 9), P::general, P::general},
        {"7x7 stride 2", facts2d(7, 7, 2, 2, 1, 1, 112), P::general, P::general},
        {"1x1 dense", facts2d(1, 1, 1, 1, 1, 1, 56, false, true, true), P::pointwise, P::general},
        {"1x1, rows not dense", facts2d(1, 1, 1, 1, 1, 1, 56, false, true, false), P::general, P::general},
        {"1x1 stride 2", facts2d(1, 1, 2, 2, 1, 1, 28), P::general, P::general},
        {"3x3 depthwise", facts2d(3, 3, 1, 1, 1, 1, 56, true), P::depthwise, P::depthwise},
        {"1x1 depthwise", facts2d(1, 1, 1, 1, 1, 1, 56, true, true, true), P::depthwise, P::depthwise},
        {"3x3 depthwise, one output row", facts2d(3, 3, 1, 1, 1, 1, 1, true), P::depthwise_1d, P::depthwise},
        {"1-D depthwise", facts1d(31, true), P::depthwise_1d, P::depthwise},
        {"1-D, 3 taps", facts1d(3, false), P::general, P::general},
        {"3x3x3 stride 1", facts3d({3, 3, 3}, {1, 1, 1}, {1, 1, 1}, 14), P::row_pairs, P::general},
        {"3x3x3 stride 2", facts3d({3, 3, 3}, {2, 2, 2}, {1, 1, 1}, 14), P::row_pairs, P::general},
        {"3x3x3 stride 2, dilation 2", facts3d({3, 3, 3}, {2, 2, 2}, {2, 2, 2}, 14), P::general, P::wide_window},
        {"11x11 stride 4 (AlexNet)", facts2d(11, 11, 4, 4, 1, 1, 55), P::general, P::wide_window},
        // Calls whose launch failed on an H100 (CUDA_ERROR_INVALID_VALUE: shared memory) before
        // the wide_window plan, from random_convolution_test.
        {"3x3x2, strides 4, 3, 1, z dilation 3", facts3d({3, 3, 2}, {4, 3, 1}, {1, 1, 3}, 1), P::general,
         P::wide_window},
        {"3x2x3, strides 4, 2, 2, x dilation 3", facts3d({3, 2, 3}, {4, 2, 2}, {3, 1, 1}, 2), P::general,
         P::wide_window},
        {"2x3x3, strides 3, 3, 2, z dilation 3", facts3d({2, 3, 3}, {3, 3, 2}, {1, 1, 3}, 2), P::general,
         P::wide_window},
        {"2x2x3, strides 4, 4, 1", facts3d({2, 2, 3}, {4, 4, 1}, {1, 1, 1}, 2), P::general, P::wide_window},
        // Extents far beyond any shared memory do not overflow the bound.
        {"stride 2^30", facts3d({3, 3, 3}, {1 << 30, 1 << 30, 1 << 30}, {1 << 30, 1 << 30, 1 << 30}, 1), P::general,
         P::wide_window},
        // Depthwise kernels stage one channel: 26 KiB here, which fits; at dilation 64, 83 KiB.
        {"3x3 depthwise, dilation 32", facts2d(3, 3, 1, 1, 32, 32, 56, true), P::depthwise, P::depthwise},
        {"3x3 depthwise, dilation 64", facts2d(3, 3, 1, 1, 64, 64, 56, true), P::depthwise, P::wide_window},
    };
    for (const Row &r : rows) {
        SCOPED_TRACE(r.what);
        EXPECT_EQ(choose_conv_plan(r.facts, built_avx512), r.cpu);
        EXPECT_EQ(choose_conv_plan(r.facts, built_gpu), r.gpu);
    }
}

// On a CPU that halves its 512-bit FMAs (Zen 4), the calls the general plan takes go to its
// one-vector tiles where that kernel is built (the AVX-512 path), and only those: every other plan
// still takes its calls; without the kernel (other paths, GPUs) they stay general.
TEST(ConvPlan, HalvedFmasTakeOneVectorTiles) {
    using P = ConvPlan;
    const Row rows[] = {
        {"7x7 stride 2", facts2d(7, 7, 2, 2, 1, 1, 112), P::one_vector, P::general},
        {"3x3 dilation 2", facts2d(3, 3, 1, 1, 2, 2, 32), P::one_vector, P::general},
        {"1-D, 3 taps", facts1d(3, false), P::one_vector, P::general},
        {"11x11 stride 4", facts2d(11, 11, 4, 4, 1, 1, 55), P::one_vector, P::wide_window},
        {"3x3 stride 1", facts2d(3, 3, 1, 1, 1, 1, 56), P::channel_vectors, P::general},
        {"3x3 stride 2", facts2d(3, 3, 2, 2, 1, 1, 28), P::row_pairs, P::general},
        {"1x1 dense", facts2d(1, 1, 1, 1, 1, 1, 56, false, true, true), P::pointwise, P::general},
        {"3x3 depthwise", facts2d(3, 3, 1, 1, 1, 1, 56, true), P::depthwise, P::depthwise},
        {"1-D depthwise", facts1d(31, true), P::depthwise_1d, P::depthwise},
    };
    for (Row r : rows) {
        SCOPED_TRACE(r.what);
        // Without channel-vector and one-vector kernels (AVX2), what those calls take instead.
        const P avx2 = r.cpu == P::one_vector ? P::general : r.cpu == P::channel_vectors ? P::row_pairs : r.cpu;
        EXPECT_EQ(choose_conv_plan(r.facts, built_avx512), r.cpu == P::one_vector ? P::general : r.cpu);
        r.facts.halved_512_bit_fmas = true;
        EXPECT_EQ(choose_conv_plan(r.facts, built_avx512), r.cpu);
        EXPECT_EQ(choose_conv_plan(r.facts, built_gpu), r.gpu);
        EXPECT_EQ(choose_conv_plan(r.facts, built_avx2), avx2);
    }
}

// The staged window's bound against the shared memory the launch gets (kGpuSharedMemoryBytes):
// the bench's layers and common ones stage; their bound in bytes, as Halide sizes them at most.
TEST(ConvPlan, StagedWindowBytes) {
    EXPECT_EQ(gpu_staged_window_bytes(facts2d(3, 3, 1, 1, 1, 1, 56)), 4 * 4 * 35 * 6);
    EXPECT_EQ(gpu_staged_window_bytes(facts2d(7, 7, 2, 2, 1, 1, 112)), 4 * 4 * 72 * 13);
    EXPECT_EQ(gpu_staged_window_bytes(facts3d({3, 3, 3}, {1, 1, 1}, {1, 1, 1}, 56)), 4 * 4 * 35 * 6 * 3);
    EXPECT_EQ(gpu_staged_window_bytes(facts2d(3, 3, 1, 1, 2, 2, 32)), 4 * 4 * 37 * 8);
    EXPECT_EQ(gpu_staged_window_bytes(facts2d(4, 4, 4, 4, 1, 1, 56)), 4 * 4 * 135 * 16);
    EXPECT_EQ(gpu_staged_window_bytes(facts1d(31, true)), 4 * 63 * 4);  // 1 channel; 4 rows: an upper bound
    EXPECT_EQ(gpu_staged_window_bytes(facts1d(31, false)), 4 * 4 * 63 * 4);
    EXPECT_GT(gpu_staged_window_bytes(facts3d({3, 3, 3}, {1 << 30, 1 << 30, 1 << 30}, {1, 1, 1}, 1)),
              kGpuSharedMemoryBytes);
}

TEST(ConvPlan, KernelSuffixes) {
    EXPECT_EQ(conv_plan_suffix(ConvPlan::general), "");
    for (ConvPlan p : {ConvPlan::row_pairs, ConvPlan::depthwise, ConvPlan::depthwise_1d, ConvPlan::pointwise,
                       ConvPlan::channel_vectors, ConvPlan::one_vector, ConvPlan::wide_window}) {
        for (const ConvPlanName &n : kConvPlanNames) {
            if (n.plan == p) {
                EXPECT_EQ(conv_plan_suffix(p), std::string("_") + n.name);
            }
        }
    }
}

// The task shapes each plan takes (the convolution generator's `task`; tests/CMakeLists.txt checks
// that the generator refuses the others with this message).
TEST(ConvPlan, TaskShapes) {
    for (ConvPlan p : {ConvPlan::general, ConvPlan::row_pairs, ConvPlan::depthwise, ConvPlan::depthwise_1d,
                       ConvPlan::pointwise, ConvPlan::channel_vectors, ConvPlan::one_vector}) {
        EXPECT_EQ(conv_task_shape_refusal(p, 0, 0), nullptr);  // the plan's own rule
    }
    for (int x : {1, 2, 8}) {
        for (int rows : {1, 4}) {
            EXPECT_EQ(conv_task_shape_refusal(ConvPlan::general, x, rows), nullptr);
            EXPECT_EQ(conv_task_shape_refusal(ConvPlan::one_vector, x, rows), nullptr);
            EXPECT_EQ(conv_task_shape_refusal(ConvPlan::row_pairs, x, rows), nullptr);
            EXPECT_NE(conv_task_shape_refusal(ConvPlan::depthwise, x, rows), nullptr);
            EXPECT_NE(conv_task_shape_refusal(ConvPlan::depthwise_1d, x, rows), nullptr);
            EXPECT_EQ(conv_task_shape_refusal(ConvPlan::pointwise, x, rows) == nullptr, rows == 1);
            EXPECT_EQ(conv_task_shape_refusal(ConvPlan::channel_vectors, x, rows) == nullptr, x == 1);
        }
    }
    EXPECT_STREQ(conv_task_shape_refusal(ConvPlan::pointwise, 2, 2),
                 "pointwise kernels see a plane as one row, so row_tiles must be 1");
}

}  // namespace
}  // namespace poolconv
