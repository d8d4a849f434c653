// The autoschedulers' checked-in results (schedules/autoscheduled/, run after set_schedule_author)
// against the plain C++ reference: each author's kernel for every plan the runtime picks, on the
// layers its estimates describe and on odd sizes around them, with exact data (multiples of 1/4,
// so every f32 sum is exact in any order). A result that no longer matches the algorithm (it names
// Funcs by position) fails here or at build time: rerun tools/autoschedule.sh.
//
// Unlike ours, these schedules assume shapes about as large as their estimates: they round loops
// inward (TailStrategy::ShiftInwards), so a dimension smaller than one of their tiles makes the
// kernel refuse the call with Halide's bounds error (e.g. Adams2019's general convolution on fewer
// than 16 output channels per group). Layers marked "(small)" have such a dimension for some
// author: they must run right or be refused that way. All others, the estimate layers among them,
// must run right.
//
// Builds without these kernels (no avx2 path, e.g. AArch64 and CI's sanitizer build; or
// POOLCONV_AUTOSCHEDULED_KERNELS off) check the errors that calls then get instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "reference/reference_convolution.h"
#include "reference/reference_pooling.h"
#include "tests/test_util.h"

namespace poolconv {
namespace {

using test::Rng;
using test::Tensor;
using Shape = std::vector<int64_t>;

const ScheduleAuthor kAuthors[] = {ScheduleAuthor::adams2019, ScheduleAuthor::mullapudi2016};

bool avx2_path_built() {
    const std::vector<Isa> built = built_isas();
    return std::find(built.begin(), built.end(), Isa::avx2) != built.end();
}

bool cpu_has_avx2() {
    const bool has = test::force_isa(Isa::avx2);
    set_isa(Isa::best);
    return has;
}

// Whether this build and CPU run the autoschedulers' kernels.
bool kernels_run() { return POOLCONV_HAVE_AUTOSCHEDULED_KERNELS && avx2_path_built() && cpu_has_avx2(); }

// Runs each test with one author's kernels, or skips where they cannot run.
class AutoscheduledKernels : public ::testing::TestWithParam<ScheduleAuthor> {
protected:
    void SetUp() override {
        if (!kernels_run()) GTEST_SKIP() << "no autoscheduled kernels here (AutoscheduledKernelsAbsent checks the errors)";
        set_schedule_author(GetParam());
    }
    void TearDown() override { set_schedule_author(ScheduleAuthor::poolconv); }
};

std::string author_param_name(const ::testing::TestParamInfo<ScheduleAuthor> &info) {
    return schedule_author_name(info.param);
}

// Runs `call` on layer `what`. True when it ran; false when the kernel refused the shape with a
// bounds error (logged), which only a "(small)" layer may do.
bool ran_or_refused(const std::function<void()> &call, const std::string &what) {
    try {
        call();
        return true;
    } catch (const Error &e) {
        const std::string message = e.what();
        std::cout << "[ refused  ] " << schedule_author_name(schedule_author()) << ", " << what << ": " << message
                  << "\n";
        EXPECT_NE(what.find("(small)"), std::string::npos) << "only small layers may be refused: " << message;
        EXPECT_NE(message.find("kernel failed"), std::string::npos) << message;
        EXPECT_NE(message.find(" is accessed at "), std::string::npos) << message;
        return false;
    }
}

struct ConvLayer {
    const char *what;
    Shape input_shape, weights_shape;
    ConvAttributes attributes;
    bool with_bias;
    std::string kernel;  // the runtime's choice (without the author suffix)
};

ConvAttributes conv_attributes(Shape strides, Shape dilations, Shape pads, int64_t group,
                               Activation activation = Activation::none) {
    ConvAttributes a;
    a.strides = std::move(strides);
    a.dilations = std::move(dilations);
    a.pads_begin = pads;
    a.pads_end = std::move(pads);
    a.group = group;
    a.activation = activation;
    return a;
}

// The estimate layers (C1, C3, C5, a Conformer module's depthwise 1-D convolution) and odd ones
// around them, for every plan.
std::vector<ConvLayer> conv_layers() {
    return {
        {"C1 (estimate)", {1, 64, 56, 56}, {64, 64, 3, 3}, conv_attributes({}, {}, {1, 1}, 1), true,
         "conv_f32_row_pairs"},
        // 21 output channels: Adams2019's general convolution tiles channels by 32 (Halide 21).
        {"odd 3x3 (small)", {2, 37, 29, 43}, {21, 37, 3, 3}, conv_attributes({}, {}, {1, 0}, 1, Activation::relu),
         false, "conv_f32_row_pairs"},
        {"odd 3x3, 45 channels", {2, 37, 29, 43}, {45, 37, 3, 3}, conv_attributes({}, {}, {1, 0}, 1, Activation::relu),
         false, "conv_f32_row_pairs"},
        {"dilated 3x3 (atrous)", {1, 32, 40, 37}, {48, 32, 3, 3}, conv_attributes({}, {2, 2}, {2, 2}, 1), true,
         "conv_f32"},
        {"5x5 stride 2", {1, 24, 45, 50}, {32, 24, 5, 5}, conv_attributes({2, 2}, {}, {2, 2}, 1), false, "conv_f32"},
        {"dilated, strided, grouped (small)", {1, 48, 45, 50}, {40, 12, 3, 3}, conv_attributes({2, 1}, {2, 2}, {2, 2}, 4), true,
         "conv_f32"},
        {"5x5 3-D (small)", {1, 8, 9, 21, 19}, {12, 8, 3, 5, 5}, conv_attributes({1, 1, 1}, {}, {1, 2, 2}, 1), true,
         "conv_f32"},
        {"C3 (estimate)", {1, 256, 56, 56}, {64, 256, 1, 1}, conv_attributes({}, {}, {0, 0}, 1), true,
         "conv_f32_pointwise"},
        {"odd 1x1", {2, 70, 31, 23}, {45, 70, 1, 1}, conv_attributes({}, {}, {0, 0}, 1, Activation::relu6), true,
         "conv_f32_pointwise"},
        {"C5 (estimate)", {1, 144, 56, 56}, {144, 1, 3, 3}, conv_attributes({}, {}, {1, 1}, 144), true,
         "conv_f32_depthwise"},
        {"odd depthwise, stride 2 (small)", {2, 40, 33, 29}, {40, 1, 5, 5}, conv_attributes({2, 2}, {}, {2, 2}, 40), false,
         "conv_f32_depthwise"},
        {"Conformer (estimate)", {1, 256, 512}, {256, 1, 31}, conv_attributes({}, {}, {15}, 256), true,
         "conv_f32_depthwise_1d"},
        {"odd depthwise 1-D", {3, 72, 301}, {72, 1, 7}, conv_attributes({2}, {}, {3}, 72), false,
         "conv_f32_depthwise_1d"},
    };
}

TEST_P(AutoscheduledKernels, ConvolutionAgainstReference) {
    Rng rng(4001);
    test::FillOptions exact;  // multiples of 1/4: every sum below is exact in f32
    for (const ConvLayer &layer : conv_layers()) {
        SCOPED_TRACE(layer.what);
        Tensor input = Tensor::dense(DType::f32, layer.input_shape);
        Tensor weights = Tensor::dense(DType::f32, layer.weights_shape);
        Tensor bias = Tensor::dense(DType::f32, {layer.weights_shape[0]});
        for (Tensor *t : {&input, &weights, &bias}) test::fill_random(*t, rng, exact);
        const Shape output_shape = infer_conv_shape(layer.input_shape, layer.weights_shape, layer.attributes).output_shape;
        Tensor expected = Tensor::dense(DType::f32, output_shape), got = Tensor::dense(DType::f32, output_shape);
        const TensorView bias_view = bias.view();
        const TensorView *b = layer.with_bias ? &bias_view : nullptr;
        reference::convolution(input.view(), weights.view(), b, expected.view(), layer.attributes);
        PreparedConvolution conv(weights.view(), b, layer.attributes);
        EXPECT_EQ(conv.kernel_name(input.view(), got.view()), layer.kernel);
        if (ran_or_refused([&] { conv.run(input.view(), got.view()); }, layer.what)) {
            EXPECT_TRUE(test::tensors_match(got, expected));
        }
    }
}

struct PoolLayer {
    const char *what;
    Shape input_shape;
    PoolAttributes attributes;
};

PoolAttributes pool_attributes(Shape kernel, Shape strides, Shape pads, Rounding rounding = Rounding::floor) {
    PoolAttributes a;
    a.kernel = std::move(kernel);
    a.strides = std::move(strides);
    a.pads_begin = pads;
    a.pads_end = std::move(pads);
    a.rounding = rounding;
    return a;
}

// The estimate layer (a ResNet stem's max pool) and odd ones around it.
std::vector<PoolLayer> pool_layers() {
    return {
        {"ResNet stem max pool (estimate)", {1, 64, 112, 112}, pool_attributes({3, 3}, {2, 2}, {1, 1})},
        {"odd 2x2, ceil (small)", {2, 24, 47, 53}, pool_attributes({2, 2}, {2, 2}, {0, 0}, Rounding::ceil)},
        // 19 channels: Adams2019's max pool with indices tiles channels by 32 (Halide 21).
        {"odd 3x5 stride 1 (small)", {1, 19, 33, 41}, pool_attributes({3, 5}, {1, 1}, {1, 2})},
        {"odd 3x5 stride 1, 37 channels", {1, 37, 33, 41}, pool_attributes({3, 5}, {1, 1}, {1, 2})},
        {"3-D (small)", {1, 8, 9, 20, 22}, pool_attributes({3, 3, 3}, {2, 2, 2}, {1, 1, 1})},
    };
}

TEST_P(AutoscheduledKernels, PoolingAgainstReference) {
    Rng rng(4002);
    test::FillOptions ties;  // frequent equal values: the first maximum must win
    for (const PoolLayer &layer : pool_layers()) {
        SCOPED_TRACE(layer.what);
        Tensor input = Tensor::dense(DType::f32, layer.input_shape);
        test::fill_random(input, rng, ties);
        const Shape output_shape = infer_pool_shape(layer.input_shape, layer.attributes).output_shape;

        MaxPoolAttributes max_attributes;
        static_cast<PoolAttributes &>(max_attributes) = layer.attributes;
        for (DType index_type : {DType::i64, DType::i32}) {
            Tensor expected = Tensor::dense(DType::f32, output_shape), got = Tensor::dense(DType::f32, output_shape);
            Tensor expected_indices = Tensor::dense(index_type, output_shape);
            Tensor got_indices = Tensor::dense(index_type, output_shape);
            const TensorView expected_indices_view = expected_indices.view(), got_indices_view = got_indices.view();
            reference::max_pool(input.view(), expected.view(), max_attributes, &expected_indices_view);
            if (ran_or_refused([&] { max_pool(input.view(), got.view(), max_attributes, &got_indices_view); },
                               layer.what)) {
                EXPECT_TRUE(test::tensors_match(got, expected));
                EXPECT_TRUE(test::tensors_match(got_indices, expected_indices, {}, "indices"));
            }
        }
        Tensor expected = Tensor::dense(DType::f32, output_shape), got = Tensor::dense(DType::f32, output_shape);
        reference::max_pool(input.view(), expected.view(), max_attributes);
        if (ran_or_refused([&] { max_pool(input.view(), got.view(), max_attributes); }, layer.what)) {
            EXPECT_TRUE(test::tensors_match(got, expected));
        }

        AvgPoolAttributes avg_attributes;
        static_cast<PoolAttributes &>(avg_attributes) = layer.attributes;
        avg_attributes.pad_mode = AvgPadMode::include_pad;
        test::CompareOptions one_rounding;
        one_rounding.ulp_tol = 1;  // the sum is exact; the division rounds once
        reference::avg_pool(input.view(), expected.view(), avg_attributes);
        if (ran_or_refused([&] { avg_pool(input.view(), got.view(), avg_attributes); }, layer.what)) {
            EXPECT_TRUE(test::tensors_match(got, expected, one_rounding));
        }
    }
}

TEST_P(AutoscheduledKernels, GlobalAvgPoolAgainstReference) {
    Rng rng(4003);
    // The estimate (a ResNet-50 head), a smaller head, a large plane and an odd one.
    for (const Shape &shape : {Shape{1, 2048, 7, 7}, Shape{1, 512, 7, 7}, Shape{2, 64, 56, 56}, Shape{3, 37, 13, 11}}) {
        const std::string what = "global " + test::list_to_string(shape) + (shape[1] == 2048 ? " (estimate)" : "") +
                                 (shape[1] < 64 ? " (small)" : "");
        Tensor input = Tensor::dense(DType::f32, shape);
        test::fill_random(input, rng, test::FillOptions{});
        AvgPoolAttributes a;
        a.kernel = {shape[2], shape[3]};
        Shape output_shape = {shape[0], shape[1], 1, 1};
        Tensor expected = Tensor::dense(DType::f32, output_shape), got = Tensor::dense(DType::f32, output_shape);
        reference::avg_pool(input.view(), expected.view(), a);
        test::CompareOptions one_rounding;
        one_rounding.ulp_tol = 1;
        SCOPED_TRACE(what);
        if (ran_or_refused([&] { avg_pool(input.view(), got.view(), a); }, what)) {
            EXPECT_TRUE(test::tensors_match(got, expected, one_rounding));
        }
    }
}

// The autoschedulers' kernels are f32 host kernels only: anything else says what is missing rather
// than running poolconv's kernels unnoticed.
TEST_P(AutoscheduledKernels, UncoveredCallsThrow) {
    const std::string author = schedule_author_name(GetParam());
    Tensor x = Tensor::dense(DType::f16, {1, 4, 6, 6}), y = Tensor::dense(DType::f16, {1, 4, 3, 3});
    MaxPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    test::expect_error([&] { max_pool(x.view(), y.view(), a); }, {"max_pool_f16_" + author, "f32 only"});
    Tensor w = Tensor::dense(DType::bf16, {4, 4, 1, 1});
    Tensor xb = Tensor::dense(DType::bf16, {1, 4, 6, 6}), yb = Tensor::dense(DType::bf16, {1, 4, 6, 6});
    test::expect_error([&] { convolution(xb.view(), w.view(), nullptr, yb.view(), ConvAttributes{}); },
                       {"conv_bf16_pointwise_" + author});
}

INSTANTIATE_TEST_SUITE_P(Author, AutoscheduledKernels, ::testing::ValuesIn(kAuthors), author_param_name);

// Where the kernels are missing, a call with an author set says why instead of running ours.
TEST(AutoscheduledKernelsAbsent, CallsThrow) {
    if (kernels_run()) GTEST_SKIP() << "this build and CPU run them (AutoscheduledKernels)";
    const std::string why = !avx2_path_built()                     ? "need a build with the avx2 path"
                            : !POOLCONV_HAVE_AUTOSCHEDULED_KERNELS ? "are not in this build"
                                                                   : "need an AVX2 CPU";
    Tensor x = Tensor::dense(DType::f32, {1, 2, 4, 4}), y = Tensor::dense(DType::f32, {1, 2, 2, 2});
    MaxPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    set_schedule_author(ScheduleAuthor::adams2019);
    test::expect_error([&] { max_pool(x.view(), y.view(), a); }, {"max_pool", "adams2019", why});
    set_schedule_author(ScheduleAuthor::poolconv);
    EXPECT_NO_THROW(max_pool(x.view(), y.view(), a));
}

// The public query agrees with kernels_run() (the build's CMake options, read here, and whether
// the avx2 path is built and can be forced on this CPU), and with what calls do.
TEST(ScheduleAuthor, AvailableWhereKernelsRun) {
    EXPECT_TRUE(schedule_author_available(ScheduleAuthor::poolconv));
    Tensor x = Tensor::dense(DType::f32, {1, 8, 32, 32}), y = Tensor::dense(DType::f32, {1, 8, 16, 16});
    MaxPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    for (ScheduleAuthor author : kAuthors) {
        EXPECT_EQ(schedule_author_available(author), kernels_run()) << schedule_author_name(author);
        set_schedule_author(author);
        std::string error;
        try {
            max_pool(x.view(), y.view(), a);
        } catch (const Error &e) {
            error = e.what();
        }
        set_schedule_author(ScheduleAuthor::poolconv);
        // Turned away before any kernel runs, naming what is missing (a kernel refusing the shape
        // would be another error).
        const bool turned_away = error.find("'s kernels (set_schedule_author)") != std::string::npos;
        EXPECT_EQ(turned_away, !schedule_author_available(author)) << schedule_author_name(author) << ": " << error;
    }
}

// The setter round-trips, and names match POOLCONV_SCHEDULE_AUTHOR's values.
TEST(ScheduleAuthor, NamesAndSetter) {
    if (std::getenv("POOLCONV_SCHEDULE_AUTHOR")) GTEST_SKIP() << "POOLCONV_SCHEDULE_AUTHOR is set";
    EXPECT_EQ(schedule_author(), ScheduleAuthor::poolconv);
    EXPECT_STREQ(schedule_author_name(ScheduleAuthor::poolconv), "poolconv");
    EXPECT_STREQ(schedule_author_name(ScheduleAuthor::adams2019), "adams2019");
    EXPECT_STREQ(schedule_author_name(ScheduleAuthor::mullapudi2016), "mullapudi2016");
    set_schedule_author(ScheduleAuthor::mullapudi2016);
    EXPECT_EQ(schedule_author(), ScheduleAuthor::mullapudi2016);
    set_schedule_author(ScheduleAuthor::poolconv);
    EXPECT_EQ(schedule_author(), ScheduleAuthor::poolconv);
}

}  // namespace
}  // namespace poolconv
