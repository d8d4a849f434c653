// fuzz_pool: differential fuzzing of MaxPool and AvgPool. Small random shapes, attributes and data
// run through the dispatched kernels on every CPU path this machine has, against the plain C++
// reference: MaxPool values and indices bit-exact, AvgPool within the tolerances of
// tests/random_pooling_test.cpp (f32: 1e-5 relative plus 1e-5 of the largest input; f64: 1e-13;
// f16/bf16, whose data here are multiples of 1/8 and so sum exactly: one unit in the last place).
// An error is a finding too: every call made here is a valid one.
#include <cstddef>
#include <cstdint>
#include <string>

#include "reference/reference_pooling.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace poolconv;
using test::Tensor;
using Shape = std::vector<int64_t>;

constexpr DType kMaxTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8, DType::u8};
constexpr DType kAvgTypes[] = {DType::f32, DType::f16, DType::bf16, DType::f64};

void compare(const Tensor &got, const Tensor &want, const test::CompareOptions &o, const std::string &what) {
    const test::CompareResult r = test::compare_tensors(got, want, o);
    if (!r.ok(o, want.element_count())) fuzz::finding(what + ": " + std::to_string(r.wrong) + " wrong" + r.log);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    static const std::vector<Isa> isas = fuzz::host_isas();
    FuzzedDataProvider in(data, size);
    const bool max = in.ConsumeBool();
    const std::size_t spatial = in.ConsumeIntegralInRange<std::size_t>(1, 3);
    Shape input = {in.ConsumeIntegralInRange<int64_t>(1, 2), in.ConsumeIntegralInRange<int64_t>(1, 3)};
    for (std::size_t i = 0; i < spatial; i++) input.push_back(in.ConsumeIntegralInRange<int64_t>(1, spatial == 3 ? 6 : 11));
    PoolAttributes a;
    for (std::size_t i = 0; i < spatial; i++) {
        a.kernel.push_back(in.ConsumeIntegralInRange<int64_t>(1, 4));
        a.strides.push_back(in.ConsumeIntegralInRange<int64_t>(1, 3));
        a.dilations.push_back(in.ConsumeIntegralInRange<int64_t>(1, 2));
        a.pads_begin.push_back(in.ConsumeIntegralInRange<int64_t>(0, 3));
        a.pads_end.push_back(in.ConsumeIntegralInRange<int64_t>(0, 3));
    }
    a.auto_pad = fuzz::pick_enum(in, AutoPad::same_lower);
    a.rounding = fuzz::pick_enum(in, Rounding::ceil_torch);
    PoolGeometry g;
    try {
        g = infer_pool_shape(input, a);
    } catch (const Error &) {
        return 0;  // e.g. a window larger than the padded input: fuzz_shape covers those
    }
    const DType dtype = max ? kMaxTypes[in.ConsumeIntegralInRange<int>(0, 5)] : kAvgTypes[in.ConsumeIntegralInRange<int>(0, 3)];
    Tensor x = Tensor::dense(dtype, input);
    fuzz::fill(in, x, 100, test::is_16_bit(dtype) ? 0.125 : 0, true);
    const std::string shapes = std::string(max ? "max_pool " : "avg_pool ") + dtype_name(dtype) + " input " +
                               shape_to_string(input) + ", " + test::describe(a);

    Tensor want = Tensor::dense(dtype, g.output_shape), got = Tensor::dense(dtype, g.output_shape);
    if (max) {
        MaxPoolAttributes m;
        static_cast<PoolAttributes &>(m) = a;
        m.axis = in.ConsumeIntegralInRange<int64_t>(0, 2);
        m.storage_order = fuzz::pick_enum(in, StorageOrder::column_major);
        const DType index_type = in.ConsumeBool() ? DType::i64 : DType::i32;
        Tensor want_idx = Tensor::dense(index_type, g.output_shape), got_idx = Tensor::dense(index_type, g.output_shape);
        const TensorView want_iv = want_idx.view(), got_iv = got_idx.view();
        reference::max_pool(x.view(), want.view(), m, &want_iv);
        for (Isa isa : isas) {
            const std::string what = shapes + ", axis " + std::to_string(m.axis) + ", isa " + isa_name(isa);
            set_isa(isa);
            try {
                max_pool(x.view(), got.view(), m, &got_iv);
            } catch (const Error &e) {
                fuzz::finding(what + ": threw " + e.what());
            }
            compare(got, want, {}, what + " (values)");
            compare(got_idx, want_idx, {}, what + " (indices)");
        }
    } else {
        AvgPoolAttributes avg;
        static_cast<PoolAttributes &>(avg) = a;
        avg.pad_mode = fuzz::pick_enum(in, AvgPadMode::include_pad_openvino);
        reference::avg_pool(x.view(), want.view(), avg);
        test::CompareOptions o;
        if (test::is_16_bit(dtype)) {
            o.ulp_tol = 1;
        } else {
            o.rel_tol = dtype == DType::f64 ? 1e-13 : 1e-5;
            o.abs_tol = o.rel_tol * fuzz::max_finite_abs(x);
        }
        for (Isa isa : isas) {
            const std::string what = shapes + ", pad mode " + test::pad_mode_name(avg.pad_mode) + ", isa " + isa_name(isa);
            set_isa(isa);
            try {
                avg_pool(x.view(), got.view(), avg);
            } catch (const Error &e) {
                fuzz::finding(what + ": threw " + e.what());
            }
            compare(got, want, o, what);
        }
    }
    set_isa(Isa::best);
    return 0;
}
