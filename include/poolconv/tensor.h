// Tensors as poolconv sees them: a non-owning view (element type, shape, strides, data) and the
// one exception type every poolconv call throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace poolconv {

// Every error poolconv reports, as a one-line message that names the bad argument, e.g.
// "max_pool: kernel[1] must be >= 1, got 0". Nothing is written to an output when one is thrown
// for a bad argument: every check runs before any kernel. A kernel that fails while it runs (out of
// memory) may leave an output partly written, as may the narrowed argmax calls (runtime/pooling.cpp)
// when a later one of their kernel calls fails.
class Error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

enum class DType { f32, f16, bf16, f64, i8, u8, i32, i64 };

// Where a tensor's data lives. Device tensors are run on by that GPU's kernels with no copies
// (see "GPU device memory" in poolconv/runtime.h).
enum class Memory {
    host,    // data: a host pointer
    cuda,    // data: a CUDA device pointer (a CUdeviceptr cast to void *) in poolconv's CUDA context
    opencl,  // data: a cl_mem buffer object created in poolconv's OpenCL context
};
// "host", "cuda", "opencl", for messages.
const char *memory_name(Memory memory);

// Bytes per element.
std::size_t dtype_size(DType dtype);
// Short name: "f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64".
const char *dtype_name(DType dtype);
// The inverse of dtype_name; throws Error for an unknown name.
DType dtype_from_name(std::string_view name);

// A view of caller-owned memory. `strides` are in elements, one per dimension; empty means dense
// row-major (C order). Kernels need the last dimension to be contiguous (stride 1). Inputs are only
// read through `data`; outputs are written. `memory` says what `data` is: a host pointer (the
// default) or a GPU buffer, whose allocation must cover every element the strides address.
struct TensorView {
    DType dtype = DType::f32;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    void *data = nullptr;
    Memory memory = Memory::host;

    // A dense row-major view.
    static TensorView dense(DType dtype, std::vector<int64_t> shape, void *data) {
        return TensorView{dtype, std::move(shape), {}, data};
    }
    static TensorView dense(DType dtype, std::vector<int64_t> shape, const void *data) {
        return TensorView{dtype, std::move(shape), {}, const_cast<void *>(data)};
    }

    int rank() const { return static_cast<int>(shape.size()); }
    // Product of the shape; throws Error if it overflows int64.
    int64_t element_count() const;
    // strides, or the dense row-major strides when `strides` is empty.
    std::vector<int64_t> effective_strides() const;
    // effective_strides()[d], without building the vector (the runtime reads strides per call).
    // d < rank(), and strides, if given, has rank() entries (as every checked view has).
    int64_t effective_stride(std::size_t d) const;
};

// "[1,64,112,112]", for messages.
std::string shape_to_string(const std::vector<int64_t> &shape);

}  // namespace poolconv
