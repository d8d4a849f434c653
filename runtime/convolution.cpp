// Convolution: validate, pack weights and bias for the kernels, run the kernel.
#include "poolconv/convolution.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "poolconv/runtime.h"
#include "runtime/checked_math.h"
#include "runtime/dispatch.h"
#include "runtime/gpu.h"
#include "runtime/halide_buffer.h"
#include "runtime/kernel_table.h"
#include "runtime/validation.h"
#include "schedules/conv_packing.h"
#include "schedules/conv_plan.h"

namespace poolconv {

namespace detail {

// Where weight (g, co, t) of a group's output channel co and tap t (ci * taps + kernel tap) lies in
// weights packed in runs of `run` output channels (schedules/conv_packing.h): each group's
// out_block channels, each run's taps_ci taps in turn, the run's channels innermost.
inline int64_t packed_weight_index(int64_t g, int64_t co, int64_t t, int64_t run, int64_t taps_ci, int64_t out_block) {
    return (g * out_block + co / run * run) * taps_ci + t * run + co % run;
}

// The weights and bias as the kernels read them, shared by the copies of a PreparedConvolution.
// Each GPU path gets a device copy on its first call, kept until the last copy goes.
struct PackedWeights {
    int64_t out_block = 0;     // output channels per group, padded to the kernels' block
    // The kernels' arithmetic type: f32 (for f32, f16 and bf16 convolutions, which it holds
    // exactly) or f64; the arrays hold elements of it.
    DType type = DType::f32;
    // Weights (g, co run, ci, kz, ky, kx, co in run): see conv_packing.h. Bias (g, co), out_block
    // per group; zeros without a bias.
    std::vector<unsigned char> weights, bias;
    // Halide dimensions, innermost first: weights (co in run, kx, ky, kz, ci, co run, g), bias (co, g).
    std::vector<halide_dimension_t> weights_dims, bias_dims;

    // Buffers for a call on `isa`: the device copies for a GPU path (made now if this is its
    // first call), else the host views. Kernels only read them, so calls share them.
    struct Buffers {
        halide_buffer_t *weights, *bias;
    };
    Buffers buffers_for(Isa isa) const {
        if (!is_gpu_isa(isa)) return {host[0]->get(), host[1]->get()};
        const int slot = isa == Isa::cuda ? 0 : 1;
        std::lock_guard<std::mutex> lock(device_mutex);
        if (!device[slot][0]) {
            std::unique_ptr<KernelBuffer> copies[2] = {view(weights, weights_dims), view(bias, bias_dims)};
            for (std::unique_ptr<KernelBuffer> &b : copies) {
                const int status = halide_copy_to_device(nullptr, b->get(), device_interface(isa));
                if (status != 0) throw_kernel_failure("convolution: weights upload", status);
            }
            device[slot][0] = std::move(copies[0]);
            device[slot][1] = std::move(copies[1]);
        }
        return {device[slot][0]->get(), device[slot][1]->get()};
    }

    // Sizes the arrays for `weight_count` weights and `bias_count` bias elements, all zero.
    void allocate(std::size_t weight_count, std::size_t bias_count) {
        weights.assign(weight_count * dtype_size(type), 0);
        bias.assign(bias_count * dtype_size(type), 0);
    }
    void set_weight(std::size_t i, double v) { store(weights, i, v); }
    void set_bias(std::size_t i, double v) { store(bias, i, v); }

    // Makes the host views; call once the arrays and dimensions are final.
    void finish() {
        host[0] = view(weights, weights_dims);
        host[1] = view(bias, bias_dims);
    }

    // The host buffers with the weights in runs of kChannelVectorRun output channels instead of
    // kPackedChannels, as the channel-vector kernels read them (schedules/conv_packing.h): made
    // from the packed weights on the first call that needs them, then kept.
    Buffers channel_vector_buffers() const {
        std::call_once(channel_vector_once, [this] {
            const std::size_t element = dtype_size(type);
            // (co in run, kx, ky, kz, ci, co run, g): the same extents but the runs', and strides to match.
            std::vector<halide_dimension_t> dims = weights_dims;
            const int32_t from_run = dims[0].extent, to_run = kChannelVectorRun;
            const int32_t taps_ci = dims[5].stride / from_run;  // kx * ky * kz * ci per channel
            dims[0].extent = to_run;
            for (int d = 1; d <= 4; d++) dims[d].stride = dims[d].stride / from_run * to_run;
            dims[5].extent = dims[5].extent * from_run / to_run;
            dims[5].stride = taps_ci * to_run;
            channel_vector_weights.resize(weights.size());
            const int64_t block = int64_t(weights_dims[5].extent) * from_run;  // out_block
            for (int64_t g = 0; g < dims[6].extent; g++) {
                for (int64_t co = 0; co < block; co++) {
                    for (int64_t t = 0; t < taps_ci; t++) {
                        const int64_t from = packed_weight_index(g, co, t, from_run, taps_ci, block);
                        const int64_t to = packed_weight_index(g, co, t, to_run, taps_ci, block);
                        std::memcpy(&channel_vector_weights[std::size_t(to) * element],
                                    &weights[std::size_t(from) * element], element);
                    }
                }
            }
            channel_vector_host = view(channel_vector_weights, dims);
        });
        return {channel_vector_host->get(), host[1]->get()};
    }

private:
    // Element i of `array` set to v in the arithmetic type.
    void store(std::vector<unsigned char> &array, std::size_t i, double v) const {
        if (type == DType::f64) {
            std::memcpy(&array[i * sizeof v], &v, sizeof v);
        } else {
            const float f = static_cast<float>(v);
            std::memcpy(&array[i * sizeof f], &f, sizeof f);
        }
    }

    // const_cast: the kernels only read weights and bias.
    std::unique_ptr<KernelBuffer> view(const std::vector<unsigned char> &data, const std::vector<halide_dimension_t> &dims) const {
        return std::make_unique<KernelBuffer>(const_cast<unsigned char *>(data.data()), type, dims);
    }

    std::unique_ptr<KernelBuffer> host[2];  // [weights, bias]
    mutable std::once_flag channel_vector_once;
    mutable std::vector<unsigned char> channel_vector_weights;
    mutable std::unique_ptr<KernelBuffer> channel_vector_host;
    mutable std::mutex device_mutex;
    mutable std::unique_ptr<KernelBuffer> device[2][2];  // [cuda, opencl][weights, bias]
};

}  // namespace detail

namespace {

const char *const kOp = "convolution";


std::string str(int64_t v) { return std::to_string(v); }

// The weights in ONNX form ([C_out, C_in / group, k...]) and the group count, checked.
struct ResolvedWeights {
    std::vector<int64_t> shape;
    int64_t group = 1;
};

ResolvedWeights resolve_weights(const std::vector<int64_t> &weights_shape, const ConvAttributes &a) {
    const bool grouped = a.weights_layout == WeightsLayout::grouped;
    const std::size_t lead = grouped ? 3 : 2;  // dimensions before the kernel's
    if (weights_shape.size() < lead + 1 || weights_shape.size() > lead + 3) {
        throw Error(std::string(kOp) + ": weights must have rank " + str(lead + 1) + " to " + str(lead + 3) + " (" +
                    (grouped ? "G, C_out/G, C_in/G" : "C_out, C_in/group") + ", 1-3 kernel dims), got shape " +
                    shape_to_string(weights_shape));
    }
    for (std::size_t i = 0; i < weights_shape.size(); i++) {
        if (weights_shape[i] < 1) {
            throw Error(std::string(kOp) + ": weights shape " + shape_to_string(weights_shape) + " has dimension " +
                        str(i) + " < 1");
        }
    }
    ResolvedWeights r;
    if (grouped) {
        if (a.group != 1 && a.group != weights_shape[0]) {
            throw Error(std::string(kOp) + ": group " + str(a.group) + " does not match the grouped weights' " +
                        str(weights_shape[0]) + " groups");
        }
        r.group = weights_shape[0];
        r.shape = {checked_mul(weights_shape[0], weights_shape[1], "weights: output channels")};
        r.shape.insert(r.shape.end(), weights_shape.begin() + 2, weights_shape.end());
    } else {
        if (a.group < 1) throw Error(std::string(kOp) + ": group must be >= 1, got " + str(a.group));
        if (weights_shape[0] % a.group != 0) {
            throw Error(std::string(kOp) + ": weights have " + str(weights_shape[0]) +
                        " output channels, which do not divide by group " + str(a.group));
        }
        r.group = a.group;
        r.shape = weights_shape;
    }
    int64_t count = 1;
    for (int64_t d : r.shape) count = checked_mul(count, d, "weights: element count");
    return r;
}

ConvGeometry conv_geometry(const std::vector<int64_t> &input_shape, const ResolvedWeights &w, const ConvAttributes &a) {
    detail::check_rank(kOp, "input", input_shape);
    if (w.shape.size() != input_shape.size()) {
        throw Error(std::string(kOp) + ": weights " + shape_to_string(w.shape) + " have " + str(w.shape.size() - 2) +
                    " kernel dimensions but the input " + shape_to_string(input_shape) + " has " +
                    str(input_shape.size() - 2) + " spatial dimensions");
    }
    if (input_shape[1] != checked_mul(w.shape[1], w.group, "input channels")) {
        throw Error(std::string(kOp) + ": input has " + str(input_shape[1]) + " channels but weights " +
                    shape_to_string(w.shape) + " with group " + str(w.group) + " expect " + str(w.shape[1] * w.group));
    }
    PoolAttributes window;
    static_cast<WindowAttributes &>(window) = a;
    window.kernel.assign(w.shape.begin() + 2, w.shape.end());
    ConvGeometry g = detail::infer_pool_geometry(kOp, input_shape, window, kMaxTileOvercompute);
    g.output_shape[1] = w.shape[0];
    int64_t count = 1;
    for (int64_t d : g.output_shape) count = checked_mul(count, d, "convolution: output element count");
    return g;
}

// One weights/bias element as a double (exact for every supported type).
double element_as_double(DType dtype, const void *p) {
    if (dtype == DType::f64) {
        double v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    if (dtype == DType::f32) {
        float v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    if (dtype == DType::bf16) {  // the upper half of an f32
        const uint32_t wide = uint32_t(bits) << 16;
        float v;
        std::memcpy(&v, &wide, sizeof v);
        return v;
    }
    // IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    float magnitude;
    if (exponent == 0) {
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero and subnormals
    } else if (exponent == 31) {
        magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    } else {
        magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
    }
    return (bits & 0x8000) ? -magnitude : magnitude;
}

// `t` (N, C, spatial...) with its spatial axes merged into one, (N, C, pixels), when they are one
// dense run per plane that fits the kernels' int32 coordinates (with tile over-compute); else
// nothing.
std::optional<TensorView> merge_spatial(const TensorView &t) {
    const std::vector<int64_t> strides = t.effective_strides();
    int64_t pixels = 1;
    for (int d = t.rank() - 1; d >= 2; d--) {
        if (t.shape[d] != 1 && strides[d] != pixels) return std::nullopt;
        pixels *= t.shape[d];
        if (pixels > std::numeric_limits<int32_t>::max() - kMaxTileOvercompute) return std::nullopt;
    }
    TensorView merged = t;
    merged.shape = {t.shape[0], t.shape[1], pixels};
    merged.strides = {strides[0], strides[1], 1};
    return merged;
}

// The weights and bias packed as the kernels read them: (g, co run, ci, kz, ky, kx, co in run),
// out_block output channels per group in runs of kPackedChannels, in the kernels' arithmetic type
// (f64 for f64, else f32: schedules/conv_packing.h).
// `weights` and `bias` are checked already; `w` is their ONNX-form shape and group count.
std::shared_ptr<const detail::PackedWeights> pack_weights(const TensorView &weights, const TensorView *bias,
                                                          const ResolvedWeights &w, WeightsLayout layout) {
    const DType dtype = weights.dtype;
    const int64_t group = w.group, out_channels = w.shape[0];
    const int64_t out_per_group = out_channels / group, in_per_group = w.shape[1];
    auto packed = std::make_shared<detail::PackedWeights>();
    packed->type = dtype == DType::f64 ? DType::f64 : DType::f32;
    const int64_t ob = round_up(out_per_group, kOutputChannelBlock);
    packed->out_block = ob;
    int64_t taps = 1;  // kernel elements
    for (std::size_t i = 2; i < w.shape.size(); i++) taps *= w.shape[i];
    const int64_t packed_count = checked_mul(
        checked_mul(checked_mul(group, in_per_group, "packed weights"), taps, "packed weights"), ob, "packed weights");
    if (packed_count > std::numeric_limits<int32_t>::max()) {
        throw Error(std::string(kOp) + ": packed weights would have " + str(packed_count) +
                    " elements; kernels take at most 2^31-1");
    }
    packed->allocate(static_cast<std::size_t>(packed_count), static_cast<std::size_t>(group * ob));
    // Kernel extents in Halide axis order (x = W, y = H, z = D); all fit in int32 (packed_count does).
    int32_t kernel[3] = {1, 1, 1};
    const std::size_t spatial = w.shape.size() - 2;
    for (std::size_t i = 0; i < spatial; i++) {
        kernel[detail::halide_axis(spatial, i)] = static_cast<int32_t>(w.shape[i + 2]);
    }
    auto dim = [](int64_t extent, int64_t stride) {
        return halide_dimension_t(0, static_cast<int32_t>(extent), static_cast<int32_t>(stride));
    };
    const int64_t run = kPackedChannels, run_size = run * taps * in_per_group, group_size = ob * taps * in_per_group;
    packed->weights_dims = {dim(run, 1),
                            dim(kernel[0], run),
                            dim(kernel[1], run * kernel[0]),
                            dim(kernel[2], run * kernel[0] * kernel[1]),
                            dim(in_per_group, run * taps),
                            dim(ob / run, run_size),
                            dim(group, group_size)};
    packed->bias_dims = {dim(ob, 1), dim(group, ob)};

    // The weights' own strides, seen in ONNX form: an output channel co of the grouped layout
    // [G, C_out/G, ...] is (co / (C_out/G), co % (C_out/G)), which is the same memory when dense.
    const std::vector<int64_t> strides = weights.effective_strides();
    const bool grouped = layout == WeightsLayout::grouped;
    const std::size_t k0 = grouped ? 3 : 2;  // first kernel dimension of `weights`
    const std::size_t kernel_dims = weights.shape.size() - k0;
    const std::size_t size = dtype_size(dtype);
    const auto *base = static_cast<const unsigned char *>(weights.data);
    for (int64_t co = 0; co < out_channels; co++) {
        const int64_t g = co / out_per_group, cog = co % out_per_group;
        const int64_t co_offset = grouped ? g * strides[0] + cog * strides[1] : co * strides[0];
        for (int64_t ci = 0; ci < in_per_group; ci++) {
            for (int64_t t = 0; t < taps; t++) {
                // Tap t in row-major kernel order is also the packed order (kz, ky, kx).
                int64_t offset = co_offset + ci * strides[k0 - 1], rest = t;
                for (std::size_t d = kernel_dims; d-- > 0;) {
                    offset += (rest % weights.shape[k0 + d]) * strides[k0 + d];
                    rest /= weights.shape[k0 + d];
                }
                const int64_t packed_index = detail::packed_weight_index(g, cog, ci * taps + t, run, taps * in_per_group, ob);
                packed->set_weight(static_cast<std::size_t>(packed_index),
                                   element_as_double(dtype, base + static_cast<std::size_t>(offset) * size));
            }
        }
        if (bias) {
            const auto *b = static_cast<const unsigned char *>(bias->data);
            const int64_t stride = bias->effective_stride(0);
            packed->set_bias(static_cast<std::size_t>(g * ob + cog),
                             element_as_double(dtype, b + static_cast<std::size_t>(co * stride) * size));
        }
    }
    packed->finish();
    return packed;
}

// The fused activation as the kernels' clamp bounds ([-inf, inf] for none).
void activation_bounds(const ConvAttributes &a, float &clamp_min, float &clamp_max) {
    clamp_min = -std::numeric_limits<float>::infinity(), clamp_max = std::numeric_limits<float>::infinity();
    switch (a.activation) {
    case Activation::none: break;
    case Activation::relu: clamp_min = 0.0f; break;
    case Activation::relu6: clamp_min = 0.0f, clamp_max = 6.0f; break;
    case Activation::clamp: clamp_min = a.clamp_min, clamp_max = a.clamp_max; break;
    }
}

}  // namespace

ConvGeometry infer_conv_shape(const std::vector<int64_t> &input_shape, const std::vector<int64_t> &weights_shape,
                              const ConvAttributes &attributes) {
    return conv_geometry(input_shape, resolve_weights(weights_shape, attributes), attributes);
}

PreparedConvolution::PreparedConvolution(const TensorView &weights, const TensorView *bias, const ConvAttributes &a)
    : dtype_(weights.dtype), attributes_(a) {
    detail::ensure_runtime_ready();
    if (dtype_ != DType::f32 && dtype_ != DType::f16 && dtype_ != DType::bf16 && dtype_ != DType::f64) {
        throw Error(std::string(kOp) + ": weights dtype " + dtype_name(dtype_) + " is not supported (f32, f16, bf16, f64)");
    }
    for (const TensorView *t : {&weights, bias}) {
        if (t && t->memory != Memory::host) {
            throw Error(std::string(kOp) + ": " + (t == bias ? "bias" : "weights") + " must be in host memory (they are packed on the CPU), got " +
                        memory_name(t->memory) + " memory");
        }
    }
    const ResolvedWeights w = resolve_weights(weights.shape, a);
    detail::check_tensor(kOp, "weights", weights, dtype_, weights.shape);
    weights_shape_ = w.shape;
    group_ = w.group;
    if (bias) detail::check_tensor(kOp, "bias", *bias, dtype_, {w.shape[0]});
    if (a.activation == Activation::clamp && !(a.clamp_min <= a.clamp_max)) {
        throw Error(std::string(kOp) + ": clamp_min (" + std::to_string(a.clamp_min) + ") must be <= clamp_max (" +
                    std::to_string(a.clamp_max) + ")");
    }
    packed_ = pack_weights(weights, bias, w, a.weights_layout);
}

ConvGeometry PreparedConvolution::infer_shape(const std::vector<int64_t> &input_shape) const {
    ResolvedWeights w{weights_shape_, group_};
    return conv_geometry(input_shape, w, attributes_);
}

// Everything run() passes to a kernel, worked out and checked from the tensors.
struct PreparedConvolution::Call {
    detail::CallPath path;
    std::string kernel;  // e.g. "conv_f32_row_pairs"; empty when the output has no elements
    TensorView input, output;  // as the kernel sees them (pointwise: a plane's axes merged into one)
    int32_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad_begin[3] = {0, 0, 0};  // x, y, z
    float clamp_min = -std::numeric_limits<float>::infinity(), clamp_max = std::numeric_limits<float>::infinity();
    bool channel_vectors = false;  // the kernel reads the weights in runs of kChannelVectorRun
};

PreparedConvolution::Call PreparedConvolution::plan_call(const TensorView &input, const TensorView &output) const {
    detail::ensure_runtime_ready();
    if (input.dtype != dtype_) {
        throw Error(std::string(kOp) + ": input has dtype " + dtype_name(input.dtype) + " but the weights are " +
                    dtype_name(dtype_));
    }
    const ConvGeometry geometry = infer_shape(input.shape);
    detail::check_tensor(kOp, "input", input, dtype_, input.shape);
    detail::check_tensor(kOp, "output", output, dtype_, geometry.output_shape);
    for (const TensorView *t : {&input, &output}) {
        const int64_t channel_stride = t->effective_stride(1);
        detail::to_int32(kOp, "group stride", 0, channel_stride * (t->shape[1] / group_));
    }
    // Host tensors on a GPU path whose backend has no kernels of this type (bf16 anywhere, f16 on
    // OpenCL) run on the CPU, and then take the CPU's kernel choice below.
    const std::string family = std::string("conv_") + dtype_name(dtype_);
    const detail::CallPath path =
        detail::kernel_path(family, detail::call_path(kOp, {{"input", &input}, {"output", &output}}));
    Call call{path, "", input, output};
    if (output.element_count() == 0) return call;

    // Window numbers in Halide axis order (0 = x = W, 1 = y = H, 2 = z = D).
    const std::size_t spatial = input.shape.size() - 2;
    int32_t *stride = call.stride, *dilation = call.dilation, *pad_begin = call.pad_begin;
    ConvCallFacts facts;  // for the plan choice below
    facts.spatial = static_cast<int>(spatial);
    for (std::size_t i = 0; i < spatial; i++) {
        const std::size_t ax = detail::halide_axis(spatial, i);
        const int64_t k = weights_shape_[i + 2];
        facts.kernel[ax] = k;
        // The kernels get stride 1 along an axis of one output and dilation 1 along a kernel of
        // one tap (kernel_step). The plan is chosen by the attributes as given: the pointwise plan
        // needs an input as wide as its output.
        const int64_t s = attributes_.strides.empty() ? 1 : attributes_.strides[i];
        const int64_t d = attributes_.dilations.empty() ? 1 : attributes_.dilations[i];
        const int64_t pb = geometry.pads_begin[i];
        // Shape inference checked that these, and every coordinate a kernel computes (over-computed
        // tiles included), fit in int32.
        const detail::KernelStep step = detail::kernel_step(geometry.output_shape[i + 2], k, s, d);
        stride[ax] = step.stride;
        dilation[ax] = step.dilation;
        pad_begin[ax] = static_cast<int32_t>(pb);
        facts.stride[ax] = s, facts.dilation[ax] = d;
    }

    activation_bounds(attributes_, call.clamp_min, call.clamp_max);

    // The plan (schedules/conv_plan.h): the first that takes the call and has a kernel on its path.
    facts.depthwise = weights_shape_[1] == 1 && weights_shape_[0] == group_;
    facts.output_rows = spatial == 1 ? 1 : geometry.output_shape[input.shape.size() - 2];
    facts.output_columns = geometry.output_shape.back();
    facts.output_channels = weights_shape_[0] / group_;
    facts.one_to_one = true;  // each output pixel reads the input pixel at its position
    for (std::size_t i = 0; i < spatial; i++) {
        facts.one_to_one = facts.one_to_one && weights_shape_[i + 2] == 1 &&
                           facts.stride[detail::halide_axis(spatial, i)] == 1 && geometry.pads_begin[i] == 0 &&
                           geometry.pads_end[i] == 0;
    }
    // The pointwise kernels take each dense plane as one row, so their tiles never stop at a row end.
    std::optional<TensorView> merged_input, merged_output;
    if (facts.one_to_one && !facts.depthwise) {
        merged_input = merge_spatial(input);
        merged_output = merge_spatial(output);
    }
    facts.planes_dense = merged_input && merged_output;
    facts.halved_512_bit_fmas = detail::cpu_halves_512_bit_fmas();
    const ConvPlan plan = choose_conv_plan(
        facts, [&](ConvPlan p) { return detail::kernel_built(family + std::string(conv_plan_suffix(p)), path.isa); });
    call.kernel = family + std::string(conv_plan_suffix(plan));
    if (plan == ConvPlan::pointwise) call.input = *merged_input, call.output = *merged_output;
    call.channel_vectors = plan == ConvPlan::channel_vectors;
    return call;
}

std::string PreparedConvolution::kernel_name(const TensorView &input, const TensorView &output) const {
    return plan_call(input, output).kernel;
}

void PreparedConvolution::run(const TensorView &input, const TensorView &output) const {
    const Call call = plan_call(input, output);
    if (call.kernel.empty()) return;
    auto fn = detail::find_kernel_as<detail::KernelKind::conv>(kOp, call.kernel, call.path);
    detail::KernelBuffer in(call.input, group_), out(call.output, group_);
    const detail::PackedWeights::Buffers packed =
        call.channel_vectors ? packed_->channel_vector_buffers() : packed_->buffers_for(call.path.isa);
    const int status = fn(in.get(), packed.weights, packed.bias, call.stride[0], call.stride[1], call.stride[2],
                          call.dilation[0], call.dilation[1], call.dilation[2], call.pad_begin[0], call.pad_begin[1],
                          call.pad_begin[2], attributes_.activation != Activation::none, call.clamp_min, call.clamp_max,
                          out.get());
    detail::finish_kernel_call(kOp, status, {&out});
}

void convolution(const TensorView &input, const TensorView &weights, const TensorView *bias, const TensorView &output,
                 const ConvAttributes &attributes) {
    PreparedConvolution(weights, bias, attributes).run(input, output);
}

}  // namespace poolconv
