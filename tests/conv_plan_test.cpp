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

// 2-D facts: kernel, stride and dilation along x and y, output rows, depthwise, 1x1 and dense.
ConvCallFacts facts2d(int64_t kx, int64_t ky, int64_t sx, int64_t sy, int64_t dx, int64_t dy, int64_t rows,
                      bool depthwise = false, bool one_to_one = false, bool dense = true) {
    ConvCallFacts f;
    f.spatial = 2;
    f.kernel[0] = kx, f.kernel[1] = ky, f.stride[0] = sx, f.stride[1] = sy, f.dilation[0] = dx, f.dilation[1] = dy;
    f.output_rows = rows;
    f.depthwise = depthwise;
    f.one_to_one = one_to_one;
    f.planes_dense = dense;
    return f;
}

ConvCallFacts facts1d(int64_t k, bool depthwise) {
    ConvCallFacts f;
    f.spatial = 1;
    f.kernel[0] = k;
    f.depthwise = depthwise;
    return f;
}

TEST(ConvPlan, ChoiceTable) {
    using P = ConvPlan;
    const Row rows[] = {
        {"3x3 stride 1", facts2d(3, 3, 1, 1, 1, 1, 56), P::row_pairs, P::general},
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
    };
    auto all = [](ConvPlan) { return true; };
    auto gpu = [](ConvPlan p) { return p == ConvPlan::general || p == ConvPlan::depthwise; };
    for (const Row &r : rows) {
        SCOPED_TRACE(r.what);
        EXPECT_EQ(choose_conv_plan(r.facts, all), r.cpu);
        EXPECT_EQ(choose_conv_plan(r.facts, gpu), r.gpu);
    }
}

TEST(ConvPlan, KernelSuffixes) {
    EXPECT_EQ(conv_plan_suffix(ConvPlan::general), "");
    for (ConvPlan p : {ConvPlan::row_pairs, ConvPlan::depthwise, ConvPlan::depthwise_1d, ConvPlan::pointwise}) {
        for (const ConvPlanName &n : kConvPlanNames) {
            if (n.plan == p) {
                EXPECT_EQ(conv_plan_suffix(p), std::string("_") + n.name);
            }
        }
    }
}

}  // namespace
}  // namespace poolconv
