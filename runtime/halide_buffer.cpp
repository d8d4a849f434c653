#include "runtime/halide_buffer.h"

#include <cstdint>

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
}  // namespace

// Sizes were validated (check_tensor): every extent and stride fits in int32.
KernelBuffer::KernelBuffer(const TensorView &view) {
    const int rank = view.rank();
    const int spatial = rank - 2;
    const std::vector<int64_t> strides = view.effective_strides();
    for (int a = 0; a < 5; a++) {
        int view_dim = -1;                        // which view dimension Halide axis a is
        if (a < 3 && a < spatial) view_dim = rank - 1 - a;
        if (a == 3) view_dim = 1;                 // c
        if (a == 4) view_dim = 0;                 // n
        if (view_dim >= 0) {
            dims_[a] = halide_dimension_t(0, static_cast<int32_t>(view.shape[view_dim]),
                                          static_cast<int32_t>(strides[view_dim]));
        } else {
            dims_[a] = halide_dimension_t(0, 1, 0);  // an axis the view lacks: one element
        }
    }
    buffer_.host = static_cast<uint8_t *>(view.data);
    buffer_.type = halide_type_of(view.dtype);
    buffer_.dimensions = 5;
    buffer_.dim = dims_;
}

}  // namespace poolconv::detail
