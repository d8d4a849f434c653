// Shared pieces of the libFuzzer targets (tests/fuzz/README.md): attributes and small tensors drawn
// from the fuzzer's bytes, and the one way a target reports a finding.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "poolconv/poolconv.h"
#include "tests/test_util.h"

namespace poolconv::fuzz {

// A finding: what broke, then abort() so that libFuzzer saves the input that did it.
[[noreturn]] inline void finding(const std::string &what) {
    std::fprintf(stderr, "FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

// One of the values of an enum class whose values are 0..last.
template <typename Enum>
Enum pick_enum(FuzzedDataProvider &in, Enum last) {
    return static_cast<Enum>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(last)));
}

// A list of `count` attribute values: mostly small, sometimes anything (0, negative, huge), and
// sometimes absent (empty, the default) or of the wrong length.
inline std::vector<int64_t> pick_list(FuzzedDataProvider &in, std::size_t count, int64_t lo, int64_t hi) {
    const int form = in.ConsumeIntegralInRange<int>(0, 15);
    if (form == 0) return {};
    if (form == 1) count = in.ConsumeIntegralInRange<std::size_t>(0, 6);
    std::vector<int64_t> values(count);
    for (int64_t &v : values) {
        v = in.ConsumeIntegralInRange<int>(0, 31) == 0 ? in.ConsumeIntegral<int64_t>() : in.ConsumeIntegralInRange(lo, hi);
    }
    return values;
}

// The window attributes every operator shares, for `spatial` spatial dimensions.
inline void pick_window(FuzzedDataProvider &in, std::size_t spatial, WindowAttributes &a) {
    a.strides = pick_list(in, spatial, 1, 4);
    a.dilations = pick_list(in, spatial, 1, 3);
    a.pads_begin = pick_list(in, spatial, 0, 4);
    a.pads_end = pick_list(in, spatial, 0, 4);
    a.auto_pad = pick_enum(in, AutoPad::same_lower);
}

// A tensor shape of rank 3-5 (sometimes any rank) with small extents (sometimes 0 or huge).
inline std::vector<int64_t> pick_shape(FuzzedDataProvider &in, int64_t max_extent) {
    std::size_t rank = in.ConsumeIntegralInRange<std::size_t>(3, 5);
    if (in.ConsumeIntegralInRange<int>(0, 31) == 0) rank = in.ConsumeIntegralInRange<std::size_t>(0, 7);
    std::vector<int64_t> shape(rank);
    for (int64_t &d : shape) d = in.ConsumeIntegralInRange<int64_t>(1, max_extent);
    if (rank > 0 && in.ConsumeIntegralInRange<int>(0, 31) == 0) {
        shape[in.ConsumeIntegralInRange<std::size_t>(0, rank - 1)] = in.ConsumeIntegral<int64_t>();
    }
    return shape;
}

// Element count of a shape, or -1 when it is not a small positive one (at most `limit`).
inline int64_t small_count(const std::vector<int64_t> &shape, int64_t limit) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0 || d > limit) return -1;
        n *= d;
        if (n > limit) return -1;
    }
    return n;
}

// Fills a tensor from the fuzzer's bytes: float types get values in [-range, range], multiples of
// `step` (when not 0) so that small sums stay exact, and now and then NaN or an infinity (with
// `specials`); u8 and i8 any value of theirs.
inline void fill(FuzzedDataProvider &in, test::Tensor &t, double range, double step, bool specials) {
    for (int64_t i = 0; i < t.element_count(); i++) {
        if (t.dtype() == DType::u8) {
            t.set(i, static_cast<double>(in.ConsumeIntegral<uint8_t>()));
            continue;
        }
        if (!test::is_float_type(t.dtype())) {
            t.set(i, static_cast<double>(in.ConsumeIntegral<int8_t>()));
            continue;
        }
        const int kind = in.ConsumeIntegralInRange<int>(0, 63);
        if (specials && kind == 0) {
            t.set(i, std::numeric_limits<double>::quiet_NaN());
        } else if (specials && kind == 1) {
            t.set(i, in.ConsumeBool() ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
        } else {
            const double v = in.ConsumeFloatingPointInRange<double>(-range, range);
            t.set(i, step > 0 ? std::round(v / step) * step : v);  // rounded to the type by the store
        }
    }
}

// The largest finite magnitude among a tensor's elements (0 for none).
inline double max_finite_abs(const test::Tensor &t) {
    double m = 0;
    for (int64_t i = 0; i < t.element_count(); i++) {
        const double v = std::fabs(t.get(i));
        if (std::isfinite(v)) m = std::max(m, v);
    }
    return m;
}

// The CPU paths this machine runs: every one the build has that the CPU supports.
inline std::vector<Isa> host_isas() {
    std::vector<Isa> isas;
    for (Isa isa : architecture_isas()) {
        if (test::force_isa(isa)) isas.push_back(isa);
    }
    set_isa(Isa::best);
    return isas;
}

}  // namespace poolconv::fuzz
