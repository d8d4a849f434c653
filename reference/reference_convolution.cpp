#include "reference/reference_convolution.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "reference/reference_pooling.h"  // load_as_double, store_from_double

namespace poolconv::reference {

namespace {

// Element `index` (one coordinate per dimension) of a view.
const unsigned char *element(const TensorView &t, const std::vector<int64_t> &strides, const int64_t *index) {
    int64_t offset = 0;
    for (std::size_t d = 0; d < t.shape.size(); d++) offset += index[d] * strides[d];
    return static_cast<const unsigned char *>(t.data) + offset * static_cast<int64_t>(dtype_size(t.dtype));
}

}  // namespace

void convolution(const TensorView &input, const TensorView &weights, const TensorView *bias, const TensorView &output,
                 const ConvAttributes &a) {
    const ConvGeometry g = infer_conv_shape(input.shape, weights.shape, a);
    if (output.shape != g.output_shape) {
        throw Error("reference convolution: output shape " + shape_to_string(output.shape) + ", expected " +
                    shape_to_string(g.output_shape));
    }
    const bool grouped = a.weights_layout == WeightsLayout::grouped;
    const int64_t groups = grouped ? weights.shape[0] : a.group;
    const int rank = input.rank();
    const int spatial = rank - 2;
    const int64_t out_channels = g.output_shape[1];
    const int64_t out_per_group = out_channels / groups;
    const int64_t in_per_group = input.shape[1] / groups;

    // Spatial attributes padded to 3 (outermost first) so one loop nest serves 1-D to 3-D.
    int64_t in_size[3] = {1, 1, 1}, out_size[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
    for (int i = 0; i < spatial; i++) {
        const int d = 3 - spatial + i;
        in_size[d] = input.shape[i + 2];
        out_size[d] = g.output_shape[i + 2];
        kernel[d] = weights.shape[weights.shape.size() - spatial + i];
        stride[d] = a.strides.empty() ? 1 : a.strides[i];
        dilation[d] = a.dilations.empty() ? 1 : a.dilations[i];
        pad[d] = g.pads_begin[i];
    }
    const auto in_strides = input.effective_strides(), w_strides = weights.effective_strides(),
               out_strides = output.effective_strides();
    int64_t in_index[5], w_index[6], out_index[5];

    for (int64_t n = 0; n < g.output_shape[0]; n++)
    for (int64_t co = 0; co < out_channels; co++)
    for (int64_t o0 = 0; o0 < out_size[0]; o0++)
    for (int64_t o1 = 0; o1 < out_size[1]; o1++)
    for (int64_t o2 = 0; o2 < out_size[2]; o2++) {
        const int64_t group = co / out_per_group;
        double sum = 0.0;
        if (bias) sum = load_as_double(bias->dtype, element(*bias, bias->effective_strides(), &co));
        for (int64_t ci = 0; ci < in_per_group; ci++)
        for (int64_t k0 = 0; k0 < kernel[0]; k0++)
        for (int64_t k1 = 0; k1 < kernel[1]; k1++)
        for (int64_t k2 = 0; k2 < kernel[2]; k2++) {
            const int64_t o[3] = {o0, o1, o2}, k[3] = {k0, k1, k2};
            int64_t pos[3];
            bool inside = true;
            for (int d = 0; d < 3; d++) {
                pos[d] = o[d] * stride[d] - pad[d] + k[d] * dilation[d];
                inside = inside && pos[d] >= 0 && pos[d] < in_size[d];
            }
            if (!inside) continue;  // zero padding
            in_index[0] = n;
            in_index[1] = group * in_per_group + ci;
            int w = 0;
            if (grouped) {
                w_index[w++] = group;
                w_index[w++] = co % out_per_group;
            } else {
                w_index[w++] = co;
            }
            w_index[w++] = ci;
            for (int i = 0; i < spatial; i++) {
                in_index[2 + i] = pos[3 - spatial + i];
                w_index[w++] = k[3 - spatial + i];
            }
            sum += load_as_double(weights.dtype, element(weights, w_strides, w_index)) *
                   load_as_double(input.dtype, element(input, in_strides, in_index));
        }
        switch (a.activation) {
        case Activation::none: break;
        case Activation::relu: sum = sum < 0.0 ? 0.0 : sum; break;
        case Activation::relu6: sum = sum < 0.0 ? 0.0 : sum > 6.0 ? 6.0 : sum; break;
        case Activation::clamp: sum = sum < a.clamp_min ? a.clamp_min : sum > a.clamp_max ? a.clamp_max : sum; break;
        }
        out_index[0] = n;
        out_index[1] = co;
        const int64_t o[3] = {o0, o1, o2};
        for (int i = 0; i < spatial; i++) out_index[2 + i] = o[3 - spatial + i];
        store_from_double(output.dtype, const_cast<unsigned char *>(element(output, out_strides, out_index)), sum);
    }
}

}  // namespace poolconv::reference
