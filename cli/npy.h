// NumPy .npy files (format versions 1.0-3.0), little-endian and C order only: what the `poolconv`
// tool reads and writes, and what the tests use for reference data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "poolconv/tensor.h"

namespace poolconv::npy {

// A tensor loaded from a file; owns its bytes.
struct Array {
    DType dtype = DType::f32;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;  // element_count * dtype_size(dtype), C order

    TensorView view() { return TensorView::dense(dtype, shape, bytes.data()); }
};

// Reads `path`. Throws poolconv::Error with a one-line message naming the file and the problem
// (missing, truncated, bad magic or header, unsupported dtype, Fortran order, big-endian, size
// overflow, trailing bytes). Supported dtypes: <f4 <f2 <f8 |i1 |u1 <i4 <i8 (NumPy has no bfloat16,
// so bf16 tensors are reachable through the C++ API only).
Array load(const std::string &path);

// Writes a tensor to `path` atomically: the data goes to a temporary file in the same directory,
// which is renamed over `path` only once complete. On failure nothing is left behind and Error is
// thrown (e.g. unwritable directory).
void save(const std::string &path, DType dtype, const std::vector<int64_t> &shape, const void *data);

}  // namespace poolconv::npy
