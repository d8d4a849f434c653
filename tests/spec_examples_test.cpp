// The worked examples of /work/shared/specs (OpenVINO's pooling shape rules, examples 1-8, and the
// ONNX MaxPool storage_order example) through the C++ API, for every instruction set and every
// max_pool element type the values fit, with and without indices; the reference must agree too.
// Also a few hand-computed AvgPool cases that pin down the three divisor conventions.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "reference/reference_convolution.h"
#include "tests/test_util.h"

namespace poolconv {
namespace {

using test::Tensor;
using Shape = std::vector<int64_t>;

struct MaxPoolExample {
    std::string name;
    Shape input_shape;
    std::vector<double> input;
    MaxPoolAttributes attributes;
    Shape output_shape;
    std::vector<double> values;
    std::vector<int64_t> indices;
};

MaxPoolAttributes make_attrs(Shape kernel, Shape strides, Shape pads_begin, Shape pads_end, AutoPad auto_pad,
                             Rounding rounding, Shape dilations = {}, int64_t axis = 0,
                             StorageOrder order = StorageOrder::row_major) {
    auto a = test::pool_attributes<MaxPoolAttributes>(std::move(kernel), std::move(strides), std::move(pads_begin),
                                                       std::move(pads_end), auto_pad, rounding, std::move(dilations));
    a.axis = axis;
    a.storage_order = order;
    return a;
}

const std::vector<MaxPoolExample> &examples() {
    static const std::vector<MaxPoolExample> all = [] {
        const std::vector<double> x3 = {-1, 2, 3, 4, 5, -6, -7, 8, 9};
        const std::vector<double> n9 = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        std::vector<MaxPoolExample> e;
        // Example 1. ERRATUM: the spec prints output[0,0,1,3] = -6 with index 5. That window
        // (rows 0-1, columns 2-3 of the padded input) holds input[0][2] = 3 and input[1][2] = -6;
        // column 3 is padding. Its maximum is 3, at flat index 2 (docs/SEMANTICS.md).
        e.push_back({"Example1ExplicitPads", {1, 1, 3, 3}, x3,
                     make_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}, AutoPad::explicit_pads, Rounding::floor),
                     {1, 1, 4, 4},
                     {-1, 2, 3, 3, /**/ 4, 5, 5, 3 /* erratum: spec says -6 */, /**/ 4, 8, 9, 9, /**/ -7, 8, 9, 9},
                     {0, 1, 2, 2, /**/ 3, 4, 4, 2 /* erratum: spec says 5 */, /**/ 3, 7, 8, 8, /**/ 6, 7, 8, 8}});
        e.push_back({"Example2Valid1D", {1, 1, 7}, {-1, 2, 3, 5, -7, 9, 1},
                     make_attrs({3}, {1}, {}, {}, AutoPad::valid, Rounding::floor), {1, 1, 5}, {3, 5, 5, 9, 9},
                     {2, 3, 3, 5, 5}});
        e.push_back({"Example3SameLower", {1, 1, 3, 3}, x3,
                     make_attrs({2, 2}, {1, 1}, {}, {}, AutoPad::same_lower, Rounding::floor), {1, 1, 3, 3},
                     {-1, 2, 3, 4, 5, 5, 4, 8, 9}, {0, 1, 2, 3, 4, 4, 3, 7, 8}});
        std::vector<double> x4 = x3;
        for (double v : {2, -1, 5, 6, -7, 1, 8, 2, -3}) x4.push_back(v);
        e.push_back({"Example4SameUpper", {1, 2, 3, 3}, x4,
                     make_attrs({2, 2}, {1, 1}, {}, {}, AutoPad::same_upper, Rounding::floor), {1, 2, 3, 3},
                     {5, 5, 3, 8, 9, 9, 8, 9, 9, /**/ 6, 5, 5, 8, 2, 1, 8, 2, -3},
                     {4, 4, 2, 7, 8, 8, 7, 8, 8, /**/ 12, 11, 11, 15, 16, 14, 15, 16, 17}});
        e.push_back({"Example5CeilTorch", {1, 1, 3, 3}, n9,
                     make_attrs({2, 2}, {2, 2}, {1, 1}, {1, 1}, AutoPad::explicit_pads, Rounding::ceil_torch),
                     {1, 1, 2, 2}, {1, 3, 7, 9}, {0, 2, 6, 8}});
        e.push_back({"Example6ValidCeil", {1, 1, 3, 3}, x3,
                     make_attrs({2, 2}, {2, 2}, {}, {}, AutoPad::valid, Rounding::ceil), {1, 1, 2, 2}, {5, 3, 8, 9},
                     {4, 2, 7, 8}});
        e.push_back({"Example7Dilation", {1, 1, 3, 3}, n9,
                     make_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}, AutoPad::explicit_pads, Rounding::floor, {2, 2}),
                     {1, 1, 3, 3}, {5, 6, 5, 8, 9, 8, 5, 6, 5}, {4, 5, 4, 7, 8, 7, 4, 5, 4}});
        std::vector<double> x8;
        for (int i = 1; i <= 18; i++) x8.push_back(i);
        e.push_back({"Example8Axis2", {1, 2, 3, 3}, x8,
                     make_attrs({2, 2}, {1, 1}, {0, 0}, {0, 0}, AutoPad::explicit_pads, Rounding::floor, {1, 1}, 2),
                     {1, 2, 2, 2}, {5, 6, 8, 9, 14, 15, 17, 18}, {4, 5, 7, 8, 4, 5, 7, 8}});
        // Example 8 again with the default axis 0 (whole-tensor positions) and with axis -2 (= 2).
        e.push_back({"Example8Axis0", {1, 2, 3, 3}, x8,
                     make_attrs({2, 2}, {1, 1}, {0, 0}, {0, 0}, AutoPad::explicit_pads, Rounding::floor, {1, 1}, 0),
                     {1, 2, 2, 2}, {5, 6, 8, 9, 14, 15, 17, 18}, {4, 5, 7, 8, 13, 14, 16, 17}});
        e.push_back({"Example8AxisMinus2", {1, 2, 3, 3}, x8,
                     make_attrs({2, 2}, {1, 1}, {0, 0}, {0, 0}, AutoPad::explicit_pads, Rounding::floor, {1, 1}, -2),
                     {1, 2, 2, 2}, {5, 6, 8, 9, 14, 15, 17, 18}, {4, 5, 7, 8, 4, 5, 7, 8}});
        // ONNX MaxPool storage_order = 1 (the argmax test): 5x5 input 1..25, k=2, s=2.
        std::vector<double> x25;
        for (int i = 1; i <= 25; i++) x25.push_back(i);
        e.push_back({"OnnxStorageOrderColumnMajor", {1, 1, 5, 5}, x25,
                     make_attrs({2, 2}, {2, 2}, {}, {}, AutoPad::explicit_pads, Rounding::floor, {}, 0,
                                StorageOrder::column_major),
                     {1, 1, 2, 2}, {7, 9, 17, 19}, {6, 16, 8, 18}});
        e.push_back({"OnnxStorageOrderRowMajor", {1, 1, 5, 5}, x25,
                     make_attrs({2, 2}, {2, 2}, {}, {}, AutoPad::explicit_pads, Rounding::floor), {1, 1, 2, 2},
                     {7, 9, 17, 19}, {6, 8, 16, 18}});
        return e;
    }();
    return all;
}

// Element types each example runs in: every max_pool type its values fit.
std::vector<DType> types_for(const MaxPoolExample &e) {
    std::vector<DType> types = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8};
    if (std::all_of(e.input.begin(), e.input.end(), [](double v) { return v >= 0; })) types.push_back(DType::u8);
    return types;
}

using Runner = void (*)(const TensorView &, const TensorView &, const MaxPoolAttributes &, const TensorView *);

// Runs `e` in every type, without indices and with i64 and i32 indices, and checks every value
// and index. Returns nothing; failures are reported with the type and index type.
void check_example(const MaxPoolExample &e, Runner run, const char *who) {
    for (DType dtype : types_for(e)) {
        Tensor input = Tensor::dense(dtype, e.input_shape);
        input.set_values(e.input);
        Tensor expected = Tensor::dense(dtype, e.output_shape);
        expected.set_values(e.values);
        for (int variant = 0; variant < 3; variant++) {
            SCOPED_TRACE(std::string(who) + " " + e.name + " dtype " + dtype_name(dtype) + " indices " +
                         (variant == 0 ? "none" : variant == 1 ? "i64" : "i32"));
            Tensor output = Tensor::dense(dtype, e.output_shape);
            output.fill_bytes(0x5A);
            Tensor indices = Tensor::dense(variant == 2 ? DType::i32 : DType::i64, e.output_shape);
            indices.fill_bytes(0x5A);
            TensorView iv = indices.view();
            ASSERT_NO_THROW(run(input.view(), output.view(), e.attributes, variant == 0 ? nullptr : &iv));
            EXPECT_TRUE(test::tensors_match(output, expected));
            if (variant == 0) continue;
            for (int64_t i = 0; i < indices.element_count(); i++) {
                EXPECT_EQ(indices.get_int(i), e.indices[static_cast<std::size_t>(i)])
                    << "index at " << shape_to_string(indices.coords_of(i));
            }
        }
    }
}

void api_max_pool(const TensorView &x, const TensorView &y, const MaxPoolAttributes &a, const TensorView *i) {
    max_pool(x, y, a, i);
}
void reference_max_pool(const TensorView &x, const TensorView &y, const MaxPoolAttributes &a, const TensorView *i) {
    reference::max_pool(x, y, a, i);
}

// ---- Kernels, per ISA ----

class SpecExamples : public ::testing::TestWithParam<std::tuple<std::size_t, Isa>> {
protected:
    void SetUp() override {
        const Isa isa = std::get<1>(GetParam());
        if (!test::force_isa(isa)) {
            set_isa(Isa::best);
            GTEST_SKIP() << "this CPU lacks " << isa_name(isa);
        }
    }
    void TearDown() override { set_isa(Isa::best); }
};

TEST_P(SpecExamples, MaxPool) {
    const MaxPoolExample &e = examples()[std::get<0>(GetParam())];
    // The shape rules themselves.
    EXPECT_EQ(infer_pool_shape(e.input_shape, e.attributes).output_shape, e.output_shape);
    check_example(e, api_max_pool, "poolconv");
}

INSTANTIATE_TEST_SUITE_P(Spec, SpecExamples,
                         ::testing::Combine(::testing::Range<std::size_t>(0, examples().size()),
                                            ::testing::ValuesIn(test::all_isas())),
                         [](const ::testing::TestParamInfo<std::tuple<std::size_t, Isa>> &param_info) {
                             return examples()[std::get<0>(param_info.param)].name + "_" +
                                    isa_name(std::get<1>(param_info.param));
                         });

// ---- The reference ----

TEST(SpecExamplesReference, MaxPool) {
    for (const MaxPoolExample &e : examples()) check_example(e, reference_max_pool, "reference");
}

// ---- AvgPool divisors (hand-computed, not from the spec) ----

struct AvgExample {
    std::string name;
    Shape input_shape;
    std::vector<double> input;
    AvgPoolAttributes attributes;
    Shape output_shape;
    std::vector<double> values;
};

AvgPoolAttributes avg_attrs(Shape kernel, Shape strides, Shape pads_begin, Shape pads_end, AutoPad auto_pad,
                            Rounding rounding, AvgPadMode mode) {
    auto a = test::pool_attributes<AvgPoolAttributes>(std::move(kernel), std::move(strides), std::move(pads_begin),
                                                       std::move(pads_end), auto_pad, rounding);
    a.pad_mode = mode;
    return a;
}

const std::vector<AvgExample> &avg_examples() {
    static const std::vector<AvgExample> all = [] {
        std::vector<AvgExample> e;
        // 1D [1, 2, 3, 4], k=3, s=2, pads 1/1, ceil: windows cover [-1, 1], [1, 3], [3, 5].
        // The last one holds 4 and reaches past pads_end (position 5 >= 4 + 1).
        //   exclude_pad: 3/2, 9/3, 4/1. include_pad (PyTorch): positions in [-1, 5): 3/3, 9/3, 4/2.
        //   include_pad_openvino (pads non-zero): whole kernel, 3/3, 9/3, 4/3.
        const std::vector<double> x = {1, 2, 3, 4};
        e.push_back({"Ceil1DExclude", {1, 1, 4}, x,
                     avg_attrs({3}, {2}, {1}, {1}, AutoPad::explicit_pads, Rounding::ceil, AvgPadMode::exclude_pad),
                     {1, 1, 3}, {1.5, 3, 4}});
        e.push_back({"Ceil1DInclude", {1, 1, 4}, x,
                     avg_attrs({3}, {2}, {1}, {1}, AutoPad::explicit_pads, Rounding::ceil, AvgPadMode::include_pad),
                     {1, 1, 3}, {1, 3, 2}});
        e.push_back({"Ceil1DOpenVino", {1, 1, 4}, x,
                     avg_attrs({3}, {2}, {1}, {1}, AutoPad::explicit_pads, Rounding::ceil,
                               AvgPadMode::include_pad_openvino),
                     {1, 1, 3}, {1, 3, 4.0 / 3.0}});
        // 2D, Example 1's input, k=2, s=1, pads 1/1: the corner window [0,0] holds only -1.
        const std::vector<double> x3 = {-1, 2, 3, 4, 5, -6, -7, 8, 9};
        e.push_back({"Pads2DExclude", {1, 1, 3, 3}, x3,
                     avg_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}, AutoPad::explicit_pads, Rounding::floor,
                               AvgPadMode::exclude_pad),
                     {1, 1, 4, 4},
                     {-1, 0.5, 2.5, 3, /**/ 1.5, 2.5, 1, -1.5, /**/ -1.5, 2.5, 4, 1.5, /**/ -7, 0.5, 8.5, 9}});
        e.push_back({"Pads2DInclude", {1, 1, 3, 3}, x3,
                     avg_attrs({2, 2}, {1, 1}, {1, 1}, {1, 1}, AutoPad::explicit_pads, Rounding::floor,
                               AvgPadMode::include_pad),
                     {1, 1, 4, 4},
                     {-0.25, 0.25, 1.25, 0.75, /**/ 0.75, 2.5, 1, -0.75, /**/ -0.75, 2.5, 4, 0.75, /**/ -1.75, 0.25,
                      4.25, 2.25}});
        // valid, ceil, no pads: the divisor of a window clipped by ceil counts only real elements
        // in every mode (OpenVINO with all pads zero too). Window [1,1] holds only 9.
        for (AvgPadMode mode : {AvgPadMode::exclude_pad, AvgPadMode::include_pad, AvgPadMode::include_pad_openvino}) {
            e.push_back({std::string("ValidCeil_") + test::pad_mode_name(mode), {1, 1, 3, 3}, x3,
                         avg_attrs({2, 2}, {2, 2}, {}, {}, AutoPad::valid, Rounding::ceil, mode), {1, 1, 2, 2},
                         {2.5, -1.5, 0.5, 9}});
        }
        // All-padding windows: pads 2 with k=2 on a 1-element input. Windows [-2,-1], [-1,0], [0,1], [1,2].
        //   exclude_pad: 0 (no element), 5, 5, 0. include_pad: 0/2, 5/2, 5/2, 0/2. openvino: same (kernel 2).
        e.push_back({"AllPaddingExclude", {1, 1, 1}, {5},
                     avg_attrs({2}, {1}, {2}, {2}, AutoPad::explicit_pads, Rounding::floor, AvgPadMode::exclude_pad),
                     {1, 1, 4}, {0, 5, 5, 0}});
        e.push_back({"AllPaddingInclude", {1, 1, 1}, {5},
                     avg_attrs({2}, {1}, {2}, {2}, AutoPad::explicit_pads, Rounding::floor, AvgPadMode::include_pad),
                     {1, 1, 4}, {0, 2.5, 2.5, 0}});
        // same_upper with pads resolved to 0 (k=1): OpenVINO counts real elements only.
        e.push_back({"SameNoPadOpenVino", {1, 1, 2, 2}, {1, 2, 3, 4},
                     avg_attrs({1, 1}, {2, 2}, {}, {}, AutoPad::same_upper, Rounding::floor,
                               AvgPadMode::include_pad_openvino),
                     {1, 1, 1, 1}, {1}});
        // same_upper with a non-zero resolved pad: k=2, s=1 on [1, 2, 3] pads 0/1; last window [2, 3]
        // holds 3: exclude 3, include 3/2, openvino 3/2.
        e.push_back({"SameUpperOpenVino", {1, 1, 3}, {1, 2, 3},
                     avg_attrs({2}, {1}, {}, {}, AutoPad::same_upper, Rounding::floor,
                               AvgPadMode::include_pad_openvino),
                     {1, 1, 3}, {1.5, 2.5, 1.5}});
        return e;
    }();
    return all;
}

class AvgExamples : public ::testing::TestWithParam<std::tuple<std::size_t, Isa>> {
protected:
    void SetUp() override {
        const Isa isa = std::get<1>(GetParam());
        if (!test::force_isa(isa)) {
            set_isa(Isa::best);
            GTEST_SKIP() << "this CPU lacks " << isa_name(isa);
        }
    }
    void TearDown() override { set_isa(Isa::best); }
};

void check_avg(const AvgExample &e, bool use_reference) {
    for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
        SCOPED_TRACE(std::string(use_reference ? "reference " : "poolconv ") + e.name + " " + dtype_name(dtype));
        Tensor input = Tensor::dense(dtype, e.input_shape);
        input.set_values(e.input);
        Tensor expected = Tensor::dense(dtype, e.output_shape);
        expected.set_values(e.values);  // rounded to the type once
        Tensor output = Tensor::dense(dtype, e.output_shape);
        output.fill_bytes(0x5A);
        if (use_reference) {
            ASSERT_NO_THROW(reference::avg_pool(input.view(), output.view(), e.attributes));
        } else {
            ASSERT_NO_THROW(avg_pool(input.view(), output.view(), e.attributes));
        }
        // Every expected value but 4/3 is exact in each type; 4/3 may differ by one rounding step.
        test::CompareOptions o;
        o.ulp_tol = 1;
        EXPECT_TRUE(test::tensors_match(output, expected, o));
    }
}

TEST_P(AvgExamples, AvgPool) { check_avg(avg_examples()[std::get<0>(GetParam())], false); }

INSTANTIATE_TEST_SUITE_P(Hand, AvgExamples,
                         ::testing::Combine(::testing::Range<std::size_t>(0, avg_examples().size()),
                                            ::testing::ValuesIn(test::all_isas())),
                         [](const ::testing::TestParamInfo<std::tuple<std::size_t, Isa>> &param_info) {
                             return avg_examples()[std::get<0>(param_info.param)].name + "_" +
                                    isa_name(std::get<1>(param_info.param));
                         });

TEST(AvgExamplesReference, AvgPool) {
    for (const AvgExample &e : avg_examples()) check_avg(e, true);
}

// ---- OpenVINO Convolution-1 (openvino-convolution-1.ja.txt): its three examples ----

struct ConvExample {
    const char *name;
    Shape input, weights;
    ConvAttributes attributes;
    Shape output;
};

std::vector<ConvExample> conv_examples() {
    ConvAttributes one_d;  // strides 2, auto_pad valid
    one_d.strides = {2};
    one_d.auto_pad = AutoPad::valid;
    ConvAttributes two_d;  // pads 2
    two_d.strides = {1, 1};
    two_d.dilations = {1, 1};
    two_d.pads_begin = {2, 2};
    two_d.pads_end = {2, 2};
    ConvAttributes three_d;  // dilations 2, strides 3
    three_d.strides = {3, 3, 3};
    three_d.dilations = {2, 2, 2};
    three_d.pads_begin = {0, 0, 0};
    three_d.pads_end = {0, 0, 0};
    return {{"1D", {1, 5, 128}, {16, 5, 4}, one_d, {1, 16, 63}},
            {"2D", {1, 3, 224, 224}, {64, 3, 5, 5}, two_d, {1, 64, 224, 224}},
            {"3D", {1, 7, 320, 320, 320}, {32, 7, 3, 3, 3}, three_d, {1, 32, 106, 106, 106}}};
}

TEST(ConvSpecExamples, Shapes) {
    for (const ConvExample &e : conv_examples()) {
        SCOPED_TRACE(e.name);
        const ConvGeometry g = infer_conv_shape(e.input, e.weights, e.attributes);
        EXPECT_EQ(g.output_shape, e.output);
    }
}

// The examples executed: 1-D at full size, 2-D and 3-D on smaller inputs with the same attributes
// and weights (the 3-D one at 320^3 would be 229M inputs), against the reference, on every ISA.
// Dyadic data: exact.
using ConvSpecExecuted = test::IsaTest;

TEST_P(ConvSpecExecuted, AgainstReference) {
    test::Rng rng(77);
    const Shape reduced_inputs[] = {{1, 5, 128}, {1, 3, 24, 19}, {1, 7, 20, 17, 23}};
    const Shape reduced_outputs[] = {{1, 16, 63}, {1, 64, 24, 19}, {1, 32, 6, 5, 7}};
    const std::vector<ConvExample> examples = conv_examples();
    for (std::size_t i = 0; i < examples.size(); i++) {
        const ConvExample &e = examples[i];
        SCOPED_TRACE(e.name);
        ASSERT_EQ(infer_conv_shape(reduced_inputs[i], e.weights, e.attributes).output_shape, reduced_outputs[i]);
        Tensor x = Tensor::dense(DType::f32, reduced_inputs[i]), w = Tensor::dense(DType::f32, e.weights);
        Tensor b = Tensor::dense(DType::f32, {e.weights[0]});
        for (Tensor *t : {&x, &w, &b}) test::fill_random(*t, rng, {});
        Tensor want = Tensor::dense(DType::f32, reduced_outputs[i]), got = Tensor::dense(DType::f32, reduced_outputs[i]);
        const TensorView bias = b.view();
        reference::convolution(x.view(), w.view(), &bias, want.view(), e.attributes);
        convolution(x.view(), w.view(), &bias, got.view(), e.attributes);
        EXPECT_TRUE(test::tensors_match(got, want));
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvSpecExecuted, ::testing::ValuesIn(test::all_isas()), test::isa_param_name);

}  // namespace
}  // namespace poolconv
