// Output size and resolved pads of pooling windows: the rules of docs/SEMANTICS.md, in plain C++.
#include <string>

#include "poolconv/pooling.h"
#include "runtime/checked_math.h"
#include "runtime/validation.h"
#include "schedules/pool_limits.h"

namespace poolconv {

namespace {

// floor(a / b) and ceil(a / b) for b > 0 and any a, without intermediate overflow.
int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 && a > 0); }

}  // namespace

namespace detail {

PoolGeometry infer_pool_geometry(const char *op, const std::vector<int64_t> &input_shape, const PoolAttributes &a,
                                 int64_t overcompute) {
    detail::check_rank(op, "input", input_shape);
    const std::size_t spatial = input_shape.size() - 2;
    for (std::size_t i = 0; i < input_shape.size(); i++) {
        if (input_shape[i] < (i < 2 ? 0 : 1)) {
            throw Error(std::string(op) + ": input shape " + shape_to_string(input_shape) + " has dimension " +
                        std::to_string(i) + (i < 2 ? " < 0" : " < 1"));
        }
    }
    const auto kernel = detail::spatial_list(op, "kernel", a.kernel, spatial, -1, 1);
    const auto strides = detail::spatial_list(op, "strides", a.strides, spatial, 1, 1);
    const auto dilations = detail::spatial_list(op, "dilations", a.dilations, spatial, 1, 1);
    const bool use_pads = a.auto_pad == AutoPad::explicit_pads;
    const auto given_begin = detail::spatial_list(op, "pads_begin", use_pads ? a.pads_begin : std::vector<int64_t>{}, spatial, 0, 0);
    const auto given_end = detail::spatial_list(op, "pads_end", use_pads ? a.pads_end : std::vector<int64_t>{}, spatial, 0, 0);

    PoolGeometry g;
    g.output_shape.reserve(input_shape.size());  // one allocation per list: see SpatialValues
    g.output_shape = {input_shape[0], input_shape[1]};
    g.pads_begin.reserve(spatial);
    g.pads_end.reserve(spatial);
    for (std::size_t i = 0; i < spatial; i++) {
        const int64_t in = input_shape[i + 2];
        const int64_t s = strides[i];
        const int64_t dilated = checked_add(checked_mul(kernel[i] - 1, dilations[i], "dilated kernel"), 1, "dilated kernel");
        int64_t out = 0, pb = given_begin[i], pe = given_end[i];
        if (a.auto_pad == AutoPad::same_upper || a.auto_pad == AutoPad::same_lower) {
            out = ceil_div(in, s);
            const int64_t needed = checked_add(checked_mul(out - 1, s, "same padding"), dilated, "same padding") - in;
            const int64_t total = needed > 0 ? needed : 0;
            const int64_t small = total / 2, large = total - small;
            pb = a.auto_pad == AutoPad::same_upper ? small : large;
            pe = a.auto_pad == AutoPad::same_upper ? large : small;
        } else {
            const int64_t span = checked_add(checked_add(in, pb, "padded input size"), pe, "padded input size") - dilated;
            out = checked_add(a.rounding == Rounding::floor ? floor_div(span, s) : ceil_div(span, s), 1,
                              "pooling output size");
            // ceil_torch: the last window must start inside the input or the begin padding.
            // (A start beyond int64 is beyond the input: in + pb fits, span did.)
            int64_t last_start = 0;
            if (a.rounding == Rounding::ceil_torch && out > 0 &&
                (__builtin_mul_overflow(out - 1, s, &last_start) || last_start >= in + pb)) {
                out -= 1;
            }
        }
        if (out < 1) {
            throw Error(std::string(op) + ": output size along spatial dimension " + std::to_string(i) + " would be " +
                        std::to_string(out) + " (input " + std::to_string(in) + ", dilated kernel " +
                        std::to_string(dilated) + ", pads " + std::to_string(pb) + "+" + std::to_string(pe) +
                        ", stride " + std::to_string(s) + ")");
        }
        // What the kernels take as int32: the attributes, and the last input coordinate any
        // window reads (relative to -pad_begin), over-computed outputs included.
        detail::to_int32(op, "kernel", i, kernel[i]);
        detail::to_int32(op, "strides", i, s);
        detail::to_int32(op, "dilations", i, dilations[i]);
        detail::to_int32(op, "pads_begin", i, pb);
        int64_t last = 0, reach = 0;
        if (__builtin_add_overflow(out - 1, overcompute, &last) || __builtin_mul_overflow(last, s, &reach) ||
            __builtin_add_overflow(reach, dilated - 1, &reach) || __builtin_add_overflow(reach, pb, &reach)) {
            throw Error(std::string(op) + ": window reach[" + std::to_string(i) +
                        "] exceeds the kernels' 32-bit range (and int64)");
        }
        detail::to_int32(op, "window reach", i, reach);
        g.output_shape.push_back(out);
        g.pads_begin.push_back(pb);
        g.pads_end.push_back(pe);
    }
    int64_t count = 1;
    for (int64_t d : g.output_shape) count = checked_mul(count, d, "pooling: output element count");
    return g;
}

}  // namespace detail

PoolGeometry infer_pool_shape(const std::vector<int64_t> &input_shape, const PoolAttributes &attributes) {
    return detail::infer_pool_geometry("pooling", input_shape, attributes, kMaxPoolOvercompute);
}

}  // namespace poolconv
