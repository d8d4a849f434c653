// Randomized comparison of the AOT kernels against the plain C++ reference: thousands of attribute
// combinations (ranks 3-5, batch > 1, odd sizes, strides 1-4, kernels 1-5, dilations 1-3,
// asymmetric and oversized pads, every auto_pad and rounding, every axis and storage order, every
// element and index type), each instruction set forced in turn, plus global pooling, non-dense
// views and a few targeted edge cases (windows of -inf, of padding only, of NaNs). The max_pool runs
// come in two flavours: finite data, and data with NaN and +-inf injected, so a NaN bug does not
// hide a geometry bug or the other way round.
//
// Seeds are fixed, so a failure reproduces; the first few failing configurations of a test are
// printed in full (shape, type, every attribute, ISA, and the input values when small), then a count.
//
// Tolerances:
//   - max_pool values and all indices: exact. A max is a copy of an input element, so any difference
//     is a bug; NaN outputs must sit at the same positions.
//   - avg_pool f32: |got - expected| <= 1e-5 * |expected| + 1e-5 * max|input|. The kernels sum up to
//     5^3 = 125 taps in f32 (the reference in double): each addition errs by at most 2^-24 of a partial
//     sum of at most 125 * max|input|, so the average errs by at most 125 * 2^-24 * max|input| ~
//     7.5e-6 * max|input| (worst case; cancellation makes a relative bound alone useless).
//   - avg_pool f64: the same bound with 2^-53 for 2^-24: 1e-13 * |expected| + 1e-13 * max|input|
//     (125 * 2^-53 ~ 1.4e-14), far below what an f32 accumulation errs by (which this catches).
//   - avg_pool f16/bf16: 1 unit in the last place of the output type. The inputs are small dyadic
//     numbers (multiples of 1/4 up to 3), so the kernels' f32 sums are exact; the only difference
//     left is rounding the quotient to f32 and then to f16/bf16 (the reference rounds once from
//     double), and double rounding moves a result by at most one unit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "poolconv/kernel_override.h"
#include "tests/test_util.h"

struct halide_buffer_t;  // the kernels' buffer type (HalideRuntime.h), only passed through here

namespace poolconv {
namespace {

using test::Rng;
using test::Tensor;
using Shape = std::vector<int64_t>;

using test::chance;
using test::uniform;

// An input shape and pooling attributes with a valid geometry and a small output.
struct Geometry {
    Shape input_shape;
    PoolAttributes attributes;
    Shape output_shape;
};

Geometry random_geometry(Rng &rng, int rank) {
    const int spatial = rank - 2;
    for (;;) {
        Geometry g;
        g.input_shape = Shape{uniform(rng, 1, 3), uniform(rng, 1, 5)};
        // Mostly 1..13 per spatial dim (3D: 1..7); sometimes a wide innermost dim so full vectors
        // (up to 64 lanes for i8 on AVX-512) and the unrolled kernel_x/stride_x specializations run.
        const bool wide = spatial < 3 && chance(rng, 0.2);
        for (int i = 0; i < spatial; i++) {
            const bool last = i == spatial - 1;
            g.input_shape.push_back(wide && last ? uniform(rng, 14, 80) : uniform(rng, 1, spatial == 3 ? 7 : 13));
        }
        PoolAttributes &a = g.attributes;
        const bool default_strides = chance(rng, 0.1), default_dilations = chance(rng, 0.4);
        for (int i = 0; i < spatial; i++) {
            const int k = uniform(rng, 1, 5);
            const int s = uniform(rng, 1, 4);
            const int d = chance(rng, 0.6) ? 1 : uniform(rng, 2, 3);
            a.kernel.push_back(k);
            if (!default_strides) a.strides.push_back(s);
            if (!default_dilations) a.dilations.push_back(d);
            const int dk = (k - 1) * (default_dilations ? 1 : d) + 1;
            // Asymmetric pads, sometimes as large as the dilated kernel (windows of padding only).
            const int max_pad = chance(rng, 0.7) ? dk / 2 : dk + 1;
            a.pads_begin.push_back(uniform(rng, 0, max_pad));
            a.pads_end.push_back(uniform(rng, 0, max_pad));
        }
        const int mode = uniform(rng, 0, 19);
        a.auto_pad = mode < 11 ? AutoPad::explicit_pads
                     : mode < 14 ? AutoPad::valid
                     : mode < 17 ? AutoPad::same_upper
                                 : AutoPad::same_lower;
        a.rounding = static_cast<Rounding>(uniform(rng, 0, 2));
        try {
            g.output_shape = infer_pool_shape(g.input_shape, a).output_shape;
        } catch (const Error &) {
            continue;  // output < 1: draw again
        }
        return g;
    }
}

int random_rank(Rng &rng) { return uniform(rng, 3, 5); }

std::string context(int iteration, const char *what, DType dtype, const Geometry &g, const std::string &attributes) {
    std::ostringstream s;
    s << what << " iteration " << iteration << ": dtype " << dtype_name(dtype) << ", input "
      << shape_to_string(g.input_shape) << ", output " << shape_to_string(g.output_shape) << ", " << attributes
      << ", isa " << isa_name(active_isa());
    return s.str();
}

constexpr DType kMaxPoolTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8, DType::u8};
constexpr DType kAvgPoolTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64};
constexpr int kLastAvgPoolType = static_cast<int>(std::size(kAvgPoolTypes)) - 1;
constexpr DType kFloatTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64};  // MaxPool's float types

// Data for max_pool: mostly values from a small set (ties everywhere); with `specials`, floats also
// get NaN and +-inf (the finite runs keep the two concerns apart in the report).
test::FillOptions max_pool_fill(Rng &rng, bool specials) {
    test::FillOptions o;
    o.ties = chance(rng, 0.75);
    o.nan_probability = specials && chance(rng, 0.6) ? 0.08 : 0.0;
    o.inf_probability = specials && chance(rng, 0.5) ? 0.08 : 0.0;
    return o;
}

std::string describe_fill(const test::FillOptions &o) {
    std::ostringstream s;
    s << "data " << (o.ties ? "small-set (ties)" : "uniform");
    if (o.nan_probability > 0) s << " +NaN";
    if (o.inf_probability > 0) s << " +inf";
    return s.str();
}

// The input values, for a failure message about a small tensor.
std::string dump_small(const Tensor &t) {
    if (t.element_count() > 64) return "";
    std::ostringstream s;
    s << "\n  input values (row-major):";
    for (int64_t i = 0; i < t.element_count(); i++) s << " " << t.get(i);
    return s.str();
}

using RandomPooling = test::IsaTest;

// ---- max_pool, values only, every type ----

void random_max_pool_values(uint64_t seed, int iterations, bool specials) {
    Rng rng(seed);
    test::FailureBudget budget;
    for (int it = 0; it < iterations; it++) {
        const Geometry g = random_geometry(rng, random_rank(rng));
        MaxPoolAttributes a;
        static_cast<PoolAttributes &>(a) = g.attributes;
        const DType dtype = kMaxPoolTypes[uniform(rng, 0, 5)];
        const test::FillOptions fill = max_pool_fill(rng, specials);
        Tensor input = Tensor::dense(dtype, g.input_shape);
        test::fill_random(input, rng, fill);
        Tensor expected = Tensor::dense(dtype, g.output_shape), got = Tensor::dense(dtype, g.output_shape);
        reference::max_pool(input.view(), expected.view(), a);
        const std::string where =
            context(it, "max_pool", dtype, g, test::describe(a) + ", " + describe_fill(fill)) + dump_small(input);
        try {
            max_pool(input.view(), got.view(), a);
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            continue;
        }
        budget.check(test::tensors_match(got, expected), where);
    }
}

TEST_P(RandomPooling, MaxPoolValues) { random_max_pool_values(1001, 6000, false); }
TEST_P(RandomPooling, MaxPoolValuesNaNInf) { random_max_pool_values(1002, 3000, true); }

// ---- max_pool with indices: every axis, storage order and index type ----

void random_max_pool_indices(uint64_t seed, int iterations, bool specials) {
    Rng rng(seed);
    test::FailureBudget budget;
    for (int it = 0; it < iterations; it++) {
        const int rank = random_rank(rng);
        const Geometry g = random_geometry(rng, rank);
        MaxPoolAttributes a;
        static_cast<PoolAttributes &>(a) = g.attributes;
        a.axis = uniform(rng, -rank, rank - 1);
        const int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
        a.storage_order = axis <= 2 && chance(rng, 0.4) ? StorageOrder::column_major : StorageOrder::row_major;
        const DType dtype = kMaxPoolTypes[uniform(rng, 0, 5)];
        const DType index_type = chance(rng, 0.5) ? DType::i64 : DType::i32;
        const test::FillOptions fill = max_pool_fill(rng, specials);
        Tensor input = Tensor::dense(dtype, g.input_shape);
        test::fill_random(input, rng, fill);
        Tensor expected = Tensor::dense(dtype, g.output_shape), got = Tensor::dense(dtype, g.output_shape);
        Tensor expected_idx = Tensor::dense(index_type, g.output_shape), got_idx = Tensor::dense(index_type, g.output_shape);
        TensorView ev = expected_idx.view(), gv = got_idx.view();
        reference::max_pool(input.view(), expected.view(), a, &ev);
        const std::string where = context(it, "max_pool+indices", dtype, g,
                                          test::describe(a) + " indices " + dtype_name(index_type) + ", " +
                                              describe_fill(fill)) +
                                  dump_small(input);
        try {
            max_pool(input.view(), got.view(), a, &gv);
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            continue;
        }
        budget.check(test::tensors_match(got, expected), where);
        budget.check(test::tensors_match(got_idx, expected_idx, {}, "indices"), where);
    }
}

TEST_P(RandomPooling, MaxPoolIndices) { random_max_pool_indices(2001, 6000, false); }
TEST_P(RandomPooling, MaxPoolIndicesNaNInf) { random_max_pool_indices(2002, 3000, true); }

// ---- avg_pool: f32, f16, bf16, f64, every divisor convention ----

TEST_P(RandomPooling, AvgPool) {
    Rng rng(3003);
    test::FailureBudget budget;
    for (int it = 0; it < 5000; it++) {
        const Geometry g = random_geometry(rng, random_rank(rng));
        AvgPoolAttributes a;
        static_cast<PoolAttributes &>(a) = g.attributes;
        a.pad_mode = static_cast<AvgPadMode>(uniform(rng, 0, 2));
        const DType dtype = kAvgPoolTypes[uniform(rng, 0, kLastAvgPoolType)];
        test::FillOptions fill;
        fill.ties = test::is_16_bit(dtype) || chance(rng, 0.5);  // f16/bf16: dyadic values (see the header)
        Tensor input = Tensor::dense(dtype, g.input_shape);
        test::fill_random(input, rng, fill);
        double max_abs = 0;
        for (int64_t i = 0; i < input.element_count(); i++) max_abs = std::max(max_abs, std::fabs(input.get(i)));
        Tensor expected = Tensor::dense(dtype, g.output_shape), got = Tensor::dense(dtype, g.output_shape);
        reference::avg_pool(input.view(), expected.view(), a);
        const std::string where = context(it, "avg_pool", dtype, g, test::describe(a));
        try {
            avg_pool(input.view(), got.view(), a);
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            continue;
        }
        test::CompareOptions o;
        if (test::is_16_bit(dtype)) {
            o.ulp_tol = 1;
        } else {
            o.rel_tol = dtype == DType::f64 ? 1e-13 : 1e-5;
            o.abs_tol = o.rel_tol * max_abs;
        }
        budget.check(test::tensors_match(got, expected, o), where);
    }
}

// ---- Global pooling: the window is the whole plane (the runtime may take a dedicated path) ----

// A global pooling call: the window the whole plane (any strides, dilations 1, any rounding).
// Sometimes many channels (more than one task's planes), sometimes 7x7 planes (49 taps in one
// row: the kernels' specialization for ImageNet CNN heads).
Geometry random_global_geometry(Rng &rng, int rank) {
    const int spatial = rank - 2;
    Geometry g;
    g.input_shape = Shape{uniform(rng, 1, 3), chance(rng, 0.1) ? uniform(rng, 1, 2100) : uniform(rng, 1, 12)};
    const bool seven_by_seven = chance(rng, 0.25);
    for (int i = 0; i < spatial; i++) {
        if (seven_by_seven) {
            g.input_shape.push_back(spatial == 1 ? 49 : i < 2 ? 7 : 1);
        } else {
            g.input_shape.push_back(chance(rng, 0.15) ? 1 : uniform(rng, 1, spatial == 1 ? 300 : spatial == 2 ? 40 : 12));
        }
    }
    PoolAttributes &a = g.attributes;
    for (int i = 0; i < spatial; i++) a.kernel.push_back(g.input_shape[static_cast<std::size_t>(i) + 2]);
    if (chance(rng, 0.5)) {
        for (int i = 0; i < spatial; i++) a.strides.push_back(uniform(rng, 1, 3));
    }
    if (chance(rng, 0.3)) {
        for (int i = 0; i < spatial; i++) a.dilations.push_back(1);
    }
    a.rounding = static_cast<Rounding>(uniform(rng, 0, 2));
    g.output_shape = infer_pool_shape(g.input_shape, a).output_shape;
    return g;
}

// A global call's tensors: the input, and the output with its bytes outside the view set to
// kUnwritten; a quarter of them not dense (an input row or channel stride padded, and the output's
// channel stride).
constexpr uint8_t kUnwritten = 0xA5;
struct GlobalTensors {
    Tensor input, got;
};
GlobalTensors random_global_tensors(Rng &rng, DType dtype, const Geometry &g) {
    const int rank = static_cast<int>(g.input_shape.size());
    Shape extra_in(static_cast<std::size_t>(rank), 0), extra_out(static_cast<std::size_t>(rank), 0);
    if (chance(rng, 0.25)) {
        extra_in[static_cast<std::size_t>(uniform(rng, 1, rank - 1))] = uniform(rng, 1, 3);
        extra_out[1] = uniform(rng, 0, 2);
    }
    GlobalTensors t{Tensor::padded(dtype, g.input_shape, extra_in), Tensor::padded(dtype, g.output_shape, extra_out)};
    t.got.fill_bytes(kUnwritten);
    return t;
}

// Whether a call left `got`'s bytes outside its view as random_global_tensors set them.
::testing::AssertionResult nothing_written_outside_the_view(const Tensor &got) {
    if (got.bytes_outside_view_not_equal(kUnwritten) == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "output written outside the view";
}

TEST_P(RandomPooling, AvgPoolGlobal) {
    Rng rng(5005);
    test::FailureBudget budget;
    for (int it = 0; it < 600; it++) {
        const int rank = random_rank(rng);
        const Geometry g = random_global_geometry(rng, rank);
        AvgPoolAttributes a;
        static_cast<PoolAttributes &>(a) = g.attributes;
        a.pad_mode = static_cast<AvgPadMode>(uniform(rng, 0, 2));
        const DType dtype = kAvgPoolTypes[uniform(rng, 0, kLastAvgPoolType)];
        test::FillOptions fill;
        fill.ties = test::is_16_bit(dtype) || chance(rng, 0.5);
        auto [input, got] = random_global_tensors(rng, dtype, g);
        test::fill_random(input, rng, fill);
        double max_abs = 0;
        for (int64_t i = 0; i < input.element_count(); i++) max_abs = std::max(max_abs, std::fabs(input.get(i)));
        Tensor expected = Tensor::dense(dtype, g.output_shape);
        reference::avg_pool(input.dense_copy().view(), expected.view(), a);
        const std::string where = context(it, "global avg_pool", dtype, g, test::describe(a));
        try {
            avg_pool(input.view(), got.view(), a);
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            continue;
        }
        // Planes here hold up to 1728 taps; the f32 and f64 bounds of the header scale with the tap
        // count: taps * 2^-24 (2^-53) * max|input|.
        test::CompareOptions o;
        if (test::is_16_bit(dtype)) {
            o.ulp_tol = 1;
        } else {
            double taps = 1;
            for (int64_t k : a.kernel) taps *= static_cast<double>(k);
            const bool f64 = dtype == DType::f64;
            o.rel_tol = f64 ? 1e-13 : 1e-5;
            o.abs_tol = std::max(o.rel_tol, taps * (f64 ? 0x1p-53 : 0x1p-24)) * max_abs;
        }
        budget.check(test::tensors_match(got, expected, o), where);
        budget.check(nothing_written_outside_the_view(got), where);
    }
}

// Global max pooling, values only, every type, with NaN and infinities sometimes: exact.
TEST_P(RandomPooling, MaxPoolGlobal) {
    Rng rng(5006);
    test::FailureBudget budget;
    for (int it = 0; it < 600; it++) {
        const int rank = random_rank(rng);
        const Geometry g = random_global_geometry(rng, rank);
        MaxPoolAttributes a;
        static_cast<PoolAttributes &>(a) = g.attributes;
        const DType dtype = kMaxPoolTypes[uniform(rng, 0, 5)];
        const test::FillOptions fill = max_pool_fill(rng, chance(rng, 0.3));
        auto [input, got] = random_global_tensors(rng, dtype, g);
        test::fill_random(input, rng, fill);
        Tensor expected = Tensor::dense(dtype, g.output_shape);
        reference::max_pool(input.dense_copy().view(), expected.view(), a);
        const std::string where =
            context(it, "global max_pool", dtype, g, test::describe(a) + ", " + describe_fill(fill)) + dump_small(input);
        try {
            max_pool(input.view(), got.view(), a);
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            continue;
        }
        budget.check(test::tensors_match(got, expected), where);
        budget.check(nothing_written_outside_the_view(got), where);
    }
}

// ---- Non-dense views: padded strides everywhere, nothing outside the views written ----

TEST_P(RandomPooling, StridedViews) {
    Rng rng(4004);
    test::FailureBudget budget;
    constexpr uint8_t kSentinel = 0xA5;
    for (int it = 0; it < 1200; it++) {
        const int rank = random_rank(rng);
        const Geometry g = random_geometry(rng, rank);
        auto extra = [&]() {
            Shape e;
            for (int d = 0; d < rank; d++) e.push_back(uniform(rng, 0, 3));
            e[static_cast<std::size_t>(rank) - 1] += 1;  // rows always padded: innermost stride stays 1
            return e;
        };
        // Alternate thread counts: results must not depend on them.
        set_num_threads(it % 3 == 0 ? 1 : 0);
        const bool max = chance(rng, 0.6);
        const DType dtype = max ? kMaxPoolTypes[uniform(rng, 0, 5)] : kAvgPoolTypes[uniform(rng, 0, kLastAvgPoolType)];
        Tensor input = Tensor::padded(dtype, g.input_shape, extra());
        input.fill_bytes(0x7F);  // padding: large/NaN values a wrong read would show
        test::FillOptions fill;
        fill.ties = true;
        test::fill_random(input, rng, fill);
        Tensor dense_input = input.dense_copy();
        const std::vector<uint8_t> input_bytes(static_cast<const uint8_t *>(input.data()),
                                               static_cast<const uint8_t *>(input.data()) + input.storage_bytes());
        Tensor got = Tensor::padded(dtype, g.output_shape, extra());
        got.fill_bytes(kSentinel);
        Tensor expected = Tensor::dense(dtype, g.output_shape);
        std::string where;
        try {
            if (max) {
                MaxPoolAttributes a;
                static_cast<PoolAttributes &>(a) = g.attributes;
                a.axis = uniform(rng, 0, 2);
                const DType index_type = chance(rng, 0.5) ? DType::i64 : DType::i32;
                Tensor got_idx = Tensor::padded(index_type, g.output_shape, extra());
                got_idx.fill_bytes(kSentinel);
                Tensor expected_idx = Tensor::dense(index_type, g.output_shape);
                TensorView ev = expected_idx.view(), gv = got_idx.view();
                reference::max_pool(dense_input.view(), expected.view(), a, &ev);
                where = context(it, "strided max_pool+indices", dtype, g, test::describe(a));
                max_pool(input.view(), got.view(), a, &gv);
                budget.check(test::tensors_match(got_idx, expected_idx, {}, "indices"), where);
                budget.check(got_idx.bytes_outside_view_not_equal(kSentinel) == 0
                                 ? ::testing::AssertionSuccess()
                                 : ::testing::AssertionFailure() << "indices written outside the view",
                             where);
            } else {
                AvgPoolAttributes a;
                static_cast<PoolAttributes &>(a) = g.attributes;
                a.pad_mode = static_cast<AvgPadMode>(uniform(rng, 0, 2));
                reference::avg_pool(dense_input.view(), expected.view(), a);
                where = context(it, "strided avg_pool", dtype, g, test::describe(a));
                avg_pool(input.view(), got.view(), a);
            }
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            continue;
        }
        test::CompareOptions o;
        o.ulp_tol = max ? 0 : 1;  // dyadic inputs: avg within one rounding step in every type
        budget.check(test::tensors_match(got, expected, o), where);
        budget.check(got.bytes_outside_view_not_equal(kSentinel) == 0
                         ? ::testing::AssertionSuccess()
                         : ::testing::AssertionFailure() << got.bytes_outside_view_not_equal(kSentinel)
                                                         << " output bytes written outside the view",
                     where);
        budget.check(std::memcmp(input_bytes.data(), input.data(), input_bytes.size()) == 0
                         ? ::testing::AssertionSuccess()
                         : ::testing::AssertionFailure() << "the input (or its padding) was modified",
                     where);
    }
    set_num_threads(0);
}

// ---- Targeted edge cases ----

// Windows whose elements are all -inf: the maximum is -inf (padding does not count, so it cannot
// be the lowest finite value, which only a window of padding alone produces).
TEST_P(RandomPooling, MaxPoolNegativeInfinityWindows) {
    for (DType dtype : kFloatTypes) {
        for (bool with_indices : {false, true}) {
            SCOPED_TRACE(std::string(dtype_name(dtype)) + (with_indices ? " with indices" : " values only"));
            // [1,1,6]: -inf -inf -inf 2 -inf -inf, k=2, s=1, pads 1/1 -> windows:
            // [pad,-inf] [-inf,-inf] [-inf,-inf] [-inf,2] [2,-inf] [-inf,-inf] [-inf,pad]
            const double ninf = -std::numeric_limits<double>::infinity();
            Tensor input = Tensor::dense(dtype, {1, 1, 6});
            input.set_values({ninf, ninf, ninf, 2, ninf, ninf});
            MaxPoolAttributes a;  // lists built as Shape: GCC 12's -Wnonnull misfires on {} here
            a.kernel = Shape{2};
            a.pads_begin = Shape{1};
            a.pads_end = Shape{1};
            Tensor got = Tensor::dense(dtype, {1, 1, 7}), expected = Tensor::dense(dtype, {1, 1, 7});
            expected.set_values({ninf, ninf, ninf, 2, 2, ninf, ninf});
            Tensor idx = Tensor::dense(DType::i64, {1, 1, 7});
            TensorView iv = idx.view();
            ASSERT_NO_THROW(max_pool(input.view(), got.view(), a, with_indices ? &iv : nullptr));
            EXPECT_TRUE(test::tensors_match(got, expected));
            if (with_indices) {
                const std::vector<int64_t> want = {0, 0, 1, 3, 3, 4, 5};
                for (int64_t i = 0; i < 7; i++) EXPECT_EQ(idx.get_int(i), want[static_cast<std::size_t>(i)]) << "at " << i;
            }
        }
    }
}

// Windows of padding only next to windows whose maximum is the type's lowest finite value (which
// is also the value a padding-only window gets): values and indices must still be right.
TEST_P(RandomPooling, MaxPoolLowestValueAndPaddingOnlyWindows) {
    for (DType dtype : kMaxPoolTypes) {
        SCOPED_TRACE(dtype_name(dtype));
        const double low = reference::lowest_finite(dtype);
        Tensor input = Tensor::dense(dtype, {2, 1, 3});
        input.set_values({low, low, 1, /**/ 1, low, low});
        MaxPoolAttributes a;
        a.kernel = Shape{2};
        a.pads_begin = Shape{3};
        a.pads_end = Shape{3};
        a.axis = 0;
        // Windows start at -3..3: [-3,-2] [-2,-1] [-1,0] [0,1] [1,2] [2,3] [3,4] [4,5]... out = (3+6-2)+1 = 8.
        Tensor got = Tensor::dense(dtype, {2, 1, 8}), expected = Tensor::dense(dtype, {2, 1, 8});
        Tensor idx = Tensor::dense(DType::i32, {2, 1, 8}), want_idx = Tensor::dense(DType::i32, {2, 1, 8});
        TensorView iv = idx.view(), wv = want_idx.view();
        ASSERT_NO_THROW(max_pool(input.view(), got.view(), a, &iv));
        reference::max_pool(input.view(), expected.view(), a, &wv);
        EXPECT_TRUE(test::tensors_match(got, expected));
        EXPECT_TRUE(test::tensors_match(idx, want_idx, {}, "indices"));
        // Spot checks that do not rely on the reference: window [-1,0] of plane 0 holds only `low`
        // at 0; window [-3,-2] is padding only: lowest value, index = the plane's first element.
        EXPECT_EQ(got.get(2), low);
        EXPECT_EQ(idx.get_int(2), 0);
        EXPECT_EQ(got.get(0), low);
        EXPECT_EQ(idx.get_int(0), 0);
        EXPECT_EQ(idx.get_int(8), 3);  // plane 1's padding-only window: its first element, offset 3
        EXPECT_EQ(got.get(8 + 3), 1);  // plane 1, window [0,1] = {1, low}
        EXPECT_EQ(idx.get_int(8 + 3), 3);
    }
}

// The argmax kernels take each stage's first tap (a window's first row, or plane) without a
// compare: where that row or plane is padding, or holds only the lowest finite value, and where
// a tie falls in a later group of the unrolled row taps (the 5-row window: rows 3-4), values and
// indices must match the reference. 2 planes (axis 0: indices count across planes), i32 and i64.
TEST_P(RandomPooling, MaxPoolIndicesFirstRowOrPlaneOfPadding) {
    struct Case {
        const char *name;
        std::vector<int64_t> input_shape;
        Shape kernel, strides, pads_begin, pads_end;
    };
    const std::vector<Case> cases = {
        // The specialized 3x3/2 window, its first rows padding (pads of 2 and 3: some windows
        // padding only).
        {"3x3/2, pads 2-3", {1, 2, 4, 5}, Shape{3, 3}, Shape{2, 2}, Shape{2, 1}, Shape{3, 2}},
        // 5 rows: the y taps in an unrolled group of three and a second group of two.
        {"5x1/1, pads 4-5", {1, 2, 3, 2}, Shape{5, 1}, Shape{1, 1}, Shape{4, 0}, Shape{5, 0}},
        // The specialized 2x2x2/2 window, its first plane padding.
        {"2x2x2/2, pads 1-2", {1, 2, 2, 3, 3}, Shape{2, 2, 2}, Shape{2, 2, 2}, Shape{1, 1, 0}, Shape{2, 1, 1}},
    };
    for (DType dtype : kMaxPoolTypes) {
        const double low = reference::lowest_finite(dtype);
        for (const Case &c : cases) {
            for (DType index_type : {DType::i32, DType::i64}) {
                SCOPED_TRACE(std::string(dtype_name(dtype)) + ", " + c.name + ", indices " + dtype_name(index_type));
                MaxPoolAttributes a;
                a.kernel = c.kernel;
                a.strides = c.strides;
                a.pads_begin = c.pads_begin;
                a.pads_end = c.pads_end;
                a.axis = 0;
                Tensor input = Tensor::dense(dtype, c.input_shape);
                // Three values, so that windows tie across rows; each plane's first row holds the
                // lowest value but at one column (1, or 2 in the second plane), and 7 elsewhere.
                const int64_t width = c.input_shape.back();
                std::vector<double> values(static_cast<std::size_t>(input.element_count()));
                const int64_t plane = static_cast<int64_t>(values.size()) / 2;
                for (int64_t i = 0; i < static_cast<int64_t>(values.size()); i++) {
                    const int64_t p = i % plane;
                    values[static_cast<std::size_t>(i)] =
                        p < width ? (p == (i < plane ? 1 : 2) ? 7 : low) : (i * 5 % 7 < 3 ? 7 : 1);
                }
                input.set_values(values);
                const std::vector<int64_t> output_shape = infer_pool_shape(c.input_shape, a).output_shape;
                Tensor got = Tensor::dense(dtype, output_shape), expected = Tensor::dense(dtype, output_shape);
                Tensor idx = Tensor::dense(index_type, output_shape), want_idx = Tensor::dense(index_type, output_shape);
                TensorView iv = idx.view(), wv = want_idx.view();
                ASSERT_NO_THROW(max_pool(input.view(), got.view(), a, &iv));
                reference::max_pool(input.view(), expected.view(), a, &wv);
                EXPECT_TRUE(test::tensors_match(got, expected)) << dump_small(input);
                EXPECT_TRUE(test::tensors_match(idx, want_idx, {}, "indices")) << dump_small(input);
            }
        }
    }
}

// A window of NaNs only, and NaNs after a larger value: the first NaN's index wins.
TEST_P(RandomPooling, MaxPoolNaNIndices) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (DType dtype : kFloatTypes) {
        SCOPED_TRACE(dtype_name(dtype));
        Tensor input = Tensor::dense(dtype, {1, 1, 2, 3});
        input.set_values({5, nan, nan, nan, 7, nan});
        MaxPoolAttributes a;
        a.kernel = Shape{2, 2};
        // Windows: cols 0-1 {5, nan, nan, 7} -> nan at 1; cols 1-2 {nan, nan, 7, nan} -> nan at 1.
        Tensor got = Tensor::dense(dtype, {1, 1, 1, 2});
        Tensor idx = Tensor::dense(DType::i64, {1, 1, 1, 2});
        TensorView iv = idx.view();
        ASSERT_NO_THROW(max_pool(input.view(), got.view(), a, &iv));
        EXPECT_TRUE(std::isnan(got.get(0)) && std::isnan(got.get(1)));
        EXPECT_EQ(idx.get_int(0), 1);
        EXPECT_EQ(idx.get_int(1), 1);
        Tensor values_only = Tensor::dense(dtype, {1, 1, 1, 2});
        ASSERT_NO_THROW(max_pool(input.view(), values_only.view(), a));
        EXPECT_TRUE(std::isnan(values_only.get(0)) && std::isnan(values_only.get(1)));
    }
}

// -0 and +0 are equal values, so among them the first stays (PyTorch); the kernels compare
// integer keys, which must give both zeros one key. A zero maximum is written as +0, and the
// order of the other values around zero is kept (-0.5, 0.25, -inf).
// A NaN in a window makes its average NaN, in every float type and on every path (f16 on x86
// without F16C once wrote infinity: found by fuzz_pool), and infinities average to infinity.
TEST_P(RandomPooling, AvgPoolNaNAndInfinity) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (DType dtype : kAvgPoolTypes) {
        SCOPED_TRACE(dtype_name(dtype));
        Tensor input = Tensor::dense(dtype, {1, 1, 1, 8});
        input.set_values({1.0, nan, 2.0, 3.0, inf, 4.0, -inf, 5.0});
        AvgPoolAttributes a;
        a.kernel = Shape{1, 2};
        a.dilations = Shape{1, 2};
        // Windows (taps two apart): {1, 2} {nan, 3} {2, inf} {3, 4} {inf, -inf} {4, 5}
        Tensor got = Tensor::dense(dtype, {1, 1, 1, 6});
        ASSERT_NO_THROW(avg_pool(input.view(), got.view(), a));
        EXPECT_EQ(got.get(0), 1.5);
        EXPECT_TRUE(std::isnan(got.get(1)));
        EXPECT_EQ(got.get(2), inf);
        EXPECT_EQ(got.get(3), 3.5);
        EXPECT_TRUE(std::isnan(got.get(4)));
        EXPECT_EQ(got.get(5), 4.5);
    }
}

// An axis of one output takes any stride (a 2-row input, stride 12713985 along it, 3-D windows with
// dilation 3 and padding: found by fuzz_shape, where the padded kernels' second row per step asked
// Halide for a 13 GB scratch plane); the kernels get stride 1 there, which computes the same window.
TEST_P(RandomPooling, OneOutputAnyStride) {
    Rng rng(4011);
    for (bool avg : {false, true}) {
        SCOPED_TRACE(avg ? "avg_pool" : "max_pool");
        Tensor input = Tensor::dense(DType::f32, {6, 1, 1, 2, 4});
        test::fill_random(input, rng, {});
        MaxPoolAttributes m;
        AvgPoolAttributes v;
        PoolAttributes &a = avg ? static_cast<PoolAttributes &>(v) : m;
        a.kernel = Shape{2, 1, 2};
        a.strides = Shape{4, 12713985, 4};
        a.dilations = Shape{3, 3, 3};
        a.pads_begin = Shape{3, 3, 3};
        a.pads_end = Shape{0, 3, 0};
        const Shape out_shape = infer_pool_shape(input.shape(), a).output_shape;
        ASSERT_EQ(out_shape, (Shape{6, 1, 1, 1, 1}));
        Tensor got = Tensor::dense(DType::f32, out_shape), expected = Tensor::dense(DType::f32, out_shape);
        if (avg) {
            reference::avg_pool(input.view(), expected.view(), v);
            ASSERT_NO_THROW(avg_pool(input.view(), got.view(), v));
        } else {
            reference::max_pool(input.view(), expected.view(), m);
            ASSERT_NO_THROW(max_pool(input.view(), got.view(), m));
        }
        test::CompareOptions o;  // averages of up to 4 taps summed in f32 (the reference in double)
        o.rel_tol = avg ? 1e-5 : 0;
        o.abs_tol = avg ? 1e-5 : 0;
        EXPECT_TRUE(test::tensors_match(got, expected, o));
    }
}

TEST_P(RandomPooling, MaxPoolSignedZeroTies) {
    const double inf = std::numeric_limits<double>::infinity();
    for (DType dtype : kFloatTypes) {
        SCOPED_TRACE(dtype_name(dtype));
        Tensor input = Tensor::dense(dtype, {1, 1, 1, 8});
        input.set_values({-0.0, 0.0, -inf, -0.0, -0.5, 0.0, -0.0, 0.25});
        MaxPoolAttributes a;
        a.kernel = Shape{1, 2};
        // Windows: {-0, +0} {+0, -inf} {-inf, -0} {-0, -0.5} {-0.5, +0} {+0, -0} {-0, 0.25}
        Tensor got = Tensor::dense(dtype, {1, 1, 1, 7});
        Tensor idx = Tensor::dense(DType::i64, {1, 1, 1, 7});
        TensorView iv = idx.view();
        ASSERT_NO_THROW(max_pool(input.view(), got.view(), a, &iv));
        const int64_t expected_index[7] = {0, 1, 3, 3, 5, 5, 7};
        const double expected_value[7] = {0, 0, 0, 0, 0, 0, 0.25};
        for (int i = 0; i < 7; i++) {
            EXPECT_EQ(got.get(i), expected_value[i]) << "window " << i;
            EXPECT_EQ(idx.get_int(i), expected_index[i]) << "window " << i;
        }
        EXPECT_FALSE(std::signbit(got.get(0))) << "a zero maximum is written as +0";
    }
}

// ---- Windows inside the input: the unpadded kernels, which read the input in place ----

// Stands in for a max_pool kernel (its signature: runtime/kernel_table.h), to learn which kernel a
// call picks (ScopedKernelOverride::last_replaced).
int picked_max_pool_kernel(halide_buffer_t *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                           int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                           halide_buffer_t *) {
    return 0;
}

// The kernel `call` picks, run as `stand_in` (a do-nothing kernel of the same signature).
template <typename Call>
std::string kernel_picked(void (*stand_in)(), const Call &call) {
    const ScopedKernelOverride any({nullptr, active_isa(), stand_in});
    ScopedKernelOverride::note_replaced("none");
    call();
    return ScopedKernelOverride::last_replaced();
}

std::string max_pool_kernel_picked(const Tensor &input, Tensor &output, const MaxPoolAttributes &a) {
    return kernel_picked(reinterpret_cast<void (*)()>(&picked_max_pool_kernel),
                         [&] { max_pool(input.view(), output.view(), a); });
}

// Stands in for a max_pool kernel with indices: counts its calls, computes nothing.
int g_indices_kernel_calls = 0;
int counted_max_pool_indices_kernel(halide_buffer_t *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                                    int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                                    int32_t, halide_buffer_t *, halide_buffer_t *) {
    g_indices_kernel_calls++;
    return 0;
}

// i32 indices of the types whose CPU paths have no i32 argmax kernel (generators/variants.cmake):
// the runtime runs the i64 kernel a few planes a call (32768 indices, but 8 planes per thread at
// least) and narrows each call's indices, adding the offset of the call's first plane
// (runtime/pooling.cpp). Per input: large planes (one call per batch item), 4096-output planes
// (1 thread: 8, 8 and 4 a call; 2 threads: 16 and 4), 3-D 3213 (10 and 3; all 13), two batch items
// each, into dense and padded index views, every `axis` (0 and 1 count planes in the index, 2 does
// not); values and indices match the reference, nothing outside the padded views is written, and
// on the CPU paths the i64 kernel runs.
TEST_P(RandomPooling, NarrowedIndices) {
    Rng rng(2108);
    struct Case {
        Shape input_shape, index_extra;  // index_extra: padding of the indices' view per axis
    };
    const Case cases[] = {
        {{2, 3, 190, 181}, {}},
        {{2, 20, 64, 64}, {0, 1, 2, 3}},
        {{2, 13, 9, 21, 17}, {1, 0, 1, 0, 2}},
    };
    int type_turn = 0;
    for (DType dtype : kMaxPoolTypes) {
        if (dtype == DType::f32) continue;  // its own i32 kernels
        for (std::size_t i = 0; i < std::size(cases); i++) {
            const Case &c = cases[i];
            // Each input with every axis across the types, and at 2 threads with axis 1.
            const int axis = (type_turn + static_cast<int>(i)) % 3, threads = axis == 1 ? 2 : 1;
            set_num_threads(threads);
            const std::size_t spatial = c.input_shape.size() - 2;
            MaxPoolAttributes a;
            a.kernel = Shape(spatial, 3);
            a.pads_begin = a.pads_end = Shape(spatial, 1);
            a.axis = axis;
            SCOPED_TRACE(std::string(dtype_name(dtype)) + ", input " + shape_to_string(c.input_shape) + ", axis " +
                         std::to_string(axis) + ", " + std::to_string(threads) + " thread(s)");
            Tensor input = Tensor::dense(dtype, c.input_shape);
            test::fill_random(input, rng, test::FillOptions{});
            const Shape output_shape = infer_pool_shape(c.input_shape, a).output_shape;
            Tensor got = Tensor::dense(dtype, output_shape), expected = Tensor::dense(dtype, output_shape);
            Tensor idx = Tensor::padded(DType::i32, output_shape, c.index_extra);
            idx.fill_bytes(kUnwritten);
            Tensor want_idx = Tensor::dense(DType::i32, output_shape);
            TensorView iv = idx.view(), wv = want_idx.view();
            if (!test::is_gpu(active_isa())) {
                const std::string picked = kernel_picked(reinterpret_cast<void (*)()>(&counted_max_pool_indices_kernel),
                                                         [&] { max_pool(input.view(), got.view(), a, &iv); });
                EXPECT_EQ(picked, std::string("max_pool_") + dtype_name(dtype) + "_indices_i64");
                idx.fill_bytes(kUnwritten);
            }
            ASSERT_NO_THROW(max_pool(input.view(), got.view(), a, &iv));
            reference::max_pool(input.view(), expected.view(), a, &wv);
            EXPECT_TRUE(test::tensors_match(got, expected));
            EXPECT_TRUE(test::tensors_match(idx, want_idx, {}, "indices"));
            EXPECT_TRUE(nothing_written_outside_the_view(idx));
        }
        type_turn++;
    }
    set_num_threads(0);
}

// A tuned kernel (ScopedKernelOverride) is built for a layer's whole extents, and poolconv-tune
// records one call per layer: where one runs, i32 indices narrowed from the i64 kernel come from one
// call over the whole tensor, not a few planes a call (a stand-in kernel counts the calls).
TEST_P(RandomPooling, NarrowedIndicesOneCallForATunedKernel) {
    if (test::is_gpu(active_isa())) GTEST_SKIP() << "tuned kernels are CPU kernels";
    set_num_threads(1);
    Tensor input = Tensor::dense(DType::f16, {2, 20, 64, 64});  // 8, 8 and 4 planes a call untuned
    MaxPoolAttributes a;
    a.kernel = Shape{3, 3};
    a.pads_begin = a.pads_end = Shape{1, 1};
    Tensor got = Tensor::dense(DType::f16, {2, 20, 64, 64}), idx = Tensor::dense(DType::i32, {2, 20, 64, 64});
    TensorView iv = idx.view();
    g_indices_kernel_calls = 0;
    const std::string picked = kernel_picked(reinterpret_cast<void (*)()>(&counted_max_pool_indices_kernel),
                                             [&] { max_pool(input.view(), got.view(), a, &iv); });
    EXPECT_EQ(picked, "max_pool_f16_indices_i64");
    EXPECT_EQ(g_indices_kernel_calls, 1);  // untuned: 6 calls
    set_num_threads(0);
}

// Those kernels compute no window past the end of a row (its reads would leave the input): the
// last vector of a row is shifted inwards (on AVX-512 rows of half a vector in half vectors), and
// a narrower row is computed lane by lane (the runtime sends such rows to the padded or rows-first
// kernels, and the windows where the unpadded kernels do not pay: UnpaddedKernelWhereItPays
// below). So: every output width around 8, 16, 32 and 64 lanes (AVX-512's half vectors and AVX2's
// vectors of 4 bytes, AVX-512's 4-byte vectors, AVX2's and AVX-512's 1-byte ones), with and
// without an unused input column at the end, 2-D and 3-D, the specialized windows and general
// ones, every type.
TEST_P(RandomPooling, WindowsInsideTheInputAroundVectorWidths) {
    Rng rng(6006);
    test::FailureBudget budget;
    struct Window {
        int64_t kernel, stride;
    };
    const Window windows[] = {{2, 2}, {3, 3}, {1, 2}, {3, 2}, {3, 1}, {2, 1}, {4, 3}};
    for (const Window w : windows) {
        for (const int64_t out_w : {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66}) {
            for (const int spatial : {2, 3}) {
                Shape in_shape = {1, 2};
                PoolAttributes pa;
                for (int i = 0; i < spatial; i++) {
                    const bool last = i == spatial - 1;
                    const int64_t out = last ? out_w : 3;
                    in_shape.push_back((out - 1) * w.stride + w.kernel + uniform(rng, 0, 1));
                    pa.kernel.push_back(w.kernel);
                    pa.strides.push_back(w.stride);
                }
                pa.pads_begin.assign(static_cast<std::size_t>(spatial), 0);
                pa.pads_end.assign(static_cast<std::size_t>(spatial), 0);
                const PoolGeometry geometry = infer_pool_shape(in_shape, pa);
                const Shape &out_shape = geometry.output_shape;
                MaxPoolAttributes ma;
                static_cast<PoolAttributes &>(ma) = pa;
                AvgPoolAttributes aa;
                static_cast<PoolAttributes &>(aa) = pa;
                aa.pad_mode = static_cast<AvgPadMode>(uniform(rng, 0, 2));
                const DType max_type = kMaxPoolTypes[uniform(rng, 0, 5)];
                const DType avg_type = kAvgPoolTypes[uniform(rng, 0, kLastAvgPoolType)];
                const test::FillOptions fill = max_pool_fill(rng, true);
                Tensor input = Tensor::dense(max_type, in_shape);
                test::fill_random(input, rng, fill);
                Tensor expected = Tensor::dense(max_type, out_shape), got = Tensor::dense(max_type, out_shape);
                reference::max_pool(input.view(), expected.view(), ma);
                const Geometry g{in_shape, pa, out_shape};
                const std::string where =
                    context(0, "max_pool", max_type, g, test::describe(ma) + ", " + describe_fill(fill));
                try {
                    max_pool(input.view(), got.view(), ma);
                    budget.check(test::tensors_match(got, expected), where);
                } catch (const Error &e) {
                    budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
                }

                test::FillOptions avg_fill;
                avg_fill.ties = true;  // dyadic values: exact f32 sums (see the header)
                Tensor avg_input = Tensor::dense(avg_type, in_shape);
                test::fill_random(avg_input, rng, avg_fill);
                Tensor avg_expected = Tensor::dense(avg_type, out_shape), avg_got = Tensor::dense(avg_type, out_shape);
                reference::avg_pool(avg_input.view(), avg_expected.view(), aa);
                test::CompareOptions o;
                o.ulp_tol = 1;
                const std::string avg_where = context(0, "avg_pool", avg_type, g, test::describe(aa));
                try {
                    avg_pool(avg_input.view(), avg_got.view(), aa);
                    budget.check(test::tensors_match(avg_got, avg_expected, o), avg_where);
                } catch (const Error &e) {
                    budget.check(::testing::AssertionFailure() << "threw " << e.what(), avg_where);
                }
            }
        }
    }
}

// Stands in for an avg_pool kernel, as picked_max_pool_kernel does for max_pool.
int picked_avg_pool_kernel(halide_buffer_t *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                           int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                           halide_buffer_t *) {
    return 0;
}

std::string avg_pool_kernel_picked(const Tensor &input, Tensor &output, const AvgPoolAttributes &a) {
    return kernel_picked(reinterpret_cast<void (*)()>(&picked_avg_pool_kernel),
                         [&] { avg_pool(input.view(), output.view(), a); });
}

// Whether f32 MaxPool (values only) and AvgPool take the rows-first kernel where the padded kernel
// would run otherwise (rows_first_kernel_pays, schedules/pool_limits.h): on the AVX2 and AVX-512
// paths (the only ones it is built for), unless the window is undilated, 2 or 3 rows at stride 1
// along y, or a single tap. (The runtime sees stride 1 along an axis of one output: every call
// here has more.)
bool rows_first_expected(DType dtype, int64_t kernel_y, int64_t stride_y, int64_t dilation_y = 1, bool single_tap = false) {
    const Isa isa = active_isa();
    if (dtype != DType::f32 || (isa != Isa::avx2 && isa != Isa::avx512) || single_tap) return false;
    return !(stride_y == 1 && dilation_y == 1 && (kernel_y == 2 || kernel_y == 3));
}

// Whether f32 MaxPool (values only) or AvgPool (`avg`) takes the flat-plane kernel
// (flat_plane_kernel_pays, schedules/pool_limits.h): on the AVX2 and AVX-512 paths (the only ones
// it is built for), for 2-D windows of at least 3x3 (or 3-D ones a plane deep) at stride 1 and
// dilation 1, whose output plane has the input's size, rows dense in input and output, on planes
// up to 224 wide for 5x5 windows with pads of 2, up to 112 for 7x7, 9x9 and 13x13 ones with pads
// of half the window, up to 56 for AvgPool's 3x3 windows with pads of 1, else up to 39. (An axis
// of one output counts as stride 1, as the runtime passes it; along z the window must be one
// plane at stride 1, unpadded, with as many output planes as input ones.) The pads are the
// geometry's (auto_pad resolved).
bool flat_plane_expected(DType dtype, const Shape &in, const PoolGeometry &g, const PoolAttributes &pa, bool avg,
                         bool dense = true) {
    const Shape &out = g.output_shape;
    const Isa isa = active_isa();
    const std::size_t spatial = in.size() - 2;
    if (dtype != DType::f32 || (isa != Isa::avx2 && isa != Isa::avx512) || spatial < 2 || !dense) return false;
    for (std::size_t i = 0; i < spatial; i++) {
        const bool plane_axis = i + 2 >= spatial;  // y or x
        const int64_t k = pa.kernel[i], d = pa.dilations.empty() ? 1 : pa.dilations[i];
        const int64_t s = pa.strides.empty() || out[i + 2] == 1 ? 1 : pa.strides[i];
        const int64_t pad = g.pads_begin[i];
        if (plane_axis && (k < 3 || s != 1 || d != 1 || out[i + 2] != in[i + 2])) return false;
        if (!plane_axis && (k != 1 || s != 1 || pad != 0 || out[i + 2] != in[i + 2])) return false;
    }
    auto centred_square = [&](int64_t k) {
        for (std::size_t i = spatial - 2; i < spatial; i++) {
            if (pa.kernel[i] != k || g.pads_begin[i] != k / 2) return false;
        }
        return true;
    };
    const bool wider = centred_square(7) || centred_square(9) || centred_square(13);
    const int64_t widest = centred_square(5) ? 224 : wider ? 112 : centred_square(3) && avg ? 56 : 39;
    return in.back() <= widest && in[in.size() - 1] * in[in.size() - 2] < (int64_t{1} << 24);
}

// An f32 AvgPool call into `got` (first filled with NaNs, so an element the kernel does not write
// shows) against `expected`: within 1e-5 relative, 3e-5 absolute (values up to 3: the sums of up
// to 49 of them, added in another order than the reference's, cancel).
void check_avg_pool_f32(const Tensor &input, Tensor &got, const Tensor &expected, const AvgPoolAttributes &a,
                        const std::string &where, test::FailureBudget &budget) {
    got.fill_bytes(0xFF);
    try {
        avg_pool(input.view(), got.view(), a);
    } catch (const Error &e) {
        budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
        return;
    }
    test::CompareOptions o;
    o.rel_tol = 1e-5;
    o.abs_tol = 3e-5;
    budget.check(test::tensors_match(got, expected, o), where);
}

// MaxPool's value-comparing kernels (rows first, flat plane) write a zero maximum as +0 and a NaN
// as the canonical quiet NaN: each element of `got` checked.
void check_canonical_max_outputs(const Tensor &got, const std::string &where, test::FailureBudget &budget) {
    const float *out = static_cast<const float *>(got.view().data);
    for (int64_t i = 0; i < got.element_count(); i++) {
        uint32_t bits;
        std::memcpy(&bits, &out[i], 4);
        if (std::isnan(out[i])) {
            budget.check(::testing::AssertionResult(bits == 0x7fc00000u) << "NaN bits " << bits << " at " << i, where);
        } else if (out[i] == 0) {
            budget.check(::testing::AssertionResult(!std::signbit(out[i])) << "-0 at " << i, where);
        }
    }
}

// A MaxPool call into `got` (first filled with NaNs, so an element the kernel does not write shows
// where no NaN is expected) against `expected`, exactly; f32 outputs also checked canonical.
void check_max_pool(const Tensor &input, Tensor &got, const Tensor &expected, const MaxPoolAttributes &a,
                    const std::string &where, test::FailureBudget &budget) {
    got.fill_bytes(0xFF);
    try {
        max_pool(input.view(), got.view(), a);
    } catch (const Error &e) {
        budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
        return;
    }
    budget.check(test::tensors_match(got, expected), where);
    if (got.dtype() == DType::f32) check_canonical_max_outputs(got, where, budget);
}

// The narrowest output row, in outputs, that the unpadded kernels pool in vectors on a CPU path
// for f32 data (AVX-512 8, half its 16 lanes; AVX2 8; the baseline and NEON 4): pool_limits.h's
// unpadded_half_vector_rows.
int64_t unpadded_min_width_f32(Isa isa) { return isa == Isa::avx512 ? 8 : isa == Isa::avx2 ? 8 : 4; }

// Calls whose windows all lie inside the input run the unpadded kernel where it is the faster
// (unpadded_kernel_pays, schedules/pool_limits.h, which gives the measurements): on the CPU paths
// unless the row is narrower than one vector (on AVX-512 half of one where that pays: f32, AvgPool
// of bf16 and f16, bf16 MaxPool's disjoint windows; unpadded_min_width_f32), the window is 2-D,
// undilated and 3x3 at stride 1 (8-bit MaxPool excepted), or the data
// is f16 with MaxPool's overlapping windows (f16 on the baseline, which emulates its conversion,
// never); on the GPU paths for disjoint windows only. Elsewhere the padded kernel, or the
// rows-first one where that pays (rows_first_expected).
TEST_P(RandomPooling, UnpaddedKernelWhereItPays) {
    const Isa isa = active_isa();
    const bool gpu = test::is_gpu(isa);
    const int64_t min_width = unpadded_min_width_f32(isa);
    struct Case {
        const char *what;
        bool avg;
        DType dtype;
        int64_t kernel, stride, out_w;
        bool unpadded_on_cpu, unpadded_on_gpu;
        int64_t dilation = 1;
        bool three_d = false;  // a cubic window over (D, H, W)
    };
    const Case cases[] = {
        {"2x2/2, 17 wide", false, DType::f32, 2, 2, 17, true, true},
        {"3x3/2, 17 wide", false, DType::f32, 3, 2, 17, true, false},
        {"3x3/3, 17 wide", false, DType::f32, 3, 3, 17, true, true},
        {"3x3/1, 17 wide", false, DType::f32, 3, 1, 17, false, false},
        {"2x2/1, 17 wide", false, DType::f32, 2, 1, 17, true, false},
        {"f64 2x2/1, 17 wide", false, DType::f64, 2, 1, 17, true, false},
        {"bf16 2x2/1, 17 wide", false, DType::bf16, 2, 1, 17, true, false},
        {"f16 2x2/1, 17 wide", false, DType::f16, 2, 1, 17, false, false},
        {"2x2/2, 7 wide", false, DType::f32, 2, 2, 7, min_width <= 7, true},
        {"2x2/2, 8 wide", false, DType::f32, 2, 2, 8, min_width <= 8, true},
        {"2x2/2, 15 wide", false, DType::f32, 2, 2, 15, min_width <= 15, true},
        {"AvgPool 2x2/2, 9 wide", true, DType::f32, 2, 2, 9, min_width <= 9, true},
        {"3x3/2, 13 wide", false, DType::f32, 3, 2, 13, min_width <= 13, false},
        {"bf16 2x2/2, 9 wide", false, DType::bf16, 2, 2, 9, min_width <= 9, true},
        {"2x2/2, 16 wide", false, DType::f32, 2, 2, 16, true, true},
        {"3x3/1 dilated 2, 17 wide", false, DType::f32, 3, 1, 17, true, false, 2},
        {"3x3x3/1, 17 wide", false, DType::f32, 3, 1, 17, true, false, 1, true},
        {"bf16 3x3/1, 17 wide", false, DType::bf16, 3, 1, 17, false, false},
        {"bf16 3x3/2, 17 wide", false, DType::bf16, 3, 2, 17, true, false},
        {"AvgPool 2x2/1, 17 wide", true, DType::f32, 2, 1, 17, true, false},
        {"AvgPool 3x3/1, 17 wide", true, DType::f32, 3, 1, 17, false, false},
        {"AvgPool 3x3/2, 17 wide", true, DType::f32, 3, 2, 17, true, false},
        {"AvgPool 5x5/1, 17 wide", true, DType::f32, 5, 1, 17, true, false},
        {"f64 3x3/2, 6 wide", false, DType::f64, 3, 2, 6, isa != Isa::avx512, false},  // 8 lanes on AVX-512
        {"u8 2x2/2, 40 wide", false, DType::u8, 2, 2, 40, isa != Isa::avx512, true},  // 64 lanes on AVX-512
        // 16 lanes on AVX-512, where half vectors do not pay for these: overlapping bf16 MaxPool
        // windows, f16 MaxPool; f16 AvgPool takes them (the baseline emulates f16: never).
        {"bf16 3x3/2, 13 wide", false, DType::bf16, 3, 2, 13, isa != Isa::avx512, false},
        {"f16 2x2/2, 9 wide", false, DType::f16, 2, 2, 9, isa != Isa::avx512 && isa != Isa::baseline, true},
        {"AvgPool f16 2x2/2, 9 wide", true, DType::f16, 2, 2, 9, isa != Isa::baseline, true},
        // Overlapping windows of bf16 and f16 AvgPool: on AVX-512 whole vectors only, as bf16 MaxPool's.
        {"AvgPool bf16 3x3/2, 13 wide", true, DType::bf16, 3, 2, 13, isa != Isa::avx512, false},
        {"AvgPool f16 3x3/2, 13 wide", true, DType::f16, 3, 2, 13, isa != Isa::avx512 && isa != Isa::baseline, false},
        {"u8 3x3/1, 64 wide", false, DType::u8, 3, 1, 64, true, false},
        {"f16 2x2/2, 17 wide", false, DType::f16, 2, 2, 17, isa != Isa::baseline, true},
        {"f16 3x3/2, 17 wide", false, DType::f16, 3, 2, 17, false, false},
        {"AvgPool f16 3x3/2, 17 wide", true, DType::f16, 3, 2, 17, isa != Isa::baseline, false},
        {"AvgPool f16 3x3/1, 17 wide", true, DType::f16, 3, 1, 17, false, false},
    };
    for (const Case &c : cases) {
        // The GPU paths build f32 kernels of every kind, the other types not always (a call
        // then runs on the CPU: generators/variants.cmake).
        if (gpu && c.dtype != DType::f32) continue;
        const int64_t reach = (c.kernel - 1) * c.dilation + 1;  // input elements a window spans
        Shape in_shape = {1, 2, 3 * c.stride + reach, (c.out_w - 1) * c.stride + reach};
        Shape out_shape = {1, 2, 4, c.out_w};
        if (c.three_d) {
            in_shape.insert(in_shape.begin() + 2, 2 * c.stride + reach);
            out_shape.insert(out_shape.begin() + 2, 3);
        }
        Tensor input = Tensor::dense(c.dtype, in_shape), output = Tensor::dense(c.dtype, out_shape);
        const std::string base = std::string(c.avg ? "avg_pool_" : "max_pool_") + dtype_name(c.dtype);
        const bool unpadded = gpu ? c.unpadded_on_gpu : c.unpadded_on_cpu;
        const bool rows_first = rows_first_expected(c.dtype, c.kernel, c.stride, c.dilation, c.kernel == 1);  // square windows
        const std::string expected = unpadded ? base + "_unpadded" : rows_first ? base + "_rows_first" : base;
        const std::size_t spatial = c.three_d ? 3 : 2;
        PoolAttributes pa;
        pa.kernel.assign(spatial, c.kernel);
        pa.strides.assign(spatial, c.stride);
        pa.dilations.assign(spatial, c.dilation);
        ASSERT_EQ(infer_pool_shape(in_shape, pa).output_shape, out_shape) << c.what;
        if (c.avg) {
            AvgPoolAttributes a;
            static_cast<PoolAttributes &>(a) = pa;
            EXPECT_EQ(avg_pool_kernel_picked(input, output, a), expected) << c.what;
        } else {
            MaxPoolAttributes a;
            static_cast<PoolAttributes &>(a) = pa;
            EXPECT_EQ(max_pool_kernel_picked(input, output, a), expected) << c.what;
        }
    }
    // Padding: the padded kernel, or the rows-first one.
    Tensor input = Tensor::dense(DType::f32, {1, 2, 9, 35});
    MaxPoolAttributes a;
    a.kernel = Shape{3, 3};
    a.strides = Shape{2, 2};
    a.pads_begin = Shape{0, 1};
    a.pads_end = Shape{0, 1};
    Tensor padded_output = Tensor::dense(DType::f32, {1, 2, 4, 18});
    EXPECT_EQ(max_pool_kernel_picked(input, padded_output, a),
              rows_first_expected(DType::f32, 3, 2) ? "max_pool_f32_rows_first" : "max_pool_f32");
    AvgPoolAttributes avg;
    static_cast<PoolAttributes &>(avg) = static_cast<const PoolAttributes &>(a);
    EXPECT_EQ(avg_pool_kernel_picked(input, padded_output, avg),
              rows_first_expected(DType::f32, 3, 2) ? "avg_pool_f32_rows_first" : "avg_pool_f32");
    avg.strides = Shape{1, 1};
    Tensor stride_one_output = Tensor::dense(DType::f32, {1, 2, 7, 35});
    EXPECT_EQ(avg_pool_kernel_picked(input, stride_one_output, avg), "avg_pool_f32");
}

// The padded calls the rows-first kernels take (generate_rows_first in
// generators/pooling_generator.cpp), each passed to `check`: 2-D 3x3/2 and 2x2/2 windows (also at
// stride 1 along x, the plan's other hot windows), 1-D, 3-D, 5x5/1 (pads 2 / 2 and 1 / 3) and
// dilated windows, with pads up to beyond the window (windows of padding only), ceil rounding,
// every output width around 8 and 16 lanes, and 41 (2x3 planes of 2 or 3 channels). `check` gets
// whether the rule sends the call to the rows-first kernels (rows_first_expected; the 5x5/1
// windows that keep the plane's size take the flat-plane kernels instead, flat_plane_expected:
// with pads of 2 at every width here, with pads of 1 / 3 up to 39 wide), and whether some window
// reaches the padding (where none does, the unpadded kernel's rule decides).
struct RowsFirstCall {
    Shape input_shape, output_shape;
    PoolAttributes attributes;
    bool rows_first, reaches_padding;
};
void for_each_rows_first_call(const std::function<void(const RowsFirstCall &)> &check) {
    struct Window {
        int spatial;
        int64_t kernel, stride, pad_begin, pad_end;
        bool ceil;
        int64_t dilation = 1;
        int64_t stride_x = 0;  // along x (the last axis) where not 0, else `stride`
    };
    const Window windows[] = {{2, 3, 2, 1, 1, false},       {2, 2, 2, 0, 1, true},     {2, 3, 2, 4, 4, false},
                              {1, 3, 2, 1, 1, false},       {3, 2, 2, 1, 0, false},    {2, 5, 1, 2, 2, false},
                              {2, 3, 3, 2, 0, true},        {2, 3, 2, 3, 3, false, 2}, {2, 2, 3, 3, 1, true, 3},
                              {2, 3, 1, 2, 2, false, 2},    {2, 3, 2, 1, 1, false, 1, 1},  {2, 5, 1, 1, 3, false},
                              {2, 2, 2, 0, 1, true, 1, 1},   {2, 1, 2, 0, 0, false},    {2, 1, 2, 1, 1, false}};
    for (const Window &w : windows) {
        for (const int64_t in_w : {1, 7, 14, 15, 16, 17, 31, 33, 34, 40, 41}) {
            RowsFirstCall call;
            call.input_shape = {2, 3};
            PoolAttributes &pa = call.attributes;
            for (int i = 0; i < w.spatial; i++) {
                const bool x_axis = i == w.spatial - 1;
                call.input_shape.push_back(x_axis ? in_w : 5 + i);
                pa.kernel.push_back(w.kernel);
                pa.strides.push_back(x_axis && w.stride_x != 0 ? w.stride_x : w.stride);
                pa.pads_begin.push_back(w.pad_begin);
                pa.pads_end.push_back(w.pad_end);
                pa.dilations.push_back(w.dilation);
            }
            if (w.ceil) pa.rounding = Rounding::ceil;
            PoolGeometry geometry;
            try {
                geometry = infer_pool_shape(call.input_shape, pa);
            } catch (const Error &) {
                continue;  // no output along some axis
            }
            call.output_shape = geometry.output_shape;
            call.reaches_padding = false;
            for (int i = 0; i < w.spatial; i++) {
                const auto axis = static_cast<std::size_t>(i);
                const int64_t pb = geometry.pads_begin[axis];
                const int64_t last_tap = (call.output_shape[axis + 2] - 1) * pa.strides[axis] + (w.kernel - 1) * w.dilation - pb;
                call.reaches_padding = call.reaches_padding || pb > 0 || last_tap >= call.input_shape[axis + 2];
            }
            const int64_t kernel_y = w.spatial >= 2 ? w.kernel : 1, stride_y = w.spatial >= 2 ? w.stride : 1;
            // These windows go to the flat-plane kernel alike for MaxPool and AvgPool.
            const bool flat = flat_plane_expected(DType::f32, call.input_shape, geometry, pa, /*avg=*/false);
            EXPECT_EQ(flat, flat_plane_expected(DType::f32, call.input_shape, geometry, pa, /*avg=*/true));
            // The windows are square: a kernel of 1 is a single tap.
            call.rows_first = rows_first_expected(DType::f32, kernel_y, stride_y, w.dilation, w.kernel == 1) && !flat;
            check(call);
        }
    }
}

// The MaxPool rows-first kernel (values only) reads the input in place, compares values with
// -infinity for padding, and finds windows of padding only by geometry. Over data of NaNs
// (negative ones), +-inf, signed zeros, the type's lowest value and ties, each call
// (for_each_rows_first_call) must pick the kernel the rule says and match the reference exactly,
// with +0 for a zero maximum and the canonical NaN.
TEST_P(RandomPooling, MaxPoolRowsFirstEdgeValues) {
    Rng rng(6206);
    test::FailureBudget budget;
    const double inf = std::numeric_limits<double>::infinity(), nan = -std::numeric_limits<double>::quiet_NaN();
    const double low = reference::lowest_finite(DType::f32);
    const double specials[] = {nan, inf, -inf, -0.0, 0.0, low, 1.5, -2.0};
    for_each_rows_first_call([&](const RowsFirstCall &call) {
        MaxPoolAttributes a;
        static_cast<PoolAttributes &>(a) = call.attributes;
        Tensor input = Tensor::dense(DType::f32, call.input_shape);
        std::vector<double> values(static_cast<std::size_t>(input.element_count()));
        for (double &v : values) v = chance(rng, 0.3) ? specials[uniform(rng, 0, 7)] : uniform(rng, -3, 3);
        input.set_values(values);
        Tensor got = Tensor::dense(DType::f32, call.output_shape), expected = Tensor::dense(DType::f32, call.output_shape);
        reference::max_pool(input.view(), expected.view(), a);
        const Geometry g{call.input_shape, call.attributes, call.output_shape};
        const std::string where = context(0, "max_pool", DType::f32, g, test::describe(a));
        const std::string picked = max_pool_kernel_picked(input, got, a);
        if (call.reaches_padding) {
            budget.check(::testing::AssertionResult(call.rows_first == (picked == "max_pool_f32_rows_first"))
                             << "picked " << picked,
                         where);
        }
        try {
            max_pool(input.view(), got.view(), a);
        } catch (const Error &e) {
            budget.check(::testing::AssertionFailure() << "threw " << e.what(), where);
            return;
        }
        budget.check(test::tensors_match(got, expected), where);
        check_canonical_max_outputs(got, where, budget);
    });
}

// The AvgPool rows-first kernel (f32) sums each window's rows first, reading the input in place
// (padding adds 0), and divides by the taps each axis counts. Each call (for_each_rows_first_call),
// in every padding mode (exclude-pad, ONNX's count_include_pad, OpenVINO's include-pad; windows
// of padding only average to 0 excluding padding), over random data with some NaNs and
// infinities, must pick the kernel the rule says and match the reference: the same NaNs and
// infinities, finite values within 1e-5 (the rows are summed before the columns, the reference
// adds in scan order).
TEST_P(RandomPooling, AvgPoolRowsFirstWindows) {
    Rng rng(6207);
    test::FailureBudget budget;
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const double specials[] = {nan, inf, -inf, -0.0};
    for_each_rows_first_call([&](const RowsFirstCall &call) {
        for (const AvgPadMode mode : {AvgPadMode::exclude_pad, AvgPadMode::include_pad, AvgPadMode::include_pad_openvino}) {
            AvgPoolAttributes a;
            static_cast<PoolAttributes &>(a) = call.attributes;
            a.pad_mode = mode;
            Tensor input = Tensor::dense(DType::f32, call.input_shape);
            std::vector<double> values(static_cast<std::size_t>(input.element_count()));
            for (double &v : values) v = chance(rng, 0.03) ? specials[uniform(rng, 0, 3)] : uniform(rng, -3, 3);
            input.set_values(values);
            Tensor got = Tensor::dense(DType::f32, call.output_shape), expected = Tensor::dense(DType::f32, call.output_shape);
            reference::avg_pool(input.view(), expected.view(), a);
            const Geometry g{call.input_shape, call.attributes, call.output_shape};
            const std::string where = context(0, "avg_pool", DType::f32, g, test::describe(a));
            const std::string picked = avg_pool_kernel_picked(input, got, a);
            if (call.reaches_padding) {
                budget.check(::testing::AssertionResult(call.rows_first == (picked == "avg_pool_f32_rows_first"))
                                 << "picked " << picked,
                             where);
            }
            check_avg_pool_f32(input, got, expected, a, where, budget);
        }
    });
}

// The flat-plane kernels (generate_flat_plane in generators/pooling_generator.cpp) pool each plane
// as one flat row: a window's taps left and right of its centre wrap into the rows beside it
// unless the column test stops them, and its rows above and below the plane read the margins.
// Windows that keep the plane's size at stride 1: 3x3 pads 1 (and 0 / 2, 2 / 0 along one axis or
// both), 5x5 pads 2 (and 1 / 3 along x), 7x7, 9x9 (and pads 3 / 5 along x), 13x13, 3x5, 4x4 (pads
// 1 / 2), 3-D a plane deep (and three such windows whose output has another number of planes
// than the input, which the kernel does not compute); planes 1 to 225 wide (each bound of the
// rule, 39, 56, 112 and 224, and one past it) and 1 to 9 high, 2 or 3 channels; dense tensors
// (the flat-plane kernel where the rule says, checked) and tensors with padded rows (never that
// kernel). MaxPool over NaNs (negative ones), +-inf, signed zeros and ties must match the
// reference exactly, with +0 for a zero maximum and the canonical NaN; AvgPool in every padding
// mode within 1e-5.
TEST_P(RandomPooling, FlatPlaneWindows) {
    Rng rng(6208);
    test::FailureBudget budget;
    const double inf = std::numeric_limits<double>::infinity(), nan = -std::numeric_limits<double>::quiet_NaN();
    const double max_specials[] = {nan, inf, -inf, -0.0, 0.0, 1.5, -2.0};
    const double avg_specials[] = {-nan, inf, -inf, -0.0};
    struct Window {
        Shape kernel, pads_begin, pads_end;  // (y, x), or (z, y, x)
        Shape strides = {};                  // empty: 1
        bool ceil = false;
    };
    // The last three: not the flat-plane kernel's. One plane deep at stride 2 along z, whose ceil
    // rounding keeps the 2 planes (the second window all padding); one plane deep with 2 planes
    // of padding after the input along z, whose output has 2 planes more (all padding); and one
    // at stride 4 along z, whose one output plane the runtime computes at stride 1.
    const Window windows[] = {{{3, 3}, {1, 1}, {1, 1}},
                              {{3, 3}, {0, 2}, {2, 0}},
                              {{3, 3}, {1, 0}, {1, 2}},
                              {{5, 5}, {2, 1}, {2, 3}},
                              {{5, 5}, {2, 2}, {2, 2}},
                              {{7, 7}, {3, 3}, {3, 3}},
                              {{9, 9}, {4, 4}, {4, 4}},
                              {{13, 13}, {6, 6}, {6, 6}},
                              {{9, 9}, {4, 3}, {4, 5}},
                              {{3, 5}, {1, 2}, {1, 2}},
                              {{4, 4}, {1, 2}, {2, 1}},
                              {{1, 3, 3}, {0, 1, 1}, {0, 1, 1}},
                              {{1, 3, 3}, {0, 1, 1}, {0, 1, 1}, {2, 1, 1}, true},
                              {{1, 3, 3}, {0, 1, 1}, {2, 1, 1}},
                              {{1, 3, 3}, {0, 1, 1}, {0, 1, 1}, {4, 1, 1}}};
    for (const Window &w : windows) {
        for (const int64_t width : {1, 2, 7, 15, 16, 17, 33, 39, 40, 56, 57, 112, 113, 224, 225}) {
            for (const int64_t height : {1, 4, 9}) {
                Shape in_shape = {2, uniform(rng, 2, 3), height, width};
                if (w.kernel.size() == 3) in_shape.insert(in_shape.begin() + 2, 2);
                PoolAttributes pa;
                pa.kernel = w.kernel;
                pa.pads_begin = w.pads_begin;
                pa.pads_end = w.pads_end;
                pa.strides = w.strides;
                if (w.ceil) pa.rounding = Rounding::ceil;
                const PoolGeometry geometry = infer_pool_shape(in_shape, pa);
                const Shape &out_shape = geometry.output_shape;
                for (const bool dense : {true, false}) {
                    Shape extra(in_shape.size(), 0);
                    extra.back() = dense ? 0 : 3;
                    Tensor input = dense ? Tensor::dense(DType::f32, in_shape) : Tensor::padded(DType::f32, in_shape, extra);
                    const bool flat = flat_plane_expected(DType::f32, in_shape, geometry, pa, /*avg=*/false, dense);
                    const bool avg_flat = flat_plane_expected(DType::f32, in_shape, geometry, pa, /*avg=*/true, dense);
                    const Geometry g{in_shape, pa, out_shape};
                    std::vector<double> values(static_cast<std::size_t>(input.element_count()));
                    for (double &v : values) v = chance(rng, 0.2) ? max_specials[uniform(rng, 0, 6)] : uniform(rng, -3, 3);
                    input.set_values(values);
                    MaxPoolAttributes ma;
                    static_cast<PoolAttributes &>(ma) = pa;
                    Tensor got = Tensor::dense(DType::f32, out_shape), expected = Tensor::dense(DType::f32, out_shape);
                    reference::max_pool(input.view(), expected.view(), ma);
                    std::string where = context(0, dense ? "max_pool" : "max_pool, padded rows", DType::f32, g, test::describe(ma));
                    const std::string picked = max_pool_kernel_picked(input, got, ma);
                    budget.check(::testing::AssertionResult(flat == (picked == "max_pool_f32_flat_plane")) << "picked " << picked, where);
                    check_max_pool(input, got, expected, ma, where, budget);
                    for (double &v : values) v = chance(rng, 0.03) ? avg_specials[uniform(rng, 0, 3)] : uniform(rng, -3, 3);
                    input.set_values(values);
                    for (const AvgPadMode mode : {AvgPadMode::exclude_pad, AvgPadMode::include_pad, AvgPadMode::include_pad_openvino}) {
                        AvgPoolAttributes aa;
                        static_cast<PoolAttributes &>(aa) = pa;
                        aa.pad_mode = mode;
                        reference::avg_pool(input.view(), expected.view(), aa);
                        where = context(0, dense ? "avg_pool" : "avg_pool, padded rows", DType::f32, g, test::describe(aa));
                        const std::string avg_picked = avg_pool_kernel_picked(input, got, aa);
                        budget.check(::testing::AssertionResult(avg_flat == (avg_picked == "avg_pool_f32_flat_plane"))
                                         << "picked " << avg_picked,
                                     where);
                        check_avg_pool_f32(input, got, expected, aa, where, budget);
                    }
                }
            }
        }
    }
}

// Windows one row high (1-D pooling, and 2-D windows of one row), which the rows-first and the
// unpadded MaxPool kernels specialize (schedules/pooling_schedule.cpp): MaxPool of f32, bf16 and
// f64 with NaN, the infinities and both zeros among the values, and f32 AvgPool in each pad mode,
// against the reference; strides 1-3, dilations 1 and 2, with and without padding, rows narrower
// and wider than a vector of every path. On the CPU paths each f32 MaxPool call is also checked to
// run the kernel meant (global pooling for a window that is the whole row, unpadded without
// padding where the output row is at least unpadded_min_width_f32, else rows first on the AVX
// paths, else the padded kernel), so a change of rule shows here. (A NaN fill cannot show an unwritten output where a NaN
// is expected; RandomPooling's other tests cover that.)
TEST_P(RandomPooling, OneRowWindows) {
    const Isa isa = active_isa();
    const bool cpu = isa != Isa::cuda && isa != Isa::opencl;
    const int64_t min_width = unpadded_min_width_f32(isa);
    Rng rng(6301);
    test::FailureBudget budget;
    const double inf = std::numeric_limits<double>::infinity(), nan = -std::numeric_limits<double>::quiet_NaN();
    const double specials[] = {nan, inf, -inf, -0.0, 0.0};
    for (const bool two_d : {false, true}) {
        for (const int64_t k : {2, 3, 5}) {
            for (const int64_t stride : {1, 2, 3}) {
                for (const int64_t dilation : {1, 2}) {
                    for (const int64_t pad : {int64_t{0}, k / 2}) {
                        for (const int64_t width : {5, 8, 17, 64, 130}) {
                            if ((k - 1) * dilation + 1 > width) continue;  // no window inside the row
                            const Shape in_shape = two_d ? Shape{2, 3, 3, width} : Shape{2, 3, width};
                            PoolAttributes pa;
                            pa.kernel = two_d ? Shape{1, k} : Shape{k};
                            pa.strides = two_d ? Shape{uniform(rng, 1, 2), stride} : Shape{stride};
                            pa.dilations = two_d ? Shape{1, dilation} : Shape{dilation};
                            pa.pads_begin = two_d ? Shape{0, pad} : Shape{pad};
                            pa.pads_end = pa.pads_begin;
                            const PoolGeometry geometry = infer_pool_shape(in_shape, pa);
                            const Geometry g{in_shape, pa, geometry.output_shape};
                            for (const DType dtype : {DType::f32, DType::bf16, DType::f64}) {
                                Tensor input = Tensor::dense(dtype, in_shape);
                                std::vector<double> values(static_cast<std::size_t>(input.element_count()));
                                for (double &v : values) v = chance(rng, 0.15) ? specials[uniform(rng, 0, 4)] : uniform(rng, -3, 3);
                                input.set_values(values);
                                MaxPoolAttributes ma;
                                static_cast<PoolAttributes &>(ma) = pa;
                                Tensor got = Tensor::dense(dtype, geometry.output_shape);
                                Tensor expected = Tensor::dense(dtype, geometry.output_shape);
                                reference::max_pool(input.view(), expected.view(), ma);
                                const std::string where = context(0, "max_pool, one-row window", dtype, g, test::describe(ma));
                                if (cpu && dtype == DType::f32) {
                                    const bool global = !two_d && pad == 0 && k == width;  // one window, the whole row
                                    const bool unpadded = pad == 0 && geometry.output_shape.back() >= min_width;
                                    const std::string meant = global     ? "global_max_pool_f32"
                                                              : unpadded ? "max_pool_f32_unpadded"
                                                              : rows_first_expected(dtype, 1, pa.strides[0]) ? "max_pool_f32_rows_first"
                                                                                                              : "max_pool_f32";
                                    const std::string picked = max_pool_kernel_picked(input, got, ma);
                                    budget.check(::testing::AssertionResult(picked == meant) << "picked " << picked << ", meant " << meant, where);
                                }
                                check_max_pool(input, got, expected, ma, where, budget);
                            }
                            Tensor input = Tensor::dense(DType::f32, in_shape);
                            std::vector<double> values(static_cast<std::size_t>(input.element_count()));
                            for (double &v : values) v = uniform(rng, -3, 3);
                            input.set_values(values);
                            Tensor got = Tensor::dense(DType::f32, geometry.output_shape);
                            Tensor expected = Tensor::dense(DType::f32, geometry.output_shape);
                            for (const AvgPadMode mode : {AvgPadMode::exclude_pad, AvgPadMode::include_pad, AvgPadMode::include_pad_openvino}) {
                                AvgPoolAttributes aa;
                                static_cast<PoolAttributes &>(aa) = pa;
                                aa.pad_mode = mode;
                                reference::avg_pool(input.view(), expected.view(), aa);
                                check_avg_pool_f32(input, got, expected, aa,
                                                   context(0, "avg_pool, one-row window", DType::f32, g, test::describe(aa)), budget);
                            }
                        }
                    }
                }
            }
        }
    }
}

// A call the rule sends to the padded kernel (its rows narrower than a vector) whose padded plane
// would pass the scratch limit runs the unpadded kernel instead of refusing: 2x2 windows at strides
// (2, 1024) over 8192 rows of 1026 columns, two outputs per row, where the padded plane (every row
// computed 63 outputs past its end, 65 windows: 65538 columns of 4 bytes, 8194 rows) would need 2^31 + 589840
// bytes. CPU paths (the GPU paths take the unpadded kernel for these disjoint windows anyway).
// f32 MaxPool and AvgPool on the AVX paths take the rows-first kernels instead (their scratch, 8
// rows of that width, fits), but not at strides (1, 1024) (2-row windows at stride 1 along y:
// padded, 8193 rows of those 65538 columns, 2^31 + 327688 bytes): that call runs the unpadded
// kernel everywhere.
// The input of those calls, 8192 rows of 1026 columns: zeros, random where the windows read.
Tensor narrow_rows_input(DType dtype, Rng &rng) {
    const Shape in_shape = {1, 1, 8192, 1026};
    Tensor input = Tensor::dense(dtype, in_shape);
    for (int64_t row = 0; row < in_shape[2]; row++) {
        for (const int64_t col : {0, 1, 1024, 1025}) {
            input.set(row * in_shape[3] + col, test::random_value(dtype, rng, test::FillOptions{}));
        }
    }
    return input;
}

TEST_P(RandomPooling, NarrowRowsPastTheScratchLimitRunUnpadded) {
    const Isa isa = active_isa();
    if (test::is_gpu(isa)) GTEST_SKIP() << "a CPU rule";
    Rng rng(6106);
    Tensor input = narrow_rows_input(DType::f32, rng);
    const Shape in_shape = input.shape(), out_shape = {1, 1, 4096, 2};
    MaxPoolAttributes ma;
    ma.kernel = Shape{2, 2};
    ma.strides = Shape{2, 1024};
    AvgPoolAttributes aa;
    static_cast<PoolAttributes &>(aa) = static_cast<const PoolAttributes &>(ma);
    Tensor got = Tensor::dense(DType::f32, out_shape), expected = Tensor::dense(DType::f32, out_shape);
    EXPECT_EQ(max_pool_kernel_picked(input, got, ma),
              rows_first_expected(DType::f32, 2, 2) ? "max_pool_f32_rows_first" : "max_pool_f32_unpadded");
    ASSERT_NO_THROW(max_pool(input.view(), got.view(), ma));
    reference::max_pool(input.view(), expected.view(), ma);
    EXPECT_TRUE(test::tensors_match(got, expected));
    MaxPoolAttributes stride_one = ma;
    stride_one.strides = Shape{1, 1024};
    const Shape rows_out = {1, 1, 8191, 2};
    ASSERT_EQ(infer_pool_shape(in_shape, stride_one).output_shape, rows_out);
    Tensor got_rows = Tensor::dense(DType::f32, rows_out), expected_rows = Tensor::dense(DType::f32, rows_out);
    EXPECT_EQ(max_pool_kernel_picked(input, got_rows, stride_one), "max_pool_f32_unpadded");
    ASSERT_NO_THROW(max_pool(input.view(), got_rows.view(), stride_one));
    reference::max_pool(input.view(), expected_rows.view(), stride_one);
    EXPECT_TRUE(test::tensors_match(got_rows, expected_rows));
    EXPECT_EQ(avg_pool_kernel_picked(input, got, aa),
              rows_first_expected(DType::f32, 2, 2) ? "avg_pool_f32_rows_first" : "avg_pool_f32_unpadded");
    ASSERT_NO_THROW(avg_pool(input.view(), got.view(), aa));
    reference::avg_pool(input.view(), expected.view(), aa);
    test::CompareOptions o;
    o.rel_tol = 1e-6;
    EXPECT_TRUE(test::tensors_match(got, expected, o));
    AvgPoolAttributes avg_stride_one = aa;
    avg_stride_one.strides = stride_one.strides;
    EXPECT_EQ(avg_pool_kernel_picked(input, got_rows, avg_stride_one), "avg_pool_f32_unpadded");
    ASSERT_NO_THROW(avg_pool(input.view(), got_rows.view(), avg_stride_one));
    reference::avg_pool(input.view(), expected_rows.view(), avg_stride_one);
    EXPECT_TRUE(test::tensors_match(got_rows, expected_rows, o));
}

// The same calls in bf16 and f64, whose scratch elements are as wide or wider (bf16 keys and sums
// in f32, f64 in f64) and which have no rows-first kernels: every one runs the unpadded kernel's
// narrow-row path, whose stages are scalar code (pooling_schedule.cpp), for MaxPool's whole-window
// kernels and AvgPool's three-stage ones.
TEST_P(RandomPooling, NarrowRowsPastTheScratchLimitRunUnpaddedInBf16AndF64) {
    const Isa isa = active_isa();
    if (test::is_gpu(isa)) GTEST_SKIP() << "a CPU rule";
    Rng rng(6107);
    for (const DType dtype : {DType::bf16, DType::f64}) {
        const Tensor input = narrow_rows_input(dtype, rng);
        const Shape in_shape = input.shape();
        const std::string type = dtype_name(dtype);
        for (const int64_t stride_y : {2, 1}) {
            MaxPoolAttributes ma;
            ma.kernel = Shape{2, 2};
            ma.strides = Shape{stride_y, 1024};
            AvgPoolAttributes aa;
            static_cast<PoolAttributes &>(aa) = static_cast<const PoolAttributes &>(ma);
            const Shape out_shape = infer_pool_shape(in_shape, ma).output_shape;
            ASSERT_EQ(out_shape.back(), 2);
            Tensor got = Tensor::dense(dtype, out_shape), expected = Tensor::dense(dtype, out_shape);
            const std::string where = type + " stride_y " + std::to_string(stride_y);
            EXPECT_EQ(max_pool_kernel_picked(input, got, ma), "max_pool_" + type + "_unpadded") << where;
            ASSERT_NO_THROW(max_pool(input.view(), got.view(), ma)) << where;
            reference::max_pool(input.view(), expected.view(), ma);
            EXPECT_TRUE(test::tensors_match(got, expected)) << where;
            EXPECT_EQ(avg_pool_kernel_picked(input, got, aa), "avg_pool_" + type + "_unpadded") << where;
            ASSERT_NO_THROW(avg_pool(input.view(), got.view(), aa)) << where;
            reference::avg_pool(input.view(), expected.view(), aa);
            test::CompareOptions o;
            if (dtype == DType::bf16) {
                o.ulp_tol = 1;
            } else {
                o.rel_tol = 1e-13;
            }
            EXPECT_TRUE(test::tensors_match(got, expected, o)) << where;
        }
    }
}

// The unpadded kernels of f32, bf16 and f64 compare values, not keys (pooling_generator.cpp):
// there too a zero maximum is written as +0, a NaN (here a negative one) wins over infinity and
// stays, written as the type's canonical quiet NaN, and -inf is a value like any other. Disjoint
// 1x2 windows, and 2x2 windows whose other row is -inf (the pattern in the first or the second
// row, so the special values also arrive through a y tap), two output rows (with one, the runtime
// would see stride 1 along y), which run the unpadded kernel on every path (checked; f16 not on
// the baseline, which emulates its conversion); rows of 21 outputs, so a whole vector and the last
// one shifted inwards on AVX-512, rows of 14, half vectors there (f16, whose keys have none: the
// padded kernel), and rows of 7, the padded or rows-first kernel's where they are narrower than a
// vector. f16 takes the same kernels, with keys.
TEST_P(RandomPooling, MaxPoolUnpaddedSignedZeroAndNaN) {
    const double inf = std::numeric_limits<double>::infinity(), nan = -std::numeric_limits<double>::quiet_NaN();
    // Windows: {-0, +0} {-inf, -0} {-0.5, -0} {nan, inf} {inf, nan} {-inf, -inf} {-0, 0.25}
    const std::vector<double> pattern = {-0.0, 0.0, -inf, -0.0, -0.5, -0.0, nan, inf, inf, nan, -inf, -inf, -0.0, 0.25};
    // The pattern's row among the window's rows (rows 1: 1x2 windows).
    struct Layout {
        int64_t rows, pattern_row;
    };
    for (const Layout layout : {Layout{1, 0}, Layout{2, 0}, Layout{2, 1}}) {
        MaxPoolAttributes a;
        a.kernel = Shape{layout.rows, 2};
        a.strides = Shape{layout.rows, 2};
        for (DType dtype : kFloatTypes) {
            const uint64_t quiet_nan = dtype == DType::f32    ? 0x7fc00000
                                       : dtype == DType::f64  ? 0x7ff8000000000000
                                       : dtype == DType::bf16 ? 0x7fc0
                                                              : 0x7e00;  // f16
            // Every CPU path builds every type's kernels; the GPU backends only those they compute
            // in (generators/variants.cmake), f32 always.
            const bool gpu = test::is_gpu(active_isa());
            if (dtype == DType::f32 || !gpu) {
                Tensor input = Tensor::dense(dtype, {1, 1, 2 * layout.rows, 42});
                Tensor output = Tensor::dense(dtype, {1, 1, 2, 21});
                const std::string kernel = "max_pool_" + std::string(dtype_name(dtype));
                const bool emulated_f16 = dtype == DType::f16 && active_isa() == Isa::baseline;
                EXPECT_EQ(max_pool_kernel_picked(input, output, a), emulated_f16 ? kernel : kernel + "_unpadded");
            }
            for (const int64_t repeats : {1, 2, 3}) {
                SCOPED_TRACE(std::string(dtype_name(dtype)) + " x" + std::to_string(repeats) + ", " +
                             std::to_string(layout.rows) + " rows, pattern in row " + std::to_string(layout.pattern_row));
                const int64_t width = 14 * repeats;
                std::vector<double> values(static_cast<std::size_t>(2 * layout.rows * width), -inf);
                for (int64_t out_row = 0; out_row < 2; out_row++) {
                    const int64_t row = out_row * layout.rows + layout.pattern_row;
                    for (int64_t i = 0; i < width; i++) {
                        values[static_cast<std::size_t>(row * width + i)] = pattern[static_cast<std::size_t>(i % 14)];
                    }
                }
                Tensor input = Tensor::dense(dtype, {1, 1, 2 * layout.rows, width});
                input.set_values(values);
                Tensor got = Tensor::dense(dtype, {1, 1, 2, 7 * repeats});
                ASSERT_NO_THROW(max_pool(input.view(), got.view(), a));
                const TensorView out = got.view();
                const std::size_t bytes = dtype_size(dtype);
                for (int64_t i = 0; i < 2 * 7 * repeats; i++) {
                    const double v = got.get(i);
                    uint64_t bits = 0;
                    std::memcpy(&bits, static_cast<const uint8_t *>(out.data) + i * static_cast<int64_t>(bytes), bytes);
                    switch (i % 7) {
                    case 3:
                    case 4: EXPECT_EQ(bits, quiet_nan) << "window " << i << ": the canonical quiet NaN"; break;
                    case 5: EXPECT_EQ(v, -inf) << "window " << i; break;
                    case 6: EXPECT_EQ(v, 0.25) << "window " << i; break;
                    default:
                        EXPECT_EQ(v, 0) << "window " << i;
                        EXPECT_FALSE(std::signbit(v)) << "window " << i << ": a zero maximum is written as +0";
                    }
                }
            }
        }
    }
}

// A window over the whole plane runs the global kernel (each plane one row), also for a 1x1
// plane; with an indices output it cannot (the global kernels have none).
TEST_P(RandomPooling, MaxPoolGlobalTakesTheGlobalKernel) {
    for (const Shape &shape : {Shape{2, 3, 7, 7}, Shape{1, 5, 1, 1}, Shape{2, 3, 4, 5, 6}, Shape{1, 2, 300}}) {
        Tensor input = Tensor::dense(DType::f32, shape);
        MaxPoolAttributes a;
        a.kernel.assign(shape.begin() + 2, shape.end());
        Shape out_shape = {shape[0], shape[1]};
        out_shape.resize(shape.size(), 1);
        Tensor output = Tensor::dense(DType::f32, out_shape);
        EXPECT_EQ(max_pool_kernel_picked(input, output, a), "global_max_pool_f32") << test::list_to_string(shape);
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, RandomPooling, ::testing::ValuesIn(test::all_isas()), test::isa_param_name);

// ---- The helpers themselves ----

TEST(TestUtil, HalfAndBFloatConversions) {
    EXPECT_EQ(test::float_to_f16(1.0f), 0x3C00);
    EXPECT_EQ(test::float_to_f16(-2.0f), 0xC000);
    EXPECT_EQ(test::float_to_f16(65504.0f), 0x7BFF);
    EXPECT_EQ(test::float_to_f16(65520.0f), 0x7C00);               // rounds up to infinity
    EXPECT_EQ(test::float_to_f16(1.0f + 1.0f / 2048), 0x3C00);     // tie -> even
    EXPECT_EQ(test::float_to_f16(1.0f + 3.0f / 2048), 0x3C02);     // tie -> even (up)
    EXPECT_EQ(test::float_to_f16(5.9604645e-8f), 0x0001);          // smallest subnormal
    EXPECT_EQ(test::float_to_f16(2.9802322e-8f), 0x0000);          // half of it: tie -> even (0)
    EXPECT_EQ(test::float_to_f16(-0.0f), 0x8000);
    EXPECT_EQ(test::f16_to_float(0x3555), 0.333251953125f);
    EXPECT_EQ(test::f16_to_float(0x0400), 6.103515625e-05f);       // smallest normal
    EXPECT_TRUE(std::isnan(test::f16_to_float(0x7E00)));
    EXPECT_EQ(test::float_to_bf16(1.0f), 0x3F80);
    EXPECT_EQ(test::float_to_bf16(-3.3895314e38f), 0xFF7F);        // lowest finite
    EXPECT_EQ(test::float_to_bf16(1.0f + 1.0f / 256), 0x3F80);     // tie -> even
    EXPECT_EQ(test::float_to_bf16(1.0f + 3.0f / 256), 0x3F82);
    EXPECT_EQ(test::bf16_to_float(0x4049), 3.140625f);
    EXPECT_TRUE(std::isinf(test::bf16_to_float(0xFF80)) && test::bf16_to_float(0xFF80) < 0);
    // Every f16 and bf16 bit pattern survives decode + encode.
    for (uint32_t b = 0; b < 0x10000; b++) {
        const auto bits = static_cast<uint16_t>(b);
        if (!std::isnan(test::f16_to_float(bits))) {
            ASSERT_EQ(test::float_to_f16(test::f16_to_float(bits)), bits);
        }
        if (!std::isnan(test::bf16_to_float(bits))) {
            ASSERT_EQ(test::float_to_bf16(test::bf16_to_float(bits)), bits);
        }
    }
}

TEST(TestUtil, CompareCountsExactCloseWrong) {
    Tensor a = Tensor::dense(DType::f32, {1, 1, 4}), b = Tensor::dense(DType::f32, {1, 1, 4});
    a.set_values({1, 2, 3, std::numeric_limits<double>::quiet_NaN()});
    b.set_values({1, 2.000001, 4, std::numeric_limits<double>::quiet_NaN()});
    test::CompareOptions o;
    o.rel_tol = 1e-6;
    const test::CompareResult r = test::compare_tensors(a, b, o);
    EXPECT_EQ(r.exact, 2);
    EXPECT_EQ(r.close, 1);
    EXPECT_EQ(r.wrong, 1);
    EXPECT_FALSE(test::tensors_match(a, b, o));
}

}  // namespace
}  // namespace poolconv
