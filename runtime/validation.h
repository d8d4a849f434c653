// Argument checks shared by the operators, each throwing Error with a message naming the argument.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "poolconv/pooling.h"
#include "poolconv/tensor.h"

namespace poolconv::detail {

// Rank must be 3, 4 or 5 (N, C and 1 to 3 spatial dimensions).
void check_rank(const char *op, const char *what, const std::vector<int64_t> &shape);

// One value per spatial dimension (at most 3; entries past the input's spatial dimensions are
// unused), in place: the operators resolve their attributes on every call, and a call can take
// only microseconds (a global average pool of 2048 7x7 planes), where each heap allocation shows.
using SpatialValues = std::array<int64_t, 3>;

// One value per spatial dimension, each >= min_value. An empty list means "all default_value";
// default_value < 0 means the list is required.
SpatialValues spatial_list(const char *op, const char *name, const std::vector<int64_t> &values, std::size_t spatial,
                           int64_t default_value, int64_t min_value);

// A tensor a kernel can take: non-null data (unless empty), the given shape and dtype, positive
// strides with a contiguous last dimension, and at most 2^31 - 1 elements.
void check_tensor(const char *op, const char *what, const TensorView &t, DType dtype,
                  const std::vector<int64_t> &expected_shape);

// v as int32 for a kernel argument; Error "op: name[i] = v exceeds the kernels' 32-bit range" if
// it does not fit.
int32_t to_int32(const char *op, const char *name, std::size_t i, int64_t v);

// The stride and dilation a kernel gets along one axis of `outputs` outputs and a window of `taps`
// taps, from the call's. A stride along an axis of one output, or a dilation along a window of one
// tap, changes no window, so kernels get 1: that takes their fast paths, and keeps what they copy
// and over-compute near the input (convolution tasks size their input copy by the stride; padded
// pooling kernels compute kPooledRowsPerStep rows per step, so a stride as given reaches past the
// input: a 2-row input with stride 12713985 asked for a 13 GB scratch plane, found by fuzz_shape).
// Both fit in int32 for a geometry infer_pool_geometry returned.
struct KernelStep {
    int32_t stride, dilation;
};
inline KernelStep kernel_step(int64_t outputs, int64_t taps, int64_t stride, int64_t dilation) {
    return {static_cast<int32_t>(outputs == 1 ? 1 : stride), static_cast<int32_t>(taps == 1 ? 1 : dilation)};
}

// infer_pool_shape, with messages prefixed by `op`. A geometry it returns is one the kernels take:
// kernel, strides, dilations and resolved pads_begin fit in int32, and so does every input
// coordinate a window reads, for outputs up to `overcompute` past the end too (convolution tiles
// compute whole tiles: kMaxTileOvercompute). The operators then pass these as int32 unchecked.
PoolGeometry infer_pool_geometry(const char *op, const std::vector<int64_t> &input_shape, const PoolAttributes &a,
                                 int64_t overcompute = 0);

}  // namespace poolconv::detail
