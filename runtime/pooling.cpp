// max_pool and avg_pool: validate, resolve the attributes to window numbers, run the kernel.
#include "poolconv/pooling.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "poolconv/kernel_override.h"
#include "poolconv/runtime.h"
#include "runtime/dispatch.h"
#include "runtime/halide_buffer.h"
#include "runtime/kernel_table.h"
#include "runtime/validation.h"
#include "schedules/pool_limits.h"
#include "schedules/vector_bytes.h"

namespace poolconv {

namespace {

// Window attributes in Halide axis order (0 = x = W, 1 = y = H, 2 = z = D); axes the tensor lacks
// get a size-1 window.
struct KernelWindow {
    int32_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad_begin[3] = {0, 0, 0};
    // Per axis, the taps that may be counted lie in [first_tap, last_tap_end): for AvgPool's
    // OpenVINO include-pad divisor.
    int32_t first_tap[3] = {0, 0, 0}, last_tap_end[3] = {1, 1, 1};
};

// Everything an operator call needs once its arguments are checked.
struct PreparedPool {
    PoolGeometry geometry;
    KernelWindow window;
    bool empty = false;           // no output elements: nothing to do
    bool windows_inside = true;   // no window has a tap outside the input (no padding is read)
    // The flat-plane kernels' call (generate_flat_plane in generators/pooling_generator.cpp): 2 or
    // 3 spatial axes; along x and y stride 1, dilation 1, pads inside the window and the output
    // as wide and high as the input; one plane deep, along z at stride 1 with as many planes out
    // as in (no padding after the input adds planes); rows dense in input and output; fewer than
    // 2^24 positions per plane, and in the margins its windows reach above and below it.
    bool flat_plane = false;
};

// Whether a tensor's rows are dense: unit stride along x, and y's stride the row's width (also
// for one row: the kernel's buffer carries that stride).
bool dense_rows(const TensorView &t) {
    const std::size_t r = t.shape.size();
    return t.effective_stride(r - 1) == 1 && t.effective_stride(r - 2) == t.shape[r - 1];
}

PreparedPool prepare_pool(const char *op, const TensorView &input, const TensorView &output, const PoolAttributes &a,
                          std::initializer_list<DType> supported) {
    detail::ensure_runtime_ready();
    if (std::find(supported.begin(), supported.end(), input.dtype) == supported.end()) {
        std::string names;
        for (DType t : supported) names += std::string(names.empty() ? "" : ", ") + dtype_name(t);
        throw Error(std::string(op) + ": input dtype " + dtype_name(input.dtype) + " is not supported (supported: " +
                    names + ")");
    }
    detail::check_rank(op, "input", input.shape);
    PreparedPool p;
    p.geometry = detail::infer_pool_geometry(op, input.shape, a, kMaxPoolOvercompute);
    detail::check_tensor(op, "input", input, input.dtype, input.shape);
    detail::check_tensor(op, "output", output, input.dtype, p.geometry.output_shape);
    p.empty = output.element_count() == 0;

    const std::size_t spatial = input.shape.size() - 2;
    for (std::size_t i = 0; i < spatial; i++) {
        const int ax = static_cast<int>(detail::halide_axis(spatial, i));
        const int64_t k = a.kernel[i];
        const int64_t s = a.strides.empty() ? 1 : a.strides[i];
        const int64_t d = a.dilations.empty() ? 1 : a.dilations[i];
        const int64_t pb = p.geometry.pads_begin[i];
        const int64_t out = p.geometry.output_shape[i + 2];
        // The last tap any window reads, relative to -pad_begin. Shape inference checked that all
        // of these, and reach + pb, fit in int32.
        const int64_t reach = (out - 1) * s + (k - 1) * d;
        KernelWindow &w = p.window;
        w.kernel[ax] = static_cast<int32_t>(k);
        const detail::KernelStep step = detail::kernel_step(out, k, s, d);
        w.stride[ax] = step.stride;
        w.dilation[ax] = step.dilation;
        w.pad_begin[ax] = static_cast<int32_t>(pb);
        w.first_tap[ax] = static_cast<int32_t>(-pb);
        w.last_tap_end[ax] = static_cast<int32_t>(reach - pb + 1);
        p.windows_inside = p.windows_inside && -pb >= 0 && reach - pb < input.shape[i + 2];
    }
    const std::size_t r = input.shape.size();
    const KernelWindow &w = p.window;
    p.flat_plane = spatial >= 2 && w.kernel[2] == 1 && w.pad_begin[2] == 0 && dense_rows(input) && dense_rows(output) &&
                   input.shape[r - 1] * input.shape[r - 2] < (int64_t{1} << 24) &&
                   int64_t{w.kernel[1]} * input.shape[r - 1] + w.kernel[0] < (int64_t{1} << 24) &&  // the margins
                   w.stride[2] == 1 && (spatial == 2 || p.geometry.output_shape[r - 3] == input.shape[r - 3]);
    for (int ax = 0; ax < 2; ax++) {
        const std::size_t d = r - 1 - ax;
        p.flat_plane = p.flat_plane && w.stride[ax] == 1 && w.dilation[ax] == 1 && w.pad_begin[ax] < w.kernel[ax] &&
                       p.geometry.output_shape[d] == input.shape[d];
    }
    return p;
}

// The scratch buffer a kernel allocates: the padded kernels copy each plane, encoded and padded,
// into one that spans the input and every tap of the windows they compute (along x the whole last
// vector of a row: kMaxPoolOvercompute more windows; along y up to kPooledRowsPerStep - 1 rows
// more); the rows-first kernels' band is as wide, kRowsFirstBandRows rows of one plane. Halide
// allocates at most 2^31 - 1 bytes; only windows far larger than the input (huge kernels,
// dilations or pads) come near that.
enum class Scratch { padded_plane, rows_first_band };

// That buffer's extents in elements (z, y, x: the order the tensor lists them; 1 along the axes the
// kernels add to the tensor's). Counted over the kernels' three axes, so a 1-D call's row counts
// twice in the padded plane too: the kernels see it as one row of a y axis and step two rows.
std::array<int64_t, 3> scratch_extents(const TensorView &input, const PreparedPool &p, Scratch scratch) {
    const std::size_t spatial = input.shape.size() - 2;
    const KernelWindow &w = p.window;  // a size-1 window along the axes the tensor lacks
    std::array<int64_t, 3> extents{};
    for (std::size_t ax = 0; ax < 3; ax++) {
        const bool present = ax < spatial;
        const std::size_t i = detail::attribute_index(spatial, ax);
        const int64_t outputs = present ? p.geometry.output_shape[i + 2] : 1;
        const int64_t input_extent = present ? input.shape[i + 2] : 1;
        const int64_t computed = outputs + (ax == 0   ? kMaxPoolOvercompute
                                            : ax == 1 ? kPooledRowsPerStep - 1
                                                      : 0);
        const int64_t last_tap = (computed - 1) * w.stride[ax] - w.pad_begin[ax] + (int64_t{w.kernel[ax]} - 1) * w.dilation[ax];
        int64_t extent = std::max(input_extent, last_tap + 1) - std::min<int64_t>(0, -w.pad_begin[ax]);
        if (scratch == Scratch::rows_first_band && ax > 0) extent = ax == 1 ? kRowsFirstBandRows : 1;
        extents[2 - ax] = extent;
    }
    return extents;
}

// Whether `extents` elements of `element_bytes` stay within Halide's 2^31 - 1 bytes.
bool scratch_fits(const std::array<int64_t, 3> &extents, int element_bytes) {
    int64_t bytes = element_bytes;
    for (int64_t e : extents) {
        if (__builtin_mul_overflow(bytes, e, &bytes)) return false;
    }
    return bytes <= std::numeric_limits<int32_t>::max();
}

// The error for a call whose padded plane would pass that limit, empty where it fits; checked
// before any output is written.
std::string padded_plane_error(const char *op, const TensorView &input, const PreparedPool &p, int element_bytes) {
    const std::array<int64_t, 3> extents = scratch_extents(input, p, Scratch::padded_plane);
    if (scratch_fits(extents, element_bytes)) return "";
    const std::size_t spatial = input.shape.size() - 2;
    std::string listed;
    for (std::size_t k = 0; k < 3; k++) {
        if (k < 3 - spatial && extents[k] == 1) continue;  // an axis the tensor lacks
        listed += (listed.empty() ? "" : " x ") + std::to_string(extents[k]);
    }
    return std::string(op) + ": the windows span a padded plane of " + listed + " elements of " +
           std::to_string(element_bytes) + " bytes, beyond the kernels' scratch limit of 2^31 - 1 bytes";
}

// What the kernel rules (schedules/pool_limits.h) know of a path: its SIMD, or nothing where the
// rules were not measured (the GPUs, an autoscheduler's kernels).
void describe_path(const detail::CallPath &path, PoolKernelCall &call) {
    CpuSimd simd{0, false};
    switch (path.isa) {
    case Isa::avx512: simd = kAvx512Simd; break;
    case Isa::avx2: simd = kAvx2Simd; break;
    case Isa::baseline: simd = kSse2Simd; break;
    case Isa::neon: simd = kNeonSimd; break;
    case Isa::cuda:
    case Isa::opencl:
    case Isa::best: break;
    }
    if (path.author != ScheduleAuthor::poolconv) simd = CpuSimd{0, false};
    call.vector_bytes = simd.vector_bytes;
    call.converts_f16 = simd.converts_f16;
}

// The kernel for a call: `base` (e.g. "max_pool_f32"), or another where the path has it and it
// pays there (schedules/pool_limits.h): the unpadded kernel where every window lies inside the
// input (unpadded_kernel_pays), else the flat-plane kernel (values-only MaxPool and AvgPool of
// f32, stride-1 windows that keep the plane's size: flat_plane_kernel_pays), else the rows-first
// kernel (the same operators, rows_first_kernel_pays), which reads the input in place instead of
// a padded copy of each plane. (The flat-plane kernel copies each plane flat, which the 2^24
// bounds of PreparedPool::flat_plane keep far below the scratch limit.)
// The padded and rows-first kernels' scratch buffers, of `compared_bytes` per element (the type
// the kernels compare or sum), are bounded: checked (padded_plane_error) before any output is
// written; past the padded kernel's limit the unpadded kernel runs where it can.
std::string pool_kernel(const char *op, const TensorView &input, const PreparedPool &p, const std::string &base,
                        const detail::CallPath &path, bool avg, int compared_bytes) {
    PoolKernelCall call;
    call.avg = avg;
    call.f16 = input.dtype == DType::f16;
    call.bf16 = input.dtype == DType::bf16;
    call.eight_bit = !avg && (input.dtype == DType::i8 || input.dtype == DType::u8);
    call.compared_bytes = compared_bytes;
    for (int a = 0; a < 3; a++) {
        call.kernel[a] = p.window.kernel[a];
        call.stride[a] = p.window.stride[a];
        call.dilation[a] = p.window.dilation[a];
        call.pad_begin[a] = p.window.pad_begin[a];
    }
    call.output_width = p.geometry.output_shape.back();
    call.flat_plane = p.flat_plane;
    describe_path(detail::kernel_path(base, path), call);

    const std::string unpadded = base + "_unpadded";
    const bool unpadded_possible = p.windows_inside && detail::kernel_available(unpadded, path);
    if (unpadded_possible && unpadded_kernel_pays(call)) return unpadded;
    const std::string flat_plane = base + "_flat_plane";
    if (flat_plane_kernel_pays(call) && detail::kernel_available(flat_plane, path)) return flat_plane;
    const std::string rows_first = base + "_rows_first";
    if (rows_first_kernel_pays(call) && detail::kernel_available(rows_first, path) &&
        scratch_fits(scratch_extents(input, p, Scratch::rows_first_band), compared_bytes)) {
        return rows_first;
    }
    const std::string scratch_error = padded_plane_error(op, input, p, compared_bytes);
    if (scratch_error.empty()) return base;
    if (unpadded_possible) return unpadded;
    throw Error(scratch_error);
}

// Index coefficients (Halide axis order x, y, z, c, n) for OpenVINO's axis and ONNX's storage order.
void index_coefficients(const TensorView &input, const MaxPoolAttributes &a, int32_t coef[5]) {
    const int rank = input.rank();
    int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
    if (axis < 0 || axis >= rank) {
        throw Error("max_pool: axis " + std::to_string(a.axis) + " is outside [" + std::to_string(-rank) + ", " +
                    std::to_string(rank - 1) + "] for a rank-" + std::to_string(rank) + " input");
    }
    if (a.storage_order == StorageOrder::column_major && axis > 2) {
        throw Error("max_pool: storage_order column_major needs axis <= 2, got axis " + std::to_string(a.axis));
    }
    // Row-major strides of the dimensions from `axis` on; 0 for the dimensions before it.
    std::vector<int64_t> row(rank, 0);
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; d--) {
        if (d >= axis) row[d] = stride;
        stride *= input.shape[d];
    }
    if (a.storage_order == StorageOrder::column_major) {
        // Transpose the spatial part only: the first spatial dimension varies fastest.
        int64_t col = 1;
        for (int d = 2; d < rank; d++) {
            row[d] = col;
            col *= input.shape[d];
        }
    }
    for (int ax = 0; ax < 5; ax++) coef[ax] = 0;
    for (int d = 0; d < rank; d++) {
        const int ax = d == 0 ? 4 : d == 1 ? 3 : rank - 1 - d;
        coef[ax] = static_cast<int32_t>(row[d]);  // < element count < 2^31
    }
}

// Planes [c, c + channels) of batch items [n, n + items) of `t` (N, C, spatial...): a view of
// `t`'s memory.
TensorView planes_of(const TensorView &t, int64_t n, int64_t items, int64_t c, int64_t channels) {
    TensorView v = t;
    v.strides = t.effective_strides();
    v.shape[0] = items;
    v.shape[1] = channels;
    v.data = static_cast<char *>(t.data) + (n * v.strides[0] + c * v.strides[1]) * static_cast<int64_t>(dtype_size(t.dtype));
    return v;
}

// i32 argmax indices through the i64 kernel (max_pool): this many indices a call (256 KiB of i64,
// which stay in L2 until narrowed; 8192 and 131072 measured the same on Zen 3 at 1 thread), but
// kMaxPlanesPerTask planes per worker thread at least, so that each thread gets a task.
constexpr int64_t kNarrowedIndicesPerCall = 32768;

// Copies dense i64 indices (row-major, `indices`' shape), each plus `offset`, into `indices`, an
// i32 view of any strides. Every index fits: it is a position in a tensor of fewer than 2^31
// elements.
void narrow_indices(const int64_t *wide, int64_t offset, const TensorView &indices) {
    const std::vector<int64_t> strides = indices.effective_strides();
    const std::size_t rank = indices.shape.size();
    const int64_t width = indices.shape[rank - 1], x_stride = strides[rank - 1];
    std::vector<int64_t> at(rank - 1, 0);  // the row's coordinates, row-major order
    int64_t row = 0;                       // and its offset in `indices`, in elements
    auto *out = static_cast<int32_t *>(indices.data);
    for (int64_t rows = indices.element_count() / width; rows > 0; rows--) {
        for (int64_t x = 0; x < width; x++) out[row + x * x_stride] = static_cast<int32_t>(wide[x] + offset);
        wide += width;
        for (std::size_t d = rank - 1; d-- > 0;) {
            row += strides[d];
            if (++at[d] < indices.shape[d]) break;
            row -= at[d] * strides[d];
            at[d] = 0;
        }
    }
}

// A global pooling call as its kernels see it: the input and output as rank-3 tensors (N, C, plane)
// and (N, C, 1), and a window of one row covering the plane, so each plane is reduced as one
// contiguous row.
struct GlobalPooling {
    TensorView input, output;
    KernelWindow window;
};

// Global pooling: every window is a whole, unpadded, dense input plane. Fills `flat` and returns
// true; false if the call is not global pooling.
bool as_global_pooling(const TensorView &input, const TensorView &output, const PoolAttributes &a,
                       const PreparedPool &p, GlobalPooling *flat) {
    const std::size_t spatial = input.shape.size() - 2;
    int64_t plane = 1;
    for (std::size_t i = 0; i < spatial; i++) {
        const int64_t in = input.shape[i + 2];
        const bool dilated = !a.dilations.empty() && a.dilations[i] != 1 && a.kernel[i] != 1;
        if (p.geometry.output_shape[i + 2] != 1 || p.geometry.pads_begin[i] != 0 || p.geometry.pads_end[i] != 0 ||
            a.kernel[i] != in || dilated) {
            return false;
        }
        plane *= in;
    }
    int64_t dense = 1;
    for (std::size_t d = input.shape.size(); d-- > 2;) {
        if (input.effective_stride(d) != dense && input.shape[d] != 1) return false;
        dense *= input.shape[d];
    }
    flat->input = TensorView{input.dtype, {input.shape[0], input.shape[1], plane},
                             {input.effective_stride(0), input.effective_stride(1), 1}, input.data, input.memory};
    flat->output = TensorView{output.dtype, {input.shape[0], input.shape[1], 1},
                              {output.effective_stride(0), output.effective_stride(1), 1}, output.data, output.memory};
    flat->window = KernelWindow{};
    flat->window.kernel[0] = static_cast<int32_t>(plane);  // < element count < 2^31
    return true;
}

}  // namespace

void max_pool(const TensorView &input, const TensorView &output, const MaxPoolAttributes &attributes,
              const TensorView *indices) {
    const char *op = "max_pool";
    PreparedPool p = prepare_pool(op, input, output, attributes,
                                  {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8, DType::u8});
    int32_t coef[5];
    if (indices) {
        if (indices->dtype != DType::i64 && indices->dtype != DType::i32) {
            throw Error(std::string(op) + ": indices dtype " + dtype_name(indices->dtype) + " is not supported (i64 or i32)");
        }
        detail::check_tensor(op, "indices", *indices, indices->dtype, p.geometry.output_shape);
        index_coefficients(input, attributes, coef);
    } else {
        for (int32_t &c : coef) c = 0;
    }
    const detail::CallPath path =
        indices ? detail::call_path(op, {{"input", &input}, {"output", &output}, {"indices", indices}})
                : detail::call_path(op, {{"input", &input}, {"output", &output}});
    if (p.empty) return;
    // Global pooling (values only, where its kernel is built): each plane reduced as one row, as
    // avg_pool does.
    GlobalPooling flat;
    std::string name;
    bool global = false;
    if (!indices) {
        name = std::string("global_max_pool_") + dtype_name(input.dtype);
        global = detail::kernel_available(name, path) && as_global_pooling(input, output, attributes, p, &flat);
    }
    // i32 indices from the i64 kernel, narrowed after each call (below), where the path has no
    // i32 kernel for the type (CPUs: f32 only, generators/variants.cmake).
    bool narrow = false;
    if (indices && indices->dtype == DType::i32 && !path.device_tensors) {
        const std::string argmax = std::string("max_pool_") + dtype_name(input.dtype) + "_indices_";
        narrow = !detail::kernel_available(argmax + "i32", path) && detail::kernel_available(argmax + "i64", path);
    }
    if (!global) {
        name = std::string("max_pool_") + dtype_name(input.dtype);
        if (indices) name += std::string("_indices_") + dtype_name(narrow ? DType::i64 : indices->dtype);
        // The kernels compare (and the padded plane holds) keys or values of 4 bytes (f32, f16,
        // bf16: generators/pooling_generator.cpp), 8 for f64, and 8-bit values, or int32 keys
        // where positions are tracked.
        const bool eight_bit = input.dtype == DType::i8 || input.dtype == DType::u8;
        name = pool_kernel(op, input, p, name, path, false,
                           input.dtype == DType::f64 ? 8 : eight_bit && !indices ? 1 : 4);
    }
    const KernelWindow &w = global ? flat.window : p.window;
    if (indices) {
        auto fn = detail::find_kernel_as<detail::KernelKind::max_pool_indices>(op, name, path);
        auto run = [&](const TensorView &in_view, const TensorView &out_view, const TensorView &idx_view) {
            detail::KernelBuffer in(in_view), out(out_view), idx(idx_view);
            const int status = fn(in.get(), w.kernel[0], w.kernel[1], w.kernel[2], w.stride[0], w.stride[1], w.stride[2],
                        w.dilation[0], w.dilation[1], w.dilation[2], w.pad_begin[0], w.pad_begin[1], w.pad_begin[2],
                        coef[0], coef[1], coef[2], coef[3], coef[4], out.get(), idx.get());
            detail::finish_kernel_call(op, status, {&out, &idx});
        };
        if (!narrow) {
            run(input, output, *indices);
            return;
        }
        // The i64 kernel a few planes a call, so that their indices are still in cache when they
        // are narrowed. The kernel counts planes from the call's first: each index gets its
        // plane's offset back. One call where a tuned kernel runs (ScopedKernelOverride): it is
        // built for the whole call's extents, and poolconv-tune records one call per layer.
        const int64_t batch = input.shape[0], channels = input.shape[1];
        const int64_t plane = indices->element_count() / (batch * channels);
        const bool whole = ScopedKernelOverride::current() != nullptr;
        const int64_t items = whole ? batch : 1;  // batch items a call
        const int64_t per_call =
            whole ? channels
                  : std::clamp<int64_t>(std::max<int64_t>(kNarrowedIndicesPerCall / plane,
                                                          int64_t{kMaxPlanesPerTask} * num_threads()),
                                        1, channels);
        std::vector<int64_t> wide(static_cast<std::size_t>(items * per_call * plane));
        std::vector<int64_t> wide_shape = indices->shape;
        wide_shape[0] = items;
        for (int64_t n = 0; n < batch; n += items) {
            for (int64_t c = 0; c < channels; c += per_call) {
                wide_shape[1] = std::min(per_call, channels - c);
                run(planes_of(input, n, items, c, wide_shape[1]), planes_of(output, n, items, c, wide_shape[1]),
                    TensorView::dense(DType::i64, wide_shape, wide.data()));
                narrow_indices(wide.data(), n * coef[4] + c * coef[3], planes_of(*indices, n, items, c, wide_shape[1]));
            }
        }
    } else {
        auto fn = detail::find_kernel_as<detail::KernelKind::max_pool>(op, name, path);
        detail::KernelBuffer in(global ? flat.input : input), out(global ? flat.output : output);
        const int status = fn(in.get(), w.kernel[0], w.kernel[1], w.kernel[2], w.stride[0], w.stride[1], w.stride[2],
                    w.dilation[0], w.dilation[1], w.dilation[2], w.pad_begin[0], w.pad_begin[1], w.pad_begin[2],
                    coef[0], coef[1], coef[2], coef[3], coef[4], out.get());
        detail::finish_kernel_call(op, status, {&out});
    }
}

void avg_pool(const TensorView &input, const TensorView &output, const AvgPoolAttributes &attributes) {
    const char *op = "avg_pool";
    PreparedPool p = prepare_pool(op, input, output, attributes, {DType::f32, DType::f16, DType::bf16, DType::f64});
    const detail::CallPath path = detail::call_path(op, {{"input", &input}, {"output", &output}});
    if (p.empty) return;

    // Which tap positions the divisor counts, per axis: see AvgPadMode.
    const KernelWindow &w = p.window;
    bool any_pad = false;
    for (std::size_t i = 0; i < p.geometry.pads_begin.size(); i++) {
        any_pad = any_pad || p.geometry.pads_begin[i] != 0 || p.geometry.pads_end[i] != 0;
    }
    int32_t count_begin[3], count_end[3];
    const std::size_t spatial = input.shape.size() - 2;
    for (int ax = 0; ax < 3; ax++) {
        const bool present = static_cast<std::size_t>(ax) < spatial;
        const std::size_t i = detail::attribute_index(spatial, static_cast<std::size_t>(ax));
        const int32_t extent = present ? static_cast<int32_t>(input.shape[i + 2]) : 1;
        count_begin[ax] = 0;
        count_end[ax] = extent;
        if (!present) continue;
        if (attributes.pad_mode == AvgPadMode::include_pad) {
            count_begin[ax] = static_cast<int32_t>(-p.geometry.pads_begin[i]);
            // Taps never pass last_tap_end, so clamping there keeps the value in int32.
            const int64_t end = std::min<int64_t>(extent + p.geometry.pads_end[i], w.last_tap_end[ax]);
            count_end[ax] = static_cast<int32_t>(end);
        } else if (attributes.pad_mode == AvgPadMode::include_pad_openvino && any_pad) {
            count_begin[ax] = w.first_tap[ax];
            count_end[ax] = w.last_tap_end[ax];
        }
    }

    GlobalPooling flat;
    const bool global = as_global_pooling(input, output, attributes, p, &flat);
    if (global) {
        // One row per plane; every element counts.
        for (int ax = 0; ax < 3; ax++) count_begin[ax] = 0, count_end[ax] = ax == 0 ? flat.window.kernel[0] : 1;
    }
    const KernelWindow &kw = global ? flat.window : w;
    const int sum_bytes = input.dtype == DType::f64 ? 8 : 4;  // the sums' type (and the padded plane's)
    const std::string name = global ? std::string("global_avg_pool_") + dtype_name(input.dtype)
                                    : pool_kernel(op, input, p, std::string("avg_pool_") + dtype_name(input.dtype),
                                                  path, true, sum_bytes);
    auto fn = detail::find_kernel_as<detail::KernelKind::avg_pool>(op, name, path);
    detail::KernelBuffer in(global ? flat.input : input), out(global ? flat.output : output);
    const int status = fn(in.get(), kw.kernel[0], kw.kernel[1], kw.kernel[2], kw.stride[0], kw.stride[1], kw.stride[2],
                          kw.dilation[0], kw.dilation[1], kw.dilation[2], kw.pad_begin[0], kw.pad_begin[1],
                          kw.pad_begin[2], count_begin[0], count_begin[1], count_begin[2], count_end[0], count_end[1],
                          count_end[2], out.get());
    detail::finish_kernel_call(op, status, {&out});
}

}  // namespace poolconv
