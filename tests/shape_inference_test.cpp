// poolconv::infer_pool_shape: output sizes and resolved pads for every auto_pad mode and rounding,
// and the errors it reports (docs/SEMANTICS.md, "Output size" and "Errors").
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "poolconv/poolconv.h"
#include "tests/test_util.h"

namespace poolconv {
namespace {

using Shape = std::vector<int64_t>;

PoolAttributes with_rounding(PoolAttributes a, Rounding r) {
    a.rounding = r;
    return a;
}

// Asserts infer_pool_shape throws poolconv::Error whose message contains every one of `needles`.
void expect_error(const Shape &shape, const PoolAttributes &a, const std::vector<std::string> &needles) {
    test::expect_error([&] { (void)infer_pool_shape(shape, a); }, needles);
}

// ---- Explicit pads ----

TEST(ShapeInference, ExplicitFloor) {
    PoolGeometry g = infer_pool_shape({1, 1, 7}, test::pool_attributes({3}, {2}));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 3}));  // floor((7 - 3) / 2) + 1
    EXPECT_EQ(g.pads_begin, (Shape{0}));
    EXPECT_EQ(g.pads_end, (Shape{0}));

    g = infer_pool_shape({1, 1, 7}, test::pool_attributes({3}, {2}, {1}, {1}));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 4}));  // floor((7 + 2 - 3) / 2) + 1
    EXPECT_EQ(g.pads_begin, (Shape{1}));
    EXPECT_EQ(g.pads_end, (Shape{1}));

    // Default strides (1) and pads (0).
    g = infer_pool_shape({2, 3, 5, 6}, test::pool_attributes({2, 3}));
    EXPECT_EQ(g.output_shape, (Shape{2, 3, 4, 4}));
}

TEST(ShapeInference, ExplicitCeilVsFloor) {
    // (8 - 3) / 2 = 2.5: floor 3 outputs, ceil 4.
    EXPECT_EQ(infer_pool_shape({1, 1, 8}, test::pool_attributes({3}, {2})).output_shape, (Shape{1, 1, 3}));
    EXPECT_EQ(infer_pool_shape({1, 1, 8}, with_rounding(test::pool_attributes({3}, {2}), Rounding::ceil)).output_shape,
              (Shape{1, 1, 4}));
    // The last ceil window starts at 6 < 8, inside the input: ceil_torch keeps it.
    EXPECT_EQ(infer_pool_shape({1, 1, 8}, with_rounding(test::pool_attributes({3}, {2}), Rounding::ceil_torch)).output_shape,
              (Shape{1, 1, 4}));
    // Divisible: every rounding agrees.
    for (Rounding r : {Rounding::floor, Rounding::ceil, Rounding::ceil_torch}) {
        EXPECT_EQ(infer_pool_shape({1, 1, 9}, with_rounding(test::pool_attributes({3}, {2}), r)).output_shape, (Shape{1, 1, 4}));
    }
}

TEST(ShapeInference, CeilTorchDropsWindowStartingInEndPadding) {
    // Spec example 5: 3x3, k=2, s=2, pads 1/1. ceil gives 3 per axis, the third window starting at
    // padded position 4 = in + pads_begin, i.e. in the end padding; ceil_torch drops it: 2x2.
    const PoolAttributes a = test::pool_attributes({2, 2}, {2, 2}, {1, 1}, {1, 1});
    EXPECT_EQ(infer_pool_shape({1, 1, 3, 3}, with_rounding(a, Rounding::ceil)).output_shape, (Shape{1, 1, 3, 3}));
    EXPECT_EQ(infer_pool_shape({1, 1, 3, 3}, with_rounding(a, Rounding::ceil_torch)).output_shape,
              (Shape{1, 1, 2, 2}));
    EXPECT_EQ(infer_pool_shape({1, 1, 3, 3}, with_rounding(a, Rounding::floor)).output_shape, (Shape{1, 1, 2, 2}));
}

TEST(ShapeInference, StrideLargerThanKernel) {
    EXPECT_EQ(infer_pool_shape({1, 1, 10}, test::pool_attributes({2}, {4})).output_shape, (Shape{1, 1, 3}));  // 8/4 + 1
    EXPECT_EQ(infer_pool_shape({1, 1, 11}, test::pool_attributes({2}, {4})).output_shape, (Shape{1, 1, 3}));  // floor(9/4) + 1
    EXPECT_EQ(infer_pool_shape({1, 1, 11}, with_rounding(test::pool_attributes({2}, {4}), Rounding::ceil)).output_shape,
              (Shape{1, 1, 4}));  // ceil(9/4) + 1; the last window starts at 12 > 10, past the input
    EXPECT_EQ(infer_pool_shape({1, 1, 11}, with_rounding(test::pool_attributes({2}, {4}), Rounding::ceil_torch)).output_shape,
              (Shape{1, 1, 3}));  // ... which ceil_torch drops
}

TEST(ShapeInference, Dilation) {
    // Dilated kernel (k - 1) * d + 1.
    EXPECT_EQ(infer_pool_shape({1, 1, 7}, test::pool_attributes({3}, {}, {}, {}, AutoPad::explicit_pads, Rounding::floor, {2}))
                  .output_shape,
              (Shape{1, 1, 3}));  // dk 5
    EXPECT_EQ(infer_pool_shape({1, 1, 7}, test::pool_attributes({3}, {}, {}, {}, AutoPad::explicit_pads, Rounding::floor, {3}))
                  .output_shape,
              (Shape{1, 1, 1}));  // dk 7
    EXPECT_EQ(infer_pool_shape({1, 1, 7}, test::pool_attributes({3}, {}, {1}, {1}, AutoPad::explicit_pads, Rounding::floor, {4}))
                  .output_shape,
              (Shape{1, 1, 1}));  // dk 9 with 2 pads
    // Spec example 7: 3x3, k=2, d=2, pads 1/1, s=1 -> 3x3.
    EXPECT_EQ(infer_pool_shape({1, 1, 3, 3}, test::pool_attributes({2, 2}, {1, 1}, {1, 1}, {1, 1}, AutoPad::explicit_pads,
                                                  Rounding::floor, {2, 2}))
                  .output_shape,
              (Shape{1, 1, 3, 3}));
}

TEST(ShapeInference, AllPaddingWindowsAreAllowed) {
    // Pads larger than the kernel: the first and last windows see only padding.
    PoolGeometry g = infer_pool_shape({1, 1, 2}, test::pool_attributes({2}, {1}, {3}, {3}));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 7}));
    EXPECT_EQ(g.pads_begin, (Shape{3}));
    EXPECT_EQ(g.pads_end, (Shape{3}));
    // ceil: the last window starts at 6, at or past in + pads_end = 6: only (beyond) padding.
    EXPECT_EQ(infer_pool_shape({1, 1, 4}, with_rounding(test::pool_attributes({1}, {3}, {0}, {2}), Rounding::ceil)).output_shape,
              (Shape{1, 1, 3}));
    EXPECT_EQ(infer_pool_shape({1, 1, 4}, with_rounding(test::pool_attributes({1}, {3}, {0}, {2}), Rounding::ceil_torch)).output_shape,
              (Shape{1, 1, 2}));
}

// ---- valid ----

TEST(ShapeInference, ValidIgnoresPadsAndFollowsRounding) {
    // Spec example 6: 3x3, k=2, s=2, valid, ceil -> 2x2 (the example wins over the closed formula).
    PoolGeometry g = infer_pool_shape({1, 1, 3, 3}, test::pool_attributes({2, 2}, {2, 2}, {}, {}, AutoPad::valid, Rounding::ceil));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 2, 2}));
    EXPECT_EQ(g.pads_begin, (Shape{0, 0}));
    EXPECT_EQ(g.pads_end, (Shape{0, 0}));
    EXPECT_EQ(infer_pool_shape({1, 1, 3, 3}, test::pool_attributes({2, 2}, {2, 2}, {}, {}, AutoPad::valid, Rounding::floor)).output_shape,
              (Shape{1, 1, 1, 1}));
    // ceil_torch: the second window starts at 2 < 3, inside the input, so it stays.
    EXPECT_EQ(infer_pool_shape({1, 1, 3, 3}, test::pool_attributes({2, 2}, {2, 2}, {}, {}, AutoPad::valid, Rounding::ceil_torch))
                  .output_shape,
              (Shape{1, 1, 2, 2}));
    // Given pads are ignored, even of the wrong length.
    g = infer_pool_shape({1, 1, 7}, test::pool_attributes({3}, {1}, {5, 5}, {2}, AutoPad::valid));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 5}));
    EXPECT_EQ(g.pads_begin, (Shape{0}));
    EXPECT_EQ(g.pads_end, (Shape{0}));
    // Spec example 2: 7, k=3, valid -> 5.
    EXPECT_EQ(infer_pool_shape({1, 1, 7}, test::pool_attributes({3}, {1}, {}, {}, AutoPad::valid)).output_shape, (Shape{1, 1, 5}));
}

// ---- same_upper / same_lower ----

TEST(ShapeInference, SameOddTotalPadSplit) {
    // in 7, k 4, s 2: out ceil(7/2) = 4, total pad (4-1)*2 + 4 - 7 = 3.
    PoolGeometry up = infer_pool_shape({1, 1, 7}, test::pool_attributes({4}, {2}, {}, {}, AutoPad::same_upper));
    EXPECT_EQ(up.output_shape, (Shape{1, 1, 4}));
    EXPECT_EQ(up.pads_begin, (Shape{1}));  // the odd pad goes at the end
    EXPECT_EQ(up.pads_end, (Shape{2}));
    PoolGeometry low = infer_pool_shape({1, 1, 7}, test::pool_attributes({4}, {2}, {}, {}, AutoPad::same_lower));
    EXPECT_EQ(low.output_shape, (Shape{1, 1, 4}));
    EXPECT_EQ(low.pads_begin, (Shape{2}));  // ... or at the beginning
    EXPECT_EQ(low.pads_end, (Shape{1}));

    // Spec examples 3 and 4: 3x3, k=2, s=1: total 1 per axis.
    up = infer_pool_shape({1, 2, 3, 3}, test::pool_attributes({2, 2}, {1, 1}, {}, {}, AutoPad::same_upper));
    EXPECT_EQ(up.output_shape, (Shape{1, 2, 3, 3}));
    EXPECT_EQ(up.pads_begin, (Shape{0, 0}));
    EXPECT_EQ(up.pads_end, (Shape{1, 1}));
    low = infer_pool_shape({1, 1, 3, 3}, test::pool_attributes({2, 2}, {1, 1}, {}, {}, AutoPad::same_lower));
    EXPECT_EQ(low.pads_begin, (Shape{1, 1}));
    EXPECT_EQ(low.pads_end, (Shape{0, 0}));
}

TEST(ShapeInference, SameEvenTotalAndNoPad) {
    PoolGeometry g = infer_pool_shape({1, 1, 6}, test::pool_attributes({3}, {1}, {}, {}, AutoPad::same_lower));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 6}));
    EXPECT_EQ(g.pads_begin, (Shape{1}));
    EXPECT_EQ(g.pads_end, (Shape{1}));
    // Stride > kernel: the needed total is negative, clamped to 0.
    g = infer_pool_shape({1, 1, 5}, test::pool_attributes({1}, {3}, {}, {}, AutoPad::same_upper));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 2}));
    EXPECT_EQ(g.pads_begin, (Shape{0}));
    EXPECT_EQ(g.pads_end, (Shape{0}));
    // Dilation counts: k 3, d 2 (dk 5), s 1, in 5 -> total 4.
    g = infer_pool_shape({1, 1, 5}, test::pool_attributes({3}, {1}, {}, {}, AutoPad::same_upper, Rounding::floor, {2}));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, 5}));
    EXPECT_EQ(g.pads_begin, (Shape{2}));
    EXPECT_EQ(g.pads_end, (Shape{2}));
}

TEST(ShapeInference, SameIgnoresRoundingAndGivenPads) {
    for (AutoPad mode : {AutoPad::same_upper, AutoPad::same_lower}) {
        for (Rounding r : {Rounding::floor, Rounding::ceil, Rounding::ceil_torch}) {
            PoolGeometry g = infer_pool_shape({1, 1, 9, 10}, test::pool_attributes({3, 2}, {2, 3}, {7, 7}, {7, 7}, mode, r));
            EXPECT_EQ(g.output_shape, (Shape{1, 1, 5, 4}));  // ceil(9/2), ceil(10/3)
            // H: (5-1)*2 + 3 - 9 = 2; W: (4-1)*3 + 2 - 10 = 1.
            EXPECT_EQ(g.pads_begin, mode == AutoPad::same_upper ? (Shape{1, 0}) : (Shape{1, 1}));
            EXPECT_EQ(g.pads_end, mode == AutoPad::same_upper ? (Shape{1, 1}) : (Shape{1, 0}));
        }
    }
}

// ---- Ranks ----

TEST(ShapeInference, OneTwoThreeSpatialDims) {
    EXPECT_EQ(infer_pool_shape({3, 4, 10}, test::pool_attributes({3}, {3})).output_shape, (Shape{3, 4, 3}));
    EXPECT_EQ(infer_pool_shape({3, 4, 10, 5}, test::pool_attributes({3, 1}, {3, 2})).output_shape, (Shape{3, 4, 3, 3}));
    // Per-dimension attributes are outermost first (D, H, W).
    PoolGeometry g = infer_pool_shape({2, 3, 5, 6, 7}, test::pool_attributes({1, 2, 3}, {1, 2, 3}, {0, 1, 1}, {0, 1, 2}));
    EXPECT_EQ(g.output_shape, (Shape{2, 3, 5, 4, 3}));
    EXPECT_EQ(g.pads_begin, (Shape{0, 1, 1}));
    EXPECT_EQ(g.pads_end, (Shape{0, 1, 2}));
}

TEST(ShapeInference, EmptyBatchOrChannelsAllowed) {
    EXPECT_EQ(infer_pool_shape({0, 3, 5}, test::pool_attributes({2})).output_shape, (Shape{0, 3, 4}));
    EXPECT_EQ(infer_pool_shape({2, 0, 5, 5}, test::pool_attributes({2, 2})).output_shape, (Shape{2, 0, 4, 4}));
}

// ---- Errors ----

TEST(ShapeInferenceErrors, KernelStrideDilationBelowOne) {
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 0}), {"kernel[1]", ">= 1", "0"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({-1, 2}), {"kernel[0]"});
    expect_error({1, 1, 5}, test::pool_attributes({}), {"kernel"});  // required
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {1, 0}), {"strides[1]"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {}, {}, {}, AutoPad::explicit_pads, Rounding::floor, {0, 1}),
                 {"dilations[0]"});
}

TEST(ShapeInferenceErrors, NegativePads) {
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {}, {0, -1}, {0, 0}), {"pads_begin[1]"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {}, {0, 0}, {-2, 0}), {"pads_end[0]"});
}

TEST(ShapeInferenceErrors, WrongListLengths) {
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2, 2}), {"kernel", "3", "2 spatial"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({2}), {"kernel"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {1}), {"strides"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {}, {}, {}, AutoPad::explicit_pads, Rounding::floor, {1, 1, 1}),
                 {"dilations"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {}, {1}, {1, 1}), {"pads_begin"});
    expect_error({1, 1, 5, 5}, test::pool_attributes({2, 2}, {}, {1, 1}, {1, 1, 1}), {"pads_end"});
}

TEST(ShapeInferenceErrors, RankOutsideThreeToFive) {
    expect_error({4, 5}, test::pool_attributes({2}), {"rank"});
    expect_error({1, 1, 4, 4, 4, 4}, test::pool_attributes({2, 2, 2, 2}), {"rank"});
    expect_error({}, test::pool_attributes({2}), {"rank"});
}

TEST(ShapeInferenceErrors, BadInputDimensions) {
    expect_error({1, 1, 0, 5}, test::pool_attributes({1, 1}), {"input shape"});
    expect_error({-1, 1, 5}, test::pool_attributes({1}), {"input shape"});
}

TEST(ShapeInferenceErrors, OutputBelowOne) {
    expect_error({1, 1, 2}, test::pool_attributes({3}), {"output size"});
    expect_error({1, 1, 7}, test::pool_attributes({3}, {}, {}, {}, AutoPad::explicit_pads, Rounding::floor, {4}), {"output size"});
    // valid never pads, so the kernel must fit.
    expect_error({1, 1, 3, 3}, test::pool_attributes({4, 1}, {}, {}, {}, AutoPad::valid, Rounding::ceil), {"output size"});
}

TEST(ShapeInferenceErrors, Int64Overflow) {
    const int64_t big = int64_t(1) << 62;
    // (k - 1) * d overflows int64.
    expect_error({1, 1, 5}, test::pool_attributes({big}, {}, {}, {}, AutoPad::explicit_pads, Rounding::floor, {4}),
                 {"kernel", "overflow"});
    // in + pads overflows.
    const int64_t max = std::numeric_limits<int64_t>::max();
    expect_error({1, 1, max - 1}, test::pool_attributes({1}, {}, {2}, {2}), {"overflow"});
    // The output element count overflows.
    expect_error({int64_t(1) << 40, int64_t(1) << 40, 1 << 20}, test::pool_attributes({1}), {"overflow"});
}

TEST(ShapeInferenceErrors, Int64OverflowSamePadding) {
    // same_*: out = ceil(in / s) = INT64_MAX, then (out - 1) * s + dk overflows.
    const int64_t max = std::numeric_limits<int64_t>::max();
    expect_error({1, 1, max}, test::pool_attributes({int64_t(1) << 62}, {1}, {}, {}, AutoPad::same_upper, Rounding::floor, {2}),
                 {"overflow"});
}

TEST(ShapeInference, SizesNearInt64Max) {
    // Geometries whose intermediate ceil divisions sit next to INT64_MAX: no overflow (signed
    // overflow would be undefined behaviour; the sanitizer build catches it), and then the clear
    // error that the kernels' 32-bit coordinates cannot reach that far.
    const int64_t max = std::numeric_limits<int64_t>::max();
    // same_upper, k=1, s=1: out = in = INT64_MAX, no pad.
    test::expect_error([&] { (void)infer_pool_shape({1, 1, max}, test::pool_attributes({1}, {1}, {}, {}, AutoPad::same_upper)); },
                       {"window reach[0] exceeds the kernels' 32-bit range (and int64)"});
    // explicit, ceil: span 2^63 - 2, stride 4 -> ceil((2^63 - 2) / 4) + 1 = 2^61 + 1 outputs.
    test::expect_error([&] { (void)infer_pool_shape({1, 1, max}, with_rounding(test::pool_attributes({1}, {4}), Rounding::ceil)); },
                       {"window reach[0] exceeds the kernels' 32-bit range (and int64)"});
}

// Shape inference returns only geometries the kernels take: every input coordinate a window reads
// fits in int32 (relative to -pad_begin), up to the last one that does, for the windows of the 63
// outputs a row's last vector may compute past its end too (schedules/pool_limits.h).
TEST(ShapeInference, WindowReachUpToInt32Max) {
    const int64_t max32 = std::numeric_limits<int32_t>::max();
    // Stride 1, no pads: the last tap of the last over-computed window is at in - 1 + 63.
    const int64_t widest = max32 - 63 + 1;
    PoolGeometry g = infer_pool_shape({1, 1, widest}, test::pool_attributes({3}, {1}));
    EXPECT_EQ(g.output_shape, (Shape{1, 1, widest - 2}));
    test::expect_error([&] { (void)infer_pool_shape({1, 1, widest + 1}, test::pool_attributes({3}, {1})); },
                       {"window reach[0] = 2147483648", "32-bit range"});
    // A stride beyond int32 is refused even where it would not matter (one output).
    test::expect_error([&] { (void)infer_pool_shape({1, 1, 5}, test::pool_attributes({2}, {max32 + 1})); },
                       {"strides[0] = 2147483648 exceeds the kernels' 32-bit range"});
    // ceil_torch's test of the last window's start, (out - 1) * stride, beyond int64 (undefined
    // behaviour once: found by fuzz_shape): the window starts past the input, and the reach error.
    test::expect_error([&] {
        (void)infer_pool_shape({1, 1, 10}, with_rounding(test::pool_attributes({1}, {int64_t(6787487584108940031)}, {0},
                                                                                {int64_t(7000000000000000000)}),
                                                         Rounding::ceil_torch));
    }, {"32-bit range"});
    // One output and a large stride: the over-computed windows reach 63 strides on.
    test::expect_error([&] { (void)infer_pool_shape({1, 1, 5}, test::pool_attributes({5}, {int64_t(1) << 26})); },
                       {"window reach[0]", "32-bit range"});
}

// ---- Tensor strides ----

// TensorView::effective_stride(d), which the operators read per call, is effective_strides()[d]:
// dense row-major strides (a zero extent counts as 1) or the view's own strides.
TEST(TensorViewStrides, EffectiveStrideIsTheListsEntry) {
    void *const no_data = nullptr;  // strides only: no element is read
    const std::vector<TensorView> views = {
        TensorView::dense(DType::f32, {2, 3, 5, 7}, no_data),
        TensorView::dense(DType::f32, {4, 0, 6}, no_data),
        TensorView::dense(DType::f32, {1, 1, 1, 9, 11}, no_data),
        TensorView{DType::f32, {2, 3, 4}, {100, 20, 1}, no_data},
    };
    const std::vector<Shape> expected = {{105, 35, 7, 1}, {6, 6, 1}, {99, 99, 99, 11, 1}, {100, 20, 1}};
    for (std::size_t v = 0; v < views.size(); v++) {
        EXPECT_EQ(views[v].effective_strides(), expected[v]) << "view " << v;
        for (std::size_t d = 0; d < views[v].shape.size(); d++) {
            EXPECT_EQ(views[v].effective_stride(d), expected[v][d]) << "view " << v << ", dimension " << d;
        }
    }
}

}  // namespace
}  // namespace poolconv
