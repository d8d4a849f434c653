// MaxPool and AvgPool with OpenVINO / ONNX semantics on NC[D]HW tensors (rank 3, 4 or 5).
//
//   poolconv::MaxPoolAttributes a;
//   a.kernel = {3, 3}; a.strides = {2, 2}; a.pads_begin = {1, 1}; a.pads_end = {1, 1};
//   poolconv::PoolGeometry g = poolconv::infer_pool_shape(x.shape, a);   // output shape, pads
//   ... allocate y with g.output_shape ...
//   poolconv::max_pool(x, y, a);                       // or max_pool(x, y, a, &indices)
//
// Semantics (output size, padding modes, rounding, ties, NaN, divisors) are in docs/SEMANTICS.md.
#pragma once

#include <cstdint>
#include <vector>

#include "poolconv/tensor.h"

namespace poolconv {

// How pads are chosen. explicit_pads uses pads_begin/pads_end (ONNX NOTSET); valid uses none;
// same_upper / same_lower pad so that out = ceil(in / stride), the odd pad at the end / beginning.
enum class AutoPad { explicit_pads, valid, same_upper, same_lower };

// Output size rounding: floor; ceil (windows may start in the end padding); ceil_torch (ceil, but
// a last window that would start in the end padding is dropped: PyTorch ceil_mode, ONNX ceil_mode=1).
enum class Rounding { floor, ceil, ceil_torch };

// How a sliding window steps over the input: shared by pooling and convolution (whose kernel size
// comes from its weights). Every non-empty list has one entry per spatial dimension (rank - 2),
// outermost first (D, H, W).
struct WindowAttributes {
    std::vector<int64_t> strides;     // empty: all 1
    std::vector<int64_t> dilations;   // empty: all 1
    std::vector<int64_t> pads_begin;  // empty: all 0; ignored unless auto_pad == explicit_pads
    std::vector<int64_t> pads_end;    // empty: all 0; ignored unless auto_pad == explicit_pads
    AutoPad auto_pad = AutoPad::explicit_pads;
};

// Attributes common to all pooling operators: the window and its size, and the output rounding.
struct PoolAttributes : WindowAttributes {
    std::vector<int64_t> kernel;  // required, each >= 1, one per spatial dimension
    Rounding rounding = Rounding::floor;
};

// ONNX storage_order for the indices: row_major (0) or column_major (1, spatial part transposed).
enum class StorageOrder { row_major, column_major };

struct MaxPoolAttributes : PoolAttributes {
    // OpenVINO MaxPool-8 axis: indices count positions from this dimension on (0: whole tensor,
    // 2: within each (n, c) plane). Negative counts from the end. Must be <= 2 with column_major.
    int64_t axis = 0;
    StorageOrder storage_order = StorageOrder::row_major;
};

// Divisor of AvgPool.
enum class AvgPadMode {
    exclude_pad,          // elements inside the input (ONNX count_include_pad=0, OpenVINO exclude-pad=true)
    include_pad,          // window positions inside the padded input (ONNX count_include_pad=1, PyTorch)
    include_pad_openvino  // OpenVINO exclude-pad=false: the whole kernel volume if any pad is
                          // non-zero, else the elements inside the input
};

struct AvgPoolAttributes : PoolAttributes {
    AvgPadMode pad_mode = AvgPadMode::exclude_pad;
};

// Output shape and the pads actually applied (auto_pad resolved), per spatial dimension.
struct PoolGeometry {
    std::vector<int64_t> output_shape;  // N, C, spatial...
    std::vector<int64_t> pads_begin;
    std::vector<int64_t> pads_end;
};

// Shape inference; plain arithmetic, no kernel involved. Throws Error for invalid attributes or
// shapes (wrong rank or list length, kernel/stride/dilation < 1, negative pads, output < 1, overflow)
// and for geometries beyond the kernels' 32-bit coordinates (kernel, strides, dilations or pads
// above 2^31 - 1, or windows reaching further than that): a geometry it returns is one max_pool and
// avg_pool run, given tensors of at most 2^31 - 1 elements.
PoolGeometry infer_pool_shape(const std::vector<int64_t> &input_shape, const PoolAttributes &attributes);

// Max pooling. Types: f32, f16, bf16, f64, i8, u8; `output` has the input's type and the inferred
// shape. `indices`, if given, has the same shape and type i64 or i32.
void max_pool(const TensorView &input, const TensorView &output, const MaxPoolAttributes &attributes,
              const TensorView *indices = nullptr);

// Average pooling. Types: f32, f16, bf16 (accumulated in f32), f64 (accumulated in f64); `output`
// has the input's type.
void avg_pool(const TensorView &input, const TensorView &output, const AvgPoolAttributes &attributes);

}  // namespace poolconv
