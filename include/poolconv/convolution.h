// Convolution with OpenVINO Convolution / GroupConvolution and ONNX Conv semantics on NC[D]HW
// tensors (rank 3, 4 or 5): cross-correlation, zero padding, optional bias and fused clamp.
//
//   poolconv::ConvAttributes a;
//   a.pads_begin = {1, 1}; a.pads_end = {1, 1};
//   poolconv::ConvGeometry g = poolconv::infer_conv_shape(x.shape, w.shape, a);
//   ... allocate y with g.output_shape ...
//   poolconv::convolution(x, w, &b, y, a);                // one call (packs w each time), or
//   poolconv::PreparedConvolution conv(w, &b, a);         // pack once ...
//   conv.run(x, y);                                       // ... run many times
//
// Semantics are in docs/SEMANTICS.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "poolconv/pooling.h"
#include "poolconv/tensor.h"

namespace poolconv {

namespace detail {
struct PackedWeights;
}

// How the weights tensor is laid out (both are the same memory for the same convolution).
enum class WeightsLayout {
    onnx,    // [C_out, C_in / group, k...]: ONNX Conv, OpenVINO Convolution (group 1)
    grouped  // [group, C_out / group, C_in / group, k...]: OpenVINO GroupConvolution; the group
             // count comes from the weights' first dimension
};

// Applied to every result after the bias.
enum class Activation {
    none,
    relu,   // max(v, 0)
    relu6,  // min(max(v, 0), 6)
    clamp   // min(max(v, clamp_min), clamp_max)
};

// The window (strides, dilations, pads, auto_pad: poolconv/pooling.h); its size is the weights'.
struct ConvAttributes : WindowAttributes {
    int64_t group = 1;                // onnx layout only (grouped weights carry their own)
    WeightsLayout weights_layout = WeightsLayout::onnx;
    Activation activation = Activation::none;
    float clamp_min = 0.0f, clamp_max = 6.0f;  // Activation::clamp only; NaN results stay NaN
};

// Output shape (N, C_out, spatial...) and the pads applied (auto_pad resolved).
using ConvGeometry = PoolGeometry;

// Shape inference; plain arithmetic. Throws Error for invalid shapes or attributes (ranks, channel
// counts that do not match or divide by the group, strides/dilations < 1, negative pads, output < 1,
// overflow), and for geometries beyond the kernels' 32-bit coordinates, as infer_pool_shape does.
ConvGeometry infer_conv_shape(const std::vector<int64_t> &input_shape, const std::vector<int64_t> &weights_shape,
                              const ConvAttributes &attributes);

// Weights (and bias) packed once for the kernels, then run on any input of a matching channel
// count and rank. Types: f32, f16, bf16, f64; input, weights, bias and output share it
// (accumulation is f32, f64 for f64). Weights and bias are read from host memory; GPU paths upload the packed form once, on
// their first call, and keep it. Copies share the packed weights; run() is const and may be
// called from several threads at once.
class PreparedConvolution {
public:
    // `bias` is optional: nullptr or a tensor of shape [C_out]. Throws Error for bad arguments.
    PreparedConvolution(const TensorView &weights, const TensorView *bias, const ConvAttributes &attributes);

    ConvGeometry infer_shape(const std::vector<int64_t> &input_shape) const;
    void run(const TensorView &input, const TensorView &output) const;
    // The kernel run() calls for these tensors on the instruction set in use, without running it:
    // "conv_<type>", "conv_<type>_depthwise", "_depthwise_1d", "_pointwise" or "_row_pairs" (README,
    // "CPU convolution kernels"; GPUs: "_wide_window" too, docs/PLATFORMS.md), or "" when the output
    // is empty; set_schedule_author's kernels are these with "_<author>" appended. Checks the
    // tensors as run() does.
    // For profiling, and for tests of the runtime's choice.
    std::string kernel_name(const TensorView &input, const TensorView &output) const;

    DType dtype() const { return dtype_; }
    int64_t group() const { return group_; }
    // The weights' shape in ONNX form: [C_out, C_in / group, k...].
    const std::vector<int64_t> &weights_shape() const { return weights_shape_; }

private:
    struct Call;  // what run() passes to the kernel (runtime/convolution.cpp)
    Call plan_call(const TensorView &input, const TensorView &output) const;

    DType dtype_;
    int64_t group_;
    std::vector<int64_t> weights_shape_;
    ConvAttributes attributes_;
    std::shared_ptr<const detail::PackedWeights> packed_;
};

// One convolution: PreparedConvolution(weights, bias, attributes).run(input, output).
void convolution(const TensorView &input, const TensorView &weights, const TensorView *bias, const TensorView &output,
                 const ConvAttributes &attributes);

}  // namespace poolconv
