#include "runtime/halide_buffer.h"

#include <cstdint>
#include <string>

#include "runtime/dispatch.h"
#include "runtime/gpu.h"

namespace poolconv::detail {

namespace {
halide_type_t halide_type_of(DType dtype) {
    switch (dtype) {
    case DType::f32: return halide_type_t(halide_type_float, 32);
    case DType::f16: return halide_type_t(halide_type_float, 16);
    case DType::bf16: return halide_type_t(halide_type_bfloat, 16);
    case DType::f64: return halide_type_t(halide_type_float, 64);
    case DType::i8: return halide_type_t(halide_type_int, 8);
    case DType::u8: return halide_type_t(halide_type_uint, 8);
    case DType::i32: return halide_type_t(halide_type_int, 32);
    case DType::i64: return halide_type_t(halide_type_int, 64);
    }
    throw Error("unsupported dtype");
}

// Sizes were validated (check_tensor): every extent and stride fits in int32.
halide_dimension_t dimension(int64_t extent, int64_t stride) {
    return halide_dimension_t(0, static_cast<int32_t>(extent), static_cast<int32_t>(stride));
}
}  // namespace

void KernelBuffer::set_spatial(const TensorView &view) {
    const int rank = view.rank();
    for (int a = 0; a < 3; a++) {
        const int view_dim = rank - 1 - a;  // spatial dims are 2 .. rank - 1, W last
        dims_[a] = view_dim >= 2 ? dimension(view.shape[view_dim], view.effective_stride(view_dim)) : halide_dimension_t(0, 1, 0);
    }
    buffer_.host = static_cast<uint8_t *>(view.data);
    buffer_.flags = halide_buffer_flag_host_dirty;
    buffer_.type = halide_type_of(view.dtype);
    buffer_.dim = dims_;
}

KernelBuffer::KernelBuffer(const TensorView &view) {
    set_spatial(view);
    dims_[3] = dimension(view.shape[1], view.effective_stride(1));
    dims_[4] = dimension(view.shape[0], view.effective_stride(0));
    buffer_.dimensions = 5;
    wrap_device(view);
}

KernelBuffer::KernelBuffer(const TensorView &view, int64_t groups) {
    set_spatial(view);
    const int64_t per_group = view.shape[1] / groups;
    const int64_t channel_stride = view.effective_stride(1);
    dims_[3] = dimension(per_group, channel_stride);
    dims_[4] = dimension(groups, channel_stride * per_group);
    dims_[5] = dimension(view.shape[0], view.effective_stride(0));
    buffer_.dimensions = 6;
    wrap_device(view);
}

void KernelBuffer::wrap_device(const TensorView &view) {
    if (view.memory == Memory::host) return;
    buffer_.host = nullptr;
    buffer_.flags = 0;  // the device side is current and the only one
    wrap_device_memory(&buffer_, view.memory, view.data);
    memory_ = view.memory;
}

KernelBuffer::KernelBuffer(void *data, DType dtype, const std::vector<halide_dimension_t> &dims) {
    if (dims.size() > kMaxDims) throw Error("internal: a kernel buffer of " + std::to_string(dims.size()) + " dimensions");
    int d = 0;
    for (const halide_dimension_t &dim : dims) dims_[d++] = dim;
    buffer_.host = reinterpret_cast<uint8_t *>(data);
    buffer_.flags = halide_buffer_flag_host_dirty;
    buffer_.type = halide_type_of(dtype);
    buffer_.dimensions = d;
    buffer_.dim = dims_;
}

KernelBuffer::~KernelBuffer() {
    if (memory_ != Memory::host) {
        detach_device_memory(&buffer_, memory_);
    } else if (buffer_.device) {
        halide_device_free(nullptr, &buffer_);
    }
}

void finish_kernel_call(const char *op, int status, std::initializer_list<KernelBuffer *> outputs) {
    if (status != 0) throw_kernel_failure(op, status);
    for (KernelBuffer *out : outputs) {
        halide_buffer_t *b = out->get();
        if (b->host && b->device && (b->flags & halide_buffer_flag_device_dirty)) {
            status = halide_copy_to_host(nullptr, b);
            if (status != 0) throw_kernel_failure(op, status);
        }
    }
}

}  // namespace poolconv::detail
