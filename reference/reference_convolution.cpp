#include "reference/reference_convolution.h"

#include <string>
#include <vector>

#include "reference/reference_pooling.h"  // load_all_as_double, store_all_from_double

namespace poolconv::reference {

void convolution(const TensorView &input, const TensorView &weights, const TensorView *bias, const TensorView &output,
                 const ConvAttributes &a) {
    const ConvGeometry g = infer_conv_shape(input.shape, weights.shape, a);
    if (output.shape != g.output_shape) {
        throw Error("reference convolution: output shape " + shape_to_string(output.shape) + ", expected " +
                    shape_to_string(g.output_shape));
    }
    const bool grouped = a.weights_layout == WeightsLayout::grouped;
    const int64_t groups = grouped ? weights.shape[0] : a.group;
    const int spatial = input.rank() - 2;
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
    // Input and weights decoded once into dense row-major arrays: input [n][c][d0][d1][d2],
    // weights [co][ci][k0][k1][k2] (OpenVINO's grouped layout [g][co / g][ci][k...] is the same
    // order, since co = g * out_per_group + co % out_per_group).
    const std::vector<double> x = load_all_as_double(input), w = load_all_as_double(weights);
    const std::vector<double> b =
        bias ? load_all_as_double(*bias) : std::vector<double>(static_cast<std::size_t>(out_channels), 0.0);
    const int64_t in_plane = in_size[0] * in_size[1] * in_size[2];
    const int64_t taps = kernel[0] * kernel[1] * kernel[2];
    // Results in the output's row-major order, which the loops below walk.
    std::vector<double> results;
    results.reserve(static_cast<std::size_t>(output.element_count()));

    for (int64_t n = 0; n < g.output_shape[0]; n++)
    for (int64_t co = 0; co < out_channels; co++)
    for (int64_t o0 = 0; o0 < out_size[0]; o0++)
    for (int64_t o1 = 0; o1 < out_size[1]; o1++)
    for (int64_t o2 = 0; o2 < out_size[2]; o2++) {
        const int64_t group = co / out_per_group;
        double sum = b[static_cast<std::size_t>(co)];
        for (int64_t ci = 0; ci < in_per_group; ci++) {
            const double *in = x.data() + (n * input.shape[1] + group * in_per_group + ci) * in_plane;
            const double *wt = w.data() + (co * in_per_group + ci) * taps;
            // Taps that fall outside the input read zero padding: skipped.
            for (int64_t k0 = 0; k0 < kernel[0]; k0++) {
                const int64_t p0 = o0 * stride[0] - pad[0] + k0 * dilation[0];
                if (p0 < 0 || p0 >= in_size[0]) continue;
                for (int64_t k1 = 0; k1 < kernel[1]; k1++) {
                    const int64_t p1 = o1 * stride[1] - pad[1] + k1 * dilation[1];
                    if (p1 < 0 || p1 >= in_size[1]) continue;
                    for (int64_t k2 = 0; k2 < kernel[2]; k2++) {
                        const int64_t p2 = o2 * stride[2] - pad[2] + k2 * dilation[2];
                        if (p2 < 0 || p2 >= in_size[2]) continue;
                        sum += wt[(k0 * kernel[1] + k1) * kernel[2] + k2] *
                               in[(p0 * in_size[1] + p1) * in_size[2] + p2];
                    }
                }
            }
        }
        switch (a.activation) {
        case Activation::none: break;
        case Activation::relu: sum = sum < 0.0 ? 0.0 : sum; break;
        case Activation::relu6: sum = sum < 0.0 ? 0.0 : sum > 6.0 ? 6.0 : sum; break;
        case Activation::clamp: sum = sum < a.clamp_min ? a.clamp_min : sum > a.clamp_max ? a.clamp_max : sum; break;
        }
        results.push_back(sum);
    }
    store_all_from_double(output, results);
}

}  // namespace poolconv::reference
