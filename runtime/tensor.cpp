#include "poolconv/tensor.h"

#include "runtime/checked_math.h"

namespace poolconv {

namespace {
struct DTypeInfo {
    DType dtype;
    const char *name;
    std::size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::f32, "f32", 4}, {DType::f16, "f16", 2}, {DType::bf16, "bf16", 2}, {DType::f64, "f64", 8},
    {DType::i8, "i8", 1},   {DType::u8, "u8", 1},   {DType::i32, "i32", 4},   {DType::i64, "i64", 8},
};
const DTypeInfo &info(DType dtype) {
    for (const DTypeInfo &i : kDTypes) {
        if (i.dtype == dtype) return i;
    }
    throw Error("unknown dtype value " + std::to_string(static_cast<int>(dtype)));
}
}  // namespace

std::size_t dtype_size(DType dtype) { return info(dtype).size; }
const char *dtype_name(DType dtype) { return info(dtype).name; }

DType dtype_from_name(std::string_view name) {
    for (const DTypeInfo &i : kDTypes) {
        if (name == i.name) return i.dtype;
    }
    throw Error("unknown dtype '" + std::string(name) + "' (expected f32, f16, bf16, f64, i8, u8, i32 or i64)");
}

int64_t TensorView::element_count() const {
    for (int64_t d : shape) {
        if (d < 0) throw Error("tensor shape " + shape_to_string(shape) + " has a negative dimension");
    }
    // A zero dimension makes the count 0 however large the others (whose product may not fit:
    // found by fuzz_npy on a loadable empty array).
    for (int64_t d : shape) {
        if (d == 0) return 0;
    }
    int64_t count = 1;
    for (int64_t d : shape) count = checked_mul(count, d, "tensor element count");
    return count;
}

const char *memory_name(Memory memory) {
    switch (memory) {
    case Memory::host: return "host";
    case Memory::cuda: return "cuda";
    case Memory::opencl: return "opencl";
    }
    return "unknown";
}

std::vector<int64_t> TensorView::effective_strides() const {
    if (!strides.empty()) return strides;  // as given, also before check_tensor has seen them
    std::vector<int64_t> all(shape.size());
    for (std::size_t d = 0; d < shape.size(); d++) all[d] = effective_stride(d);
    return all;
}

int64_t TensorView::effective_stride(std::size_t d) const {
    if (!strides.empty()) return strides[d];
    int64_t stride = 1;
    for (std::size_t i = shape.size(); --i > d;) stride = checked_mul(stride, shape[i] > 0 ? shape[i] : 1, "tensor strides");
    return stride;
}

std::string shape_to_string(const std::vector<int64_t> &shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); i++) {
        if (i) s += ",";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

}  // namespace poolconv
