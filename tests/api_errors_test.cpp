// Bad arguments through the API: each gives poolconv::Error (never a crash or another exception)
// with a message naming the problem, and leaves every output untouched.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace poolconv {
namespace {

using test::Tensor;
using Shape = std::vector<int64_t>;

constexpr uint8_t kSentinel = 0xC3;

using test::expect_error;

bool untouched(const Tensor &t) {
    const auto *bytes = static_cast<const uint8_t *>(t.data());
    for (std::size_t i = 0; i < t.storage_bytes(); i++) {
        if (bytes[i] != kSentinel) return false;
    }
    return true;
}

MaxPoolAttributes max_attrs() {
    MaxPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    return a;
}
AvgPoolAttributes avg_attrs() {
    AvgPoolAttributes a;
    a.kernel = {2, 2};
    a.strides = {2, 2};
    return a;
}

// A valid max_pool setup: [1,2,4,4] -> [1,2,2,2], whose pieces each test breaks one at a time.
struct ValidCall {
    Tensor input = Tensor::dense(DType::f32, {1, 2, 4, 4});
    Tensor output = Tensor::dense(DType::f32, {1, 2, 2, 2});
    Tensor indices = Tensor::dense(DType::i64, {1, 2, 2, 2});
    ValidCall() {
        for (int64_t i = 0; i < input.element_count(); i++) input.set(i, static_cast<double>(i));
        output.fill_bytes(kSentinel);
        indices.fill_bytes(kSentinel);
    }
};

TEST(ApiErrors, ValidSetupWorks) {
    ValidCall s;
    TensorView iv = s.indices.view();
    ASSERT_NO_THROW(max_pool(s.input.view(), s.output.view(), max_attrs(), &iv));
    EXPECT_EQ(s.output.get(0), 5);
    EXPECT_EQ(s.indices.get_int(7), 31);
}

TEST(ApiErrors, UnsupportedInputTypes) {
    Tensor in32 = Tensor::dense(DType::i32, {1, 1, 4, 4}), out32 = Tensor::dense(DType::i32, {1, 1, 2, 2});
    out32.fill_bytes(kSentinel);
    expect_error([&] { max_pool(in32.view(), out32.view(), max_attrs()); }, {"max_pool", "i32", "not supported"});
    EXPECT_TRUE(untouched(out32));
    Tensor in64 = Tensor::dense(DType::i64, {1, 1, 4, 4}), out64 = Tensor::dense(DType::i64, {1, 1, 2, 2});
    out64.fill_bytes(kSentinel);
    expect_error([&] { max_pool(in64.view(), out64.view(), max_attrs()); }, {"i64", "not supported"});
    EXPECT_TRUE(untouched(out64));
    for (DType t : {DType::i8, DType::u8, DType::i32, DType::i64}) {
        Tensor in = Tensor::dense(t, {1, 1, 4, 4}), out = Tensor::dense(t, {1, 1, 2, 2});
        out.fill_bytes(kSentinel);
        expect_error([&] { avg_pool(in.view(), out.view(), avg_attrs()); }, {"avg_pool", dtype_name(t), "not supported"});
        EXPECT_TRUE(untouched(out));
    }
}

// max_pool and avg_pool with window `a` on an f32 input of `input_shape` both refuse the call for
// the scratch limit, with a clear error, before anything is written.
void expect_scratch_limit_refusal(const Shape &input_shape, const PoolAttributes &a) {
    Tensor in = Tensor::dense(DType::f32, input_shape);
    const Shape out_shape = infer_pool_shape(in.shape(), a).output_shape;
    Tensor out = Tensor::dense(DType::f32, out_shape);
    out.fill_bytes(kSentinel);
    MaxPoolAttributes max_a;
    static_cast<PoolAttributes &>(max_a) = a;
    expect_error([&] { max_pool(in.view(), out.view(), max_a); }, {"max_pool", "padded plane", "scratch limit"});
    AvgPoolAttributes avg;
    static_cast<PoolAttributes &>(avg) = a;
    expect_error([&] { avg_pool(in.view(), out.view(), avg); }, {"avg_pool", "scratch limit"});
    EXPECT_TRUE(untouched(out));
}

// Windows reaching hundreds of millions of elements past a small input (a huge dilated kernel
// with same padding) would need a padded scratch plane beyond Halide's 2^31 - 1 bytes.
TEST(ApiErrors, WindowsBeyondTheScratchLimit) {
    PoolAttributes a;
    a.kernel = {5, 151060736};
    a.strides = {2, 4};
    a.dilations = {1, 3};
    a.auto_pad = AutoPad::same_lower;
    expect_scratch_limit_refusal({1, 1, 4, 6}, a);
}

// A 1-D call's padded row is one row of the kernels' y axis, which the padded kernels step two
// rows at a time: a row of 1.6 GB (f32) needs a 3.2 GB scratch plane (counted as one row, the
// kernel itself failed on Halide's allocation limit).
TEST(ApiErrors, OneDimensionalWindowsBeyondTheScratchLimit) {
    PoolAttributes a;
    a.kernel = {2};
    a.dilations = {400000000};
    a.auto_pad = AutoPad::same_lower;
    expect_scratch_limit_refusal({1, 1, 4}, a);
}

TEST(ApiErrors, OutputShapeOrTypeMismatch) {
    ValidCall s;
    Tensor wrong_shape = Tensor::dense(DType::f32, {1, 2, 2, 3});
    wrong_shape.fill_bytes(kSentinel);
    expect_error([&] { max_pool(s.input.view(), wrong_shape.view(), max_attrs()); }, {"output", "shape", "[1,2,2,2]"});
    EXPECT_TRUE(untouched(wrong_shape));
    Tensor wrong_rank = Tensor::dense(DType::f32, {2, 2, 2});
    wrong_rank.fill_bytes(kSentinel);
    expect_error([&] { max_pool(s.input.view(), wrong_rank.view(), max_attrs()); }, {"output", "shape"});
    EXPECT_TRUE(untouched(wrong_rank));
    Tensor wrong_type = Tensor::dense(DType::f16, {1, 2, 2, 2});
    wrong_type.fill_bytes(kSentinel);
    expect_error([&] { max_pool(s.input.view(), wrong_type.view(), max_attrs()); }, {"output", "dtype", "f16"});
    expect_error([&] { avg_pool(s.input.view(), wrong_type.view(), avg_attrs()); }, {"avg_pool", "output", "dtype"});
    EXPECT_TRUE(untouched(wrong_type));
    Tensor avg_shape = Tensor::dense(DType::f32, {1, 2, 3, 3});
    avg_shape.fill_bytes(kSentinel);
    expect_error([&] { avg_pool(s.input.view(), avg_shape.view(), avg_attrs()); }, {"avg_pool", "output", "shape"});
    EXPECT_TRUE(untouched(avg_shape));
}

TEST(ApiErrors, BadIndices) {
    ValidCall s;
    Tensor f32_indices = Tensor::dense(DType::f32, {1, 2, 2, 2});
    f32_indices.fill_bytes(kSentinel);
    TensorView fv = f32_indices.view();
    expect_error([&] { max_pool(s.input.view(), s.output.view(), max_attrs(), &fv); }, {"indices", "f32"});
    EXPECT_TRUE(untouched(f32_indices));
    EXPECT_TRUE(untouched(s.output));

    Tensor bad_shape = Tensor::dense(DType::i64, {1, 2, 2, 1});
    bad_shape.fill_bytes(kSentinel);
    TensorView bv = bad_shape.view();
    expect_error([&] { max_pool(s.input.view(), s.output.view(), max_attrs(), &bv); }, {"indices", "shape"});
    EXPECT_TRUE(untouched(bad_shape));
    EXPECT_TRUE(untouched(s.output));
}

TEST(ApiErrors, NullData) {
    ValidCall s;
    TensorView null_input = s.input.view();
    null_input.data = nullptr;
    expect_error([&] { max_pool(null_input, s.output.view(), max_attrs()); }, {"input", "null"});
    expect_error([&] { avg_pool(null_input, s.output.view(), avg_attrs()); }, {"input", "null"});
    EXPECT_TRUE(untouched(s.output));
    TensorView null_output = s.output.view();
    null_output.data = nullptr;
    expect_error([&] { max_pool(s.input.view(), null_output, max_attrs()); }, {"output", "null"});
    TensorView null_indices = s.indices.view();
    null_indices.data = nullptr;
    expect_error([&] { max_pool(s.input.view(), s.output.view(), max_attrs(), &null_indices); }, {"indices", "null"});
    EXPECT_TRUE(untouched(s.output));
}

TEST(ApiErrors, EmptyTensorsAreANoOp) {
    // No elements: null data is fine and nothing runs.
    TensorView in = TensorView::dense(DType::f32, {0, 2, 4, 4}, static_cast<void *>(nullptr));
    TensorView out = TensorView::dense(DType::f32, {0, 2, 2, 2}, static_cast<void *>(nullptr));
    EXPECT_NO_THROW(max_pool(in, out, max_attrs()));
    EXPECT_NO_THROW(avg_pool(in, out, avg_attrs()));
    TensorView idx = TensorView::dense(DType::i32, {0, 2, 2, 2}, static_cast<void *>(nullptr));
    EXPECT_NO_THROW(max_pool(in, out, max_attrs(), &idx));
}

TEST(ApiErrors, BadStrides) {
    ValidCall s;
    // Innermost stride 2: a view of every other column.
    Tensor wide = Tensor::dense(DType::f32, {1, 2, 4, 8});
    TensorView strided{DType::f32, {1, 2, 4, 4}, {64, 32, 8, 2}, wide.data()};
    expect_error([&] { max_pool(strided, s.output.view(), max_attrs()); }, {"input", "contiguous"});
    Tensor out_storage = Tensor::dense(DType::f32, {1, 2, 2, 4});
    out_storage.fill_bytes(kSentinel);
    TensorView out_strided{DType::f32, {1, 2, 2, 2}, {16, 8, 4, 2}, out_storage.data()};
    expect_error([&] { max_pool(s.input.view(), out_strided, max_attrs()); }, {"output", "contiguous"});
    expect_error([&] { avg_pool(s.input.view(), out_strided, avg_attrs()); }, {"output", "contiguous"});
    EXPECT_TRUE(untouched(out_storage));
    Tensor idx_storage = Tensor::dense(DType::i64, {1, 2, 2, 4});
    idx_storage.fill_bytes(kSentinel);
    TensorView idx_strided{DType::i64, {1, 2, 2, 2}, {16, 8, 4, 2}, idx_storage.data()};
    expect_error([&] { max_pool(s.input.view(), s.output.view(), max_attrs(), &idx_strided); }, {"indices", "contiguous"});
    EXPECT_TRUE(untouched(idx_storage));
    EXPECT_TRUE(untouched(s.output));
    // Wrong number of strides; zero and negative strides.
    TensorView few{DType::f32, {1, 2, 4, 4}, {32, 16, 1}, s.input.data()};
    expect_error([&] { max_pool(few, s.output.view(), max_attrs()); }, {"input", "strides"});
    TensorView zero{DType::f32, {1, 2, 4, 4}, {32, 0, 4, 1}, s.input.data()};
    expect_error([&] { max_pool(zero, s.output.view(), max_attrs()); }, {"input", "stride[1]"});
    TensorView negative{DType::f32, {1, 2, 4, 4}, {32, 16, -4, 1}, s.input.data()};
    expect_error([&] { max_pool(negative, s.output.view(), max_attrs()); }, {"input", "stride[2]"});
    EXPECT_TRUE(untouched(s.output));
}

TEST(ApiErrors, AxisOutOfRange) {
    ValidCall s;
    TensorView iv = s.indices.view();
    for (int64_t axis : {4, 5, -5, -100}) {
        MaxPoolAttributes a = max_attrs();
        a.axis = axis;
        expect_error([&] { max_pool(s.input.view(), s.output.view(), a, &iv); }, {"axis", std::to_string(axis)});
    }
    EXPECT_TRUE(untouched(s.output));
    EXPECT_TRUE(untouched(s.indices));
    // Every axis in [-rank, rank) is accepted.
    for (int64_t axis = -4; axis < 4; axis++) {
        MaxPoolAttributes a = max_attrs();
        a.axis = axis;
        EXPECT_NO_THROW(max_pool(s.input.view(), s.output.view(), a, &iv)) << "axis " << axis;
    }
}

TEST(ApiErrors, ColumnMajorNeedsAxisAtMostTwo) {
    ValidCall s;
    TensorView iv = s.indices.view();
    MaxPoolAttributes a = max_attrs();
    a.storage_order = StorageOrder::column_major;
    a.axis = 3;
    expect_error([&] { max_pool(s.input.view(), s.output.view(), a, &iv); }, {"column_major", "axis"});
    a.axis = -1;  // = 3
    expect_error([&] { max_pool(s.input.view(), s.output.view(), a, &iv); }, {"column_major", "axis"});
    EXPECT_TRUE(untouched(s.output));
    EXPECT_TRUE(untouched(s.indices));
    a.axis = -2;  // = 2: fine
    EXPECT_NO_THROW(max_pool(s.input.view(), s.output.view(), a, &iv));
}

TEST(ApiErrors, TooManyElements) {
    // 2^32 elements: rejected from the shapes alone, before any memory is touched (the pointer is
    // fake and must never be dereferenced).
    void *fake = reinterpret_cast<void *>(uintptr_t(0x1000));
    const TensorView huge_in = TensorView::dense(DType::f32, {1, 1, 65536, 65536}, fake);
    MaxPoolAttributes a;
    a.kernel = {1, 1};
    a.strides = {65536, 65536};
    Tensor out = Tensor::dense(DType::f32, {1, 1, 1, 1});
    out.fill_bytes(kSentinel);
    expect_error([&] { max_pool(huge_in, out.view(), a); }, {"input", "elements", "2^31"});
    AvgPoolAttributes b;
    b.kernel = {1, 1};
    b.strides = {65536, 65536};
    expect_error([&] { avg_pool(huge_in, out.view(), b); }, {"input", "elements"});
    EXPECT_TRUE(untouched(out));
    // A small input whose output would exceed the limit (huge pads): also rejected up front.
    Tensor small = Tensor::dense(DType::f32, {1, 1, 1, 1});
    MaxPoolAttributes p;
    p.kernel = {1, 1};
    p.pads_begin = {40000, 40000};
    p.pads_end = {40000, 40000};
    const TensorView huge_out = TensorView::dense(DType::f32, {1, 1, 80001, 80001}, fake);
    expect_error([&] { max_pool(small.view(), huge_out, p); }, {"output", "elements"});
}

TEST(ApiErrors, AttributeErrorsNameTheOperatorAndAttribute) {
    ValidCall s;
    MaxPoolAttributes a = max_attrs();
    a.kernel = {2, 0};
    expect_error([&] { max_pool(s.input.view(), s.output.view(), a); }, {"max_pool", "kernel[1]"});
    AvgPoolAttributes b = avg_attrs();
    b.strides = {2};
    expect_error([&] { avg_pool(s.input.view(), s.output.view(), b); }, {"avg_pool", "strides"});
    b = avg_attrs();
    b.pads_end = {0, -1};
    expect_error([&] { avg_pool(s.input.view(), s.output.view(), b); }, {"avg_pool", "pads_end[1]"});
    b = avg_attrs();
    b.dilations = {1, 0};
    expect_error([&] { avg_pool(s.input.view(), s.output.view(), b); }, {"avg_pool", "dilations[1]"});
    // Rank 2 and 6 inputs.
    Tensor rank2 = Tensor::dense(DType::f32, {4, 4});
    a = max_attrs();
    expect_error([&] { max_pool(rank2.view(), s.output.view(), a); }, {"max_pool", "rank"});
    Tensor rank6 = Tensor::dense(DType::f32, {1, 1, 2, 2, 2, 2});
    a.kernel = {1, 1, 1, 1};
    expect_error([&] { max_pool(rank6.view(), s.output.view(), a); }, {"max_pool", "rank"});
    // Output below 1.
    a = max_attrs();
    a.kernel = {5, 5};
    expect_error([&] { max_pool(s.input.view(), s.output.view(), a); }, {"max_pool", "output size"});
    EXPECT_TRUE(untouched(s.output));
}

TEST(ApiErrors, WindowBeyondKernelRange) {
    // Attributes valid for shape inference but beyond the kernels' 32-bit coordinates.
    ValidCall s;
    MaxPoolAttributes a = max_attrs();
    a.strides = {int64_t(1) << 33, 2};  // one output row either way
    Tensor out = Tensor::dense(DType::f32, {1, 2, 1, 2});
    out.fill_bytes(kSentinel);
    expect_error([&] { max_pool(s.input.view(), out.view(), a); }, {"strides[0]"});
    EXPECT_TRUE(untouched(out));
}

TEST(ApiErrors, StridesSpanningMoreThan2GiB) {
    // Few elements, but strides that place them more than 2^31 elements apart: the kernels index
    // with 32-bit arithmetic, so this must be an Error (or, if ever supported, the right answer),
    // never a wild access. The memory is reserved, not committed: only three pages are touched.
    const std::size_t span = (std::size_t(1) << 31) + 4096;
    void *p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) GTEST_SKIP() << "cannot reserve 2 GiB of address space here";
    auto *bytes = static_cast<uint8_t *>(p);
    const int64_t s0 = (int64_t(1) << 30) + 1;
    bytes[0] = 1;
    bytes[s0] = 2;
    bytes[2 * s0] = 3;
    MaxPoolAttributes a;
    a.kernel = {1, 1};
    const TensorView far_input{DType::u8, {3, 1, 1, 1}, {s0, 1, 1, 1}, p};
    Tensor out = Tensor::dense(DType::u8, {3, 1, 1, 1});
    out.fill_bytes(kSentinel);
    try {
        max_pool(far_input, out.view(), a);
        EXPECT_EQ(out.get(0), 1);
        EXPECT_EQ(out.get(1), 2);
        EXPECT_EQ(out.get(2), 3);
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("input"), std::string::npos) << e.what();
        EXPECT_TRUE(untouched(out));
    }
    // The same for the output.
    Tensor small = Tensor::dense(DType::u8, {3, 1, 1, 1});
    small.set_values({7, 8, 9});
    const TensorView far_output{DType::u8, {3, 1, 1, 1}, {s0, 1, 1, 1}, p};
    try {
        max_pool(small.view(), far_output, a);
        EXPECT_EQ(bytes[0], 7);
        EXPECT_EQ(bytes[s0], 8);
        EXPECT_EQ(bytes[2 * s0], 9);
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("output"), std::string::npos) << e.what();
        EXPECT_EQ(bytes[0], 1);
        EXPECT_EQ(bytes[s0], 2);
        EXPECT_EQ(bytes[2 * s0], 3);
    }
    munmap(p, span);
}

TEST(ApiErrors, RuntimeSettingsAndNames) {
    expect_error([] { set_num_threads(-1); }, {"threads"});
    expect_error([] { (void)dtype_from_name("f128"); }, {"f128"});
    EXPECT_EQ(dtype_from_name("bf16"), DType::bf16);
    EXPECT_STREQ(dtype_name(DType::u8), "u8");
    EXPECT_EQ(dtype_size(DType::bf16), 2u);
    // element_count overflow is an Error too.
    TensorView t = TensorView::dense(DType::f32, {int64_t(1) << 40, int64_t(1) << 40}, static_cast<void *>(nullptr));
    expect_error([&] { (void)t.element_count(); }, {"overflow"});
    // Unless a dimension is 0: then the count is 0, whatever the others (fuzz_npy).
    t.shape = {int64_t(1) << 40, int64_t(1) << 40, 0};
    EXPECT_EQ(t.element_count(), 0);
}

// ---- convolution ----

TEST(ApiErrors, ConvolutionArguments) {
    Tensor x = Tensor::dense(DType::f32, {1, 4, 6, 6}), w = Tensor::dense(DType::f32, {6, 2, 3, 3});
    Tensor b = Tensor::dense(DType::f32, {6}), y = Tensor::dense(DType::f32, {1, 6, 4, 4});
    y.fill_bytes(kSentinel);
    ConvAttributes a;
    a.group = 2;
    const TensorView bias = b.view();
    auto conv = [&](const Tensor &input, const Tensor &weights, const TensorView *bias_view, const Tensor &output,
                    const ConvAttributes &attributes) {
        return [&, bias_view] { convolution(input.view(), weights.view(), bias_view, output.view(), attributes); };
    };
    // Channel counts.
    ConvAttributes g1 = a;
    g1.group = 1;
    expect_error(conv(x, w, &bias, y, g1), {"input has 4 channels", "expect 2"});
    ConvAttributes g4 = a;
    g4.group = 4;
    expect_error(conv(x, w, &bias, y, g4), {"6 output channels", "group 4"});
    ConvAttributes g0 = a;
    g0.group = 0;
    expect_error(conv(x, w, &bias, y, g0), {"group must be >= 1"});
    // Ranks.
    Tensor w1d = Tensor::dense(DType::f32, {6, 2, 3});
    expect_error(conv(x, w1d, &bias, y, a), {"1 kernel dimensions", "2 spatial dimensions"});
    Tensor w_bad = Tensor::dense(DType::f32, {6, 2});
    expect_error(conv(x, w_bad, &bias, y, a), {"weights must have rank 3 to 5"});
    ConvAttributes grouped = a;
    grouped.weights_layout = WeightsLayout::grouped;
    grouped.group = 3;
    Tensor wg = Tensor::dense(DType::f32, {2, 3, 2, 3, 3});
    expect_error(conv(x, wg, &bias, y, grouped), {"group 3 does not match", "2 groups"});
    // Bias, dtypes, output, attributes.
    Tensor b5 = Tensor::dense(DType::f32, {5});
    const TensorView bias5 = b5.view();
    expect_error(conv(x, w, &bias5, y, a), {"bias has shape [5], expected [6]"});
    Tensor bh = Tensor::dense(DType::f16, {6});
    const TensorView bias_h = bh.view();
    expect_error(conv(x, w, &bias_h, y, a), {"bias has dtype f16, expected f32"});
    Tensor xi = Tensor::dense(DType::i8, {1, 4, 6, 6}), wi = Tensor::dense(DType::i8, {6, 2, 3, 3});
    expect_error(conv(xi, wi, nullptr, y, a), {"weights dtype i8 is not supported"});
    Tensor xh = Tensor::dense(DType::f16, {1, 4, 6, 6});
    expect_error(conv(xh, w, &bias, y, a), {"input has dtype f16 but the weights are f32"});
    Tensor y_bad = Tensor::dense(DType::f32, {1, 6, 5, 4});
    y_bad.fill_bytes(kSentinel);
    expect_error(conv(x, w, &bias, y_bad, a), {"output has shape [1,6,5,4], expected [1,6,4,4]"});
    EXPECT_TRUE(untouched(y_bad));
    ConvAttributes strides = a;
    strides.strides = {0, 1};
    expect_error(conv(x, w, &bias, y, strides), {"strides[0] must be >= 1"});
    ConvAttributes pads = a;
    pads.pads_begin = {1};
    expect_error(conv(x, w, &bias, y, pads), {"pads_begin has 1 values"});
    ConvAttributes clamp = a;
    clamp.activation = Activation::clamp;
    clamp.clamp_min = 1;
    clamp.clamp_max = 0;
    expect_error(conv(x, w, &bias, y, clamp), {"clamp_min", "clamp_max"});
    ConvAttributes too_far = a;
    too_far.pads_end = {0, std::numeric_limits<int64_t>::max()};
    expect_error([&] { (void)infer_conv_shape(x.shape(), w.shape(), too_far); }, {"overflow"});
    // Representable, but beyond the coordinates the kernels compute in: shape inference says so.
    too_far.pads_end = {0, int64_t(1) << 62};
    expect_error([&] { (void)infer_conv_shape(x.shape(), w.shape(), too_far); },
                 {"convolution: window reach[1]", "exceeds the kernels' 32-bit range"});
    EXPECT_TRUE(untouched(y));
    // A prepared convolution checks its inputs on every run.
    const PreparedConvolution prepared(w.view(), &bias, a);
    Tensor x3 = Tensor::dense(DType::f32, {1, 3, 6, 6});
    expect_error([&] { prepared.run(x3.view(), y.view()); }, {"input has 3 channels"});
    EXPECT_TRUE(untouched(y));
}

}  // namespace
}  // namespace poolconv
