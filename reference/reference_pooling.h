// Plain C++ reference pooling: the independent oracle the tests (and the demo) compare the Halide
// kernels against. Nested loops over every output element and every window tap, values held in
// double, no vectorization, no Halide. Only the geometry (resolved pads, output shape) comes from
// poolconv::infer_pool_shape; windows, padding, ties, NaN, indices and divisors are worked out
// here, from docs/SEMANTICS.md, independently of runtime/ and generators/.
//
// Same signatures as the API in poolconv/pooling.h. Differences from the API:
//   - every element type f32, f16, bf16, f64, i8, u8 is accepted by both operators (avg_pool of an
//     integer type rounds to nearest, ties to even, and saturates);
//   - avg_pool accumulates in double (the kernels accumulate f16/bf16/f32 in f32), then rounds once
//     to the output type;
//   - any positive strides are accepted (the innermost one need not be 1); there is no element limit.
// Errors (bad shapes, dtypes, axis) throw poolconv::Error, like the API.
#pragma once

#include <cstdint>
#include <vector>

#include "poolconv/pooling.h"
#include "poolconv/tensor.h"

namespace poolconv::reference {

void max_pool(const TensorView &input, const TensorView &output, const MaxPoolAttributes &attributes,
              const TensorView *indices = nullptr);

void avg_pool(const TensorView &input, const TensorView &output, const AvgPoolAttributes &attributes);

// IEEE binary16 (f16) and bfloat16 (bf16) bit patterns, converted by hand. Decoding is exact;
// encoding rounds to nearest, ties to even, overflows to infinity, keeps the sign of zero and
// maps any NaN to a quiet NaN.
double f16_to_double(uint16_t bits);
double bf16_to_double(uint16_t bits);
uint16_t double_to_f16(double value);
uint16_t double_to_bf16(double value);

// One element of a `dtype` tensor, as double (exact for every poolconv type).
double load_as_double(DType dtype, const void *element);
// Every element of a view, as double, in row-major order of its shape (a dense copy: strides and
// padding between rows resolved once, for loops that read each element many times).
std::vector<double> load_all_as_double(const TensorView &tensor);
// Stores `values` (one per element, in that order) into a view, as store_from_double does.
void store_all_from_double(const TensorView &tensor, const std::vector<double> &values);
// Stores `value` as one element of type `dtype`: floats round to nearest even; integers round to
// nearest (ties to even) and saturate, NaN stores as 0.
void store_from_double(DType dtype, void *element, double value);

// The lowest finite value of a type: what MaxPool gives for a window of padding only.
double lowest_finite(DType dtype);

}  // namespace poolconv::reference
