// Plain C++ reference convolution: the oracle the tests and benchmarks compare the Halide kernels
// against. Nested loops over every output element, every input channel of its group and every
// kernel tap, accumulated in double, no packing, no Halide. Input and weights are decoded into
// double arrays once (which keeps thousands of random cases quick under qemu and sanitizers).
// Only the geometry (resolved pads, output shape) comes from poolconv::infer_conv_shape.
//
// Same signature as poolconv::convolution; f32, f16 and bf16 tensors (all of one type), any
// positive strides. The result (bias, sum, activation in double) is rounded once to the output
// type; the kernels accumulate in f32, so compare with a tolerance.
#pragma once

#include "poolconv/convolution.h"
#include "poolconv/tensor.h"

namespace poolconv::reference {

void convolution(const TensorView &input, const TensorView &weights, const TensorView *bias, const TensorView &output,
                 const ConvAttributes &attributes);

}  // namespace poolconv::reference
