// Shared helpers of the runtime and kernel tests: owning tensors (dense or with padded strides),
// random fills, element conversion, comparison against the reference (exact / close / wrong counts,
// after Halide's apps/hannk/util/buffer_util.h), ISA forcing and attribute printing.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "poolconv/poolconv.h"
#include "reference/reference_pooling.h"

namespace poolconv::test {

// ---- Element conversion (the reference's hand-written f16/bf16 codecs) ----

inline float f16_to_float(uint16_t bits) { return static_cast<float>(reference::f16_to_double(bits)); }
inline float bf16_to_float(uint16_t bits) { return static_cast<float>(reference::bf16_to_double(bits)); }
inline uint16_t float_to_f16(float v) { return reference::double_to_f16(static_cast<double>(v)); }
inline uint16_t float_to_bf16(float v) { return reference::double_to_bf16(static_cast<double>(v)); }

inline bool is_float_type(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64; }
inline bool is_16_bit(DType t) { return t == DType::f16 || t == DType::bf16; }

// ---- Owning tensors ----

// A tensor that owns its memory. `strides` may leave gaps (padded extents) so the view is not
// dense; bytes in the gaps are "outside the view" and can be checked to stay untouched.
class Tensor {
public:
    Tensor() = default;

    static Tensor dense(DType dtype, std::vector<int64_t> shape) { return padded(dtype, std::move(shape), {}); }

    // Each dimension d is stored with extent shape[d] + extra[d] (extra empty: all 0), so the
    // strides of the outer dimensions grow; the innermost stride stays 1.
    static Tensor padded(DType dtype, std::vector<int64_t> shape, std::vector<int64_t> extra) {
        Tensor t;
        t.dtype_ = dtype;
        t.shape_ = std::move(shape);
        if (extra.empty()) extra.assign(t.shape_.size(), 0);
        t.dense_ = std::all_of(extra.begin(), extra.end(), [](int64_t e) { return e == 0; });
        t.strides_.assign(t.shape_.size(), 1);
        int64_t stride = 1;
        for (std::size_t d = t.shape_.size(); d-- > 0;) {
            t.strides_[d] = stride;
            stride *= t.shape_[d] + extra[d];
        }
        t.storage_elements_ = stride;
        const std::size_t bytes = static_cast<std::size_t>(stride) * dtype_size(dtype);
        t.storage_.assign((bytes + 7) / 8 + 1, 0);
        return t;
    }

    DType dtype() const { return dtype_; }
    const std::vector<int64_t> &shape() const { return shape_; }
    const std::vector<int64_t> &strides() const { return strides_; }
    int64_t element_count() const {
        int64_t n = 1;
        for (int64_t d : shape_) n *= d;
        return n;
    }
    void *data() { return storage_.data(); }
    const void *data() const { return storage_.data(); }
    std::size_t storage_bytes() const { return static_cast<std::size_t>(storage_elements_) * dtype_size(dtype_); }

    // The view the API takes: empty strides when dense (the common case), explicit otherwise.
    TensorView view() const {
        TensorView v{dtype_, shape_, dense_ ? std::vector<int64_t>{} : strides_, const_cast<uint64_t *>(storage_.data())};
        return v;
    }

    // Storage offset (in elements) of the element with row-major logical index `flat`.
    int64_t offset_of(int64_t flat) const {
        int64_t offset = 0;
        for (std::size_t d = shape_.size(); d-- > 0;) {
            offset += (flat % shape_[d]) * strides_[d];
            flat /= shape_[d];
        }
        return offset;
    }
    std::vector<int64_t> coords_of(int64_t flat) const {
        std::vector<int64_t> c(shape_.size());
        for (std::size_t d = shape_.size(); d-- > 0;) {
            c[d] = flat % shape_[d];
            flat /= shape_[d];
        }
        return c;
    }

    double get(int64_t flat) const { return reference::load_as_double(dtype_, element_ptr(offset_of(flat))); }
    void set(int64_t flat, double v) { reference::store_from_double(dtype_, element_ptr(offset_of(flat)), v); }
    int64_t get_int(int64_t flat) const {
        const void *p = element_ptr(offset_of(flat));
        if (dtype_ == DType::i64) {
            int64_t v;
            std::memcpy(&v, p, 8);
            return v;
        }
        if (dtype_ == DType::i32) {
            int32_t v;
            std::memcpy(&v, p, 4);
            return v;
        }
        return static_cast<int64_t>(get(flat));
    }

    // Fills every byte of the storage (inside and outside the view) with `byte`.
    void fill_bytes(uint8_t byte) { std::memset(storage_.data(), byte, storage_bytes()); }

    // Sets values row-major from a list.
    void set_values(const std::vector<double> &values) {
        for (std::size_t i = 0; i < values.size(); i++) set(static_cast<int64_t>(i), values[i]);
    }

    // A dense copy with the same logical contents.
    Tensor dense_copy() const {
        Tensor t = dense(dtype_, shape_);
        const std::size_t es = dtype_size(dtype_);
        for (int64_t i = 0; i < element_count(); i++) {
            std::memcpy(t.element_ptr(i), element_ptr(offset_of(i)), es);
        }
        return t;
    }

    // Number of storage bytes outside the view that differ from `byte`.
    int64_t bytes_outside_view_not_equal(uint8_t byte) const {
        std::vector<bool> in_view(static_cast<std::size_t>(storage_elements_), false);
        for (int64_t i = 0; i < element_count(); i++) in_view[static_cast<std::size_t>(offset_of(i))] = true;
        const std::size_t es = dtype_size(dtype_);
        const auto *bytes = reinterpret_cast<const uint8_t *>(storage_.data());
        int64_t changed = 0;
        for (std::size_t e = 0; e < in_view.size(); e++) {
            if (in_view[e]) continue;
            for (std::size_t b = 0; b < es; b++) changed += bytes[e * es + b] != byte;
        }
        return changed;
    }

private:
    void *element_ptr(int64_t offset) {
        return reinterpret_cast<uint8_t *>(storage_.data()) + offset * static_cast<int64_t>(dtype_size(dtype_));
    }
    const void *element_ptr(int64_t offset) const {
        return reinterpret_cast<const uint8_t *>(storage_.data()) + offset * static_cast<int64_t>(dtype_size(dtype_));
    }

    DType dtype_ = DType::f32;
    std::vector<int64_t> shape_, strides_;
    bool dense_ = true;
    int64_t storage_elements_ = 0;
    std::vector<uint64_t> storage_;  // 8-byte aligned
};

// ---- Random data ----

using Rng = std::mt19937_64;

inline int uniform(Rng &rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
inline bool chance(Rng &rng, double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p; }

struct FillOptions {
    // With `ties`, values come from a small set of integers (scaled by 1/4 for floats) so equal
    // values are frequent in every window; otherwise uniform in the type's test range.
    bool ties = true;
    double nan_probability = 0;  // floats only
    double inf_probability = 0;  // floats only: +inf or -inf
};

inline double random_value(DType dtype, Rng &rng, const FillOptions &o) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    if (is_float_type(dtype)) {
        const double u = unit(rng);
        if (u < o.nan_probability) return std::numeric_limits<double>::quiet_NaN();
        if (u < o.nan_probability + o.inf_probability) {
            return unit(rng) < 0.5 ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        }
    }
    switch (dtype) {
    case DType::u8:
        return o.ties ? static_cast<double>(std::uniform_int_distribution<int>(0, 6)(rng))
                      : static_cast<double>(std::uniform_int_distribution<int>(0, 255)(rng));
    case DType::i8:
        return o.ties ? static_cast<double>(std::uniform_int_distribution<int>(-4, 3)(rng))
                      : static_cast<double>(std::uniform_int_distribution<int>(-128, 127)(rng));
    default:
        if (o.ties) return std::uniform_int_distribution<int>(-12, 12)(rng) / 4.0;
        return std::uniform_real_distribution<double>(-100.0, 100.0)(rng);
    }
}

// Fills the view's elements; values are rounded to the tensor's type by the store.
inline void fill_random(Tensor &t, Rng &rng, const FillOptions &o) {
    for (int64_t i = 0; i < t.element_count(); i++) t.set(i, random_value(t.dtype(), rng, o));
}

// ---- Comparison ----

struct CompareOptions {
    double rel_tol = 0;      // |got - expected| <= abs_tol + rel_tol * |expected| counts as close
    double abs_tol = 0;
    int ulp_tol = 0;         // or within this many units in the last place of the tensor's type
    double max_close_fraction = 1.0;  // more close (inexact) elements than this fraction fail
    int max_logged = 8;      // mismatches written to the report
};

struct CompareResult {
    int64_t exact = 0, close = 0, wrong = 0;
    std::string log;
    bool ok(const CompareOptions &o, int64_t total) const {
        return wrong == 0 && (total == 0 || static_cast<double>(close) <= o.max_close_fraction * static_cast<double>(total));
    }
};

// Units in the last place between two values of a float type, through the ordered bit patterns.
inline int64_t ulp_distance(DType dtype, double a, double b) {
    auto ordered = [dtype](double v) -> int64_t {
        int64_t bits = 0;
        int sign_bit = 0;
        switch (dtype) {
        case DType::f16: bits = reference::double_to_f16(v); sign_bit = 15; break;
        case DType::bf16: bits = reference::double_to_bf16(v); sign_bit = 15; break;
        case DType::f32: {
            float f = static_cast<float>(v);
            uint32_t u;
            std::memcpy(&u, &f, 4);
            bits = u;
            sign_bit = 31;
            break;
        }
        default: {
            uint64_t u;
            std::memcpy(&u, &v, 8);
            const int64_t mag = static_cast<int64_t>(u & ~(uint64_t(1) << 63));
            return (u >> 63) ? -mag : mag;
        }
        }
        const int64_t mag = bits & ((int64_t(1) << sign_bit) - 1);
        return (bits >> sign_bit) ? -mag : mag;
    };
    const int64_t d = ordered(a) - ordered(b);
    return d < 0 ? -d : d;
}

// Compares two tensors of the same shape element by element, in logical row-major order.
// Exact: equal values (both NaN counts as equal). Close: within the tolerances. Else wrong.
inline CompareResult compare_tensors(const Tensor &got, const Tensor &expected, const CompareOptions &o = {}) {
    CompareResult r;
    if (got.shape() != expected.shape()) {
        r.wrong = 1;
        r.log = "shape " + shape_to_string(got.shape()) + " vs expected " + shape_to_string(expected.shape());
        return r;
    }
    std::ostringstream log;
    int logged = 0;
    const bool integer = !is_float_type(expected.dtype());
    for (int64_t i = 0; i < expected.element_count(); i++) {
        const double e = integer ? static_cast<double>(expected.get_int(i)) : expected.get(i);
        const double g = integer ? static_cast<double>(got.get_int(i)) : got.get(i);
        const bool both_nan = std::isnan(e) && std::isnan(g);
        if (both_nan || e == g) {
            r.exact++;
            continue;
        }
        bool close = false;
        if (!std::isnan(e) && !std::isnan(g) && std::isfinite(e) && std::isfinite(g)) {
            close = std::fabs(g - e) <= o.abs_tol + o.rel_tol * std::fabs(e);
            if (!close && o.ulp_tol > 0) close = ulp_distance(expected.dtype(), g, e) <= o.ulp_tol;
        }
        if (close) {
            r.close++;
            continue;
        }
        r.wrong++;
        if (logged < o.max_logged) {
            logged++;
            log.precision(9);
            log << "\n    at " << shape_to_string(expected.coords_of(i)) << ": got " << g << ", expected " << e;
        }
    }
    if (r.wrong > logged) log << "\n    ... " << (r.wrong - logged) << " more";
    r.log = log.str();
    return r;
}

// gtest-friendly form: EXPECT_TRUE(tensors_match(got, expected, options)) << context;
inline ::testing::AssertionResult tensors_match(const Tensor &got, const Tensor &expected, const CompareOptions &o = {},
                                                const char *what = "values") {
    const CompareResult r = compare_tensors(got, expected, o);
    if (r.ok(o, expected.element_count())) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": " << r.exact << " exact, " << r.close << " close, " << r.wrong
                                         << " wrong of " << expected.element_count() << r.log;
}

// Reports failing configurations: the first few in full, then only a count (every configuration
// is still checked, so one bug does not hide another), and a summary at the end.
class FailureBudget {
public:
    FailureBudget() = default;
    FailureBudget(const FailureBudget &) = delete;
    FailureBudget &operator=(const FailureBudget &) = delete;
    ~FailureBudget() {
        if (failures_ > kLogged) {
            ADD_FAILURE() << failures_ << " failing checks in " << configurations_ << " configurations (first "
                          << kLogged << " shown above)";
        }
    }
    void check(const ::testing::AssertionResult &r, const std::string &where) {
        if (where != last_where_) {
            configurations_++;
            last_where_ = where;
        }
        if (r) return;
        if (++failures_ <= kLogged) ADD_FAILURE() << where << "\n  " << r.message();
    }

private:
    static constexpr int kLogged = 5;
    int failures_ = 0;
    int configurations_ = 0;
    std::string last_where_;
};

// ---- ISA selection ----

// Forces `isa`; false when this CPU lacks it (the runtime then falls back to a lesser path).
inline bool force_isa(Isa isa) {
    set_isa(isa);
    return active_isa() == isa;
}

// Whether `isa` is a GPU path (CUDA, OpenCL), as kIsaTable says.
inline bool is_gpu(Isa isa) {
    for (const IsaInfo &info : kIsaTable) {
        if (info.isa == isa) return info.kind == IsaKind::gpu;
    }
    return false;
}

// The paths every kernel test covers: all this build has (CPU paths of this architecture, GPU
// backends built); a path the machine lacks is skipped.
inline std::vector<Isa> all_isas() { return built_isas(); }

inline std::string isa_param_name(const ::testing::TestParamInfo<Isa> &info) { return isa_name(info.param); }

// A fixture parameterized over the ISA: forces it in SetUp (skipping when the CPU lacks it) and
// restores the default afterwards.
class IsaTest : public ::testing::TestWithParam<Isa> {
protected:
    void SetUp() override {
        if (!force_isa(GetParam())) {
            const Isa got = active_isa();
            set_isa(Isa::best);
            GTEST_SKIP() << "this machine lacks " << isa_name(GetParam()) << " (the runtime would run "
                         << isa_name(got) << ")";
        }
    }
    void TearDown() override { set_isa(Isa::best); }
};

// ---- Printing ----

inline std::string list_to_string(const std::vector<int64_t> &v) { return v.empty() ? "default" : shape_to_string(v); }

inline const char *auto_pad_name(AutoPad p) {
    switch (p) {
    case AutoPad::explicit_pads: return "explicit";
    case AutoPad::valid: return "valid";
    case AutoPad::same_upper: return "same_upper";
    case AutoPad::same_lower: return "same_lower";
    }
    return "?";
}
inline const char *rounding_name(Rounding r) {
    switch (r) {
    case Rounding::floor: return "floor";
    case Rounding::ceil: return "ceil";
    case Rounding::ceil_torch: return "ceil_torch";
    }
    return "?";
}
inline const char *pad_mode_name(AvgPadMode m) {
    switch (m) {
    case AvgPadMode::exclude_pad: return "exclude_pad";
    case AvgPadMode::include_pad: return "include_pad";
    case AvgPadMode::include_pad_openvino: return "include_pad_openvino";
    }
    return "?";
}

inline std::string describe(const PoolAttributes &a) {
    std::ostringstream s;
    s << "kernel=" << list_to_string(a.kernel) << " strides=" << list_to_string(a.strides)
      << " dilations=" << list_to_string(a.dilations) << " pads_begin=" << list_to_string(a.pads_begin)
      << " pads_end=" << list_to_string(a.pads_end) << " auto_pad=" << auto_pad_name(a.auto_pad)
      << " rounding=" << rounding_name(a.rounding);
    return s.str();
}
inline std::string describe(const MaxPoolAttributes &a) {
    return describe(static_cast<const PoolAttributes &>(a)) + " axis=" + std::to_string(a.axis) +
           " storage_order=" + (a.storage_order == StorageOrder::row_major ? "row_major" : "column_major");
}
inline std::string describe(const AvgPoolAttributes &a) {
    return describe(static_cast<const PoolAttributes &>(a)) + " pad_mode=" + pad_mode_name(a.pad_mode);
}

// ---- Attributes and expected errors ----

// Pooling attributes in one expression (MaxPoolAttributes / AvgPoolAttributes via Attributes).
template<typename Attributes = PoolAttributes>
Attributes pool_attributes(std::vector<int64_t> kernel, std::vector<int64_t> strides = {},
                           std::vector<int64_t> pads_begin = {}, std::vector<int64_t> pads_end = {},
                           AutoPad auto_pad = AutoPad::explicit_pads, Rounding rounding = Rounding::floor,
                           std::vector<int64_t> dilations = {}) {
    Attributes a;
    a.kernel = std::move(kernel);
    a.strides = std::move(strides);
    a.pads_begin = std::move(pads_begin);
    a.pads_end = std::move(pads_end);
    a.auto_pad = auto_pad;
    a.rounding = rounding;
    a.dilations = std::move(dilations);
    return a;
}

// Runs `call`, which must throw poolconv::Error with a message mentioning every needle.
inline void expect_error(const std::function<void()> &call, const std::vector<std::string> &needles) {
    try {
        call();
        ADD_FAILURE() << "no error thrown";
    } catch (const Error &e) {
        const std::string message = e.what();
        for (const std::string &needle : needles) {
            EXPECT_NE(message.find(needle), std::string::npos)
                << "message \"" << message << "\" does not mention \"" << needle << "\"";
        }
    } catch (const std::exception &e) {
        ADD_FAILURE() << "expected poolconv::Error, got: " << e.what();
    } catch (...) {
        ADD_FAILURE() << "expected poolconv::Error, got a non-standard exception";
    }
}

}  // namespace poolconv::test

namespace poolconv {
// gtest prints parameters with this (found by argument-dependent lookup): "avx2", not raw bytes.
inline void PrintTo(Isa isa, std::ostream *os) { *os << isa_name(isa); }
}  // namespace poolconv
