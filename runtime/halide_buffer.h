// TensorViews as kernels see them: halide_buffer_t in Halide's innermost-first order
// (x = W, y = H, z = D, then channels and batch). Spatial axes a view lacks (1-D and 2-D
// operators) get extent 1. Host memory is marked current (host_dirty), so a GPU kernel copies
// what it reads to its device first; a view in device memory is wrapped as the buffer's device
// allocation (no host pointer, no copies).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "HalideRuntime.h"
#include "poolconv/tensor.h"

namespace poolconv::detail {

// Spatial dimension i of an attribute list (outermost first: D, H, W) is Halide axis
// spatial - 1 - i (0 = x = W, 1 = y = H, 2 = z = D), and the other way round.
constexpr std::size_t halide_axis(std::size_t spatial, std::size_t i) { return spatial - 1 - i; }
constexpr std::size_t attribute_index(std::size_t spatial, std::size_t axis) { return spatial - 1 - axis; }

class KernelBuffer {
public:
    // A pooling tensor: 5-D (x, y, z, c, n).
    explicit KernelBuffer(const TensorView &view);
    // A convolution tensor: 6-D (x, y, z, c, g, n), its C axis seen as `groups` groups of C / groups
    // channels.
    KernelBuffer(const TensorView &view, int64_t groups);
    // An array of `dtype` elements with these dimensions (innermost first), e.g. packed weights.
    KernelBuffer(void *data, DType dtype, const std::vector<halide_dimension_t> &dims);
    KernelBuffer(const KernelBuffer &) = delete;
    KernelBuffer &operator=(const KernelBuffer &) = delete;
    // Frees the device copy a GPU kernel made of this buffer, if any (a wrapped device tensor is
    // only let go).
    ~KernelBuffer();

    halide_buffer_t *get() { return &buffer_; }

private:
    static constexpr int kMaxDims = 7;  // packed convolution weights
    // The spatial axes x, y, z of `view` into dims_[0..2].
    void set_spatial(const TensorView &view);
    // A device view's allocation becomes the buffer's device side.
    void wrap_device(const TensorView &view);

    Memory memory_ = Memory::host;
    halide_dimension_t dims_[kMaxDims] = {};
    halide_buffer_t buffer_ = {};
};

// Ends a kernel call: throws Error for a failed one, then copies the results a GPU kernel left in
// device memory back to the outputs' host memory (a no-op for CPU kernels and device tensors).
void finish_kernel_call(const char *op, int status, std::initializer_list<KernelBuffer *> outputs);

}  // namespace poolconv::detail
