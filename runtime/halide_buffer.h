// TensorViews as kernels see them: halide_buffer_t in Halide's innermost-first order
// (x = W, y = H, z = D, then channels and batch). Spatial axes a view lacks (1-D and 2-D
// operators) get extent 1.
#pragma once

#include <initializer_list>

#include "HalideRuntime.h"
#include "poolconv/tensor.h"

namespace poolconv::detail {

class KernelBuffer {
public:
    // A pooling tensor: 5-D (x, y, z, c, n).
    explicit KernelBuffer(const TensorView &view);
    // A convolution tensor: 6-D (x, y, z, c, g, n), its C axis seen as `groups` groups of C / groups
    // channels.
    KernelBuffer(const TensorView &view, int64_t groups);
    // An f32 array with these dimensions (innermost first), e.g. packed weights.
    KernelBuffer(float *data, std::initializer_list<halide_dimension_t> dims);
    KernelBuffer(const KernelBuffer &) = delete;
    KernelBuffer &operator=(const KernelBuffer &) = delete;

    halide_buffer_t *get() { return &buffer_; }

private:
    static constexpr int kMaxDims = 6;
    // The spatial axes x, y, z of `view` into dims_[0..2].
    void set_spatial(const TensorView &view, const std::vector<int64_t> &strides);

    halide_dimension_t dims_[kMaxDims] = {};
    halide_buffer_t buffer_ = {};
};

}  // namespace poolconv::detail
