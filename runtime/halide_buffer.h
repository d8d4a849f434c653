// A TensorView seen by a kernel: a 5-D halide_buffer_t in Halide's innermost-first order
// (x = W, y = H, z = D, c, n). Spatial axes the view lacks (1-D and 2-D pooling) get extent 1.
#pragma once

#include "HalideRuntime.h"
#include "poolconv/tensor.h"

namespace poolconv::detail {

class KernelBuffer {
public:
    explicit KernelBuffer(const TensorView &view);
    KernelBuffer(const KernelBuffer &) = delete;
    KernelBuffer &operator=(const KernelBuffer &) = delete;

    halide_buffer_t *get() { return &buffer_; }

private:
    halide_dimension_t dims_[5] = {};
    halide_buffer_t buffer_ = {};
};

}  // namespace poolconv::detail
