// The AOT kernels, looked up by name for the active instruction set. Internal to the runtime.
#pragma once

#include <cstdint>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include "HalideRuntime.h"
#include "runtime/dispatch.h"

namespace poolconv::detail {

// Signatures of the generated functions (see generators/pooling_generator.cpp and convolution_generator.cpp for the meaning of
// each scalar, in Halide's innermost-first axis order: x = W, y = H, z = D).
using Window = int32_t;  // kernel, stride, dilation, pad_begin: 3 values each
using MaxPoolKernel = int (*)(halide_buffer_t *input,                                      //
                              Window k0, Window k1, Window k2, Window s0, Window s1, Window s2,  //
                              Window d0, Window d1, Window d2, Window p0, Window p1, Window p2,  //
                              int32_t c0, int32_t c1, int32_t c2, int32_t c3, int32_t c4,      //
                              halide_buffer_t *output);
using MaxPoolIndicesKernel = int (*)(halide_buffer_t *input,                                      //
                                     Window k0, Window k1, Window k2, Window s0, Window s1, Window s2,  //
                                     Window d0, Window d1, Window d2, Window p0, Window p1, Window p2,  //
                                     int32_t c0, int32_t c1, int32_t c2, int32_t c3, int32_t c4,      //
                                     halide_buffer_t *output, halide_buffer_t *indices);
using AvgPoolKernel = int (*)(halide_buffer_t *input,                                      //
                              Window k0, Window k1, Window k2, Window s0, Window s1, Window s2,  //
                              Window d0, Window d1, Window d2, Window p0, Window p1, Window p2,  //
                              int32_t b0, int32_t b1, int32_t b2, int32_t e0, int32_t e1, int32_t e2,  //
                              halide_buffer_t *output);

using ConvKernel = int (*)(halide_buffer_t *input, halide_buffer_t *weights, halide_buffer_t *bias,  //
                           int32_t s0, int32_t s1, int32_t s2, int32_t d0, int32_t d1, int32_t d2,    //
                           int32_t p0, int32_t p1, int32_t p2,                                        //
                           bool clamp_output, float clamp_min, float clamp_max, halide_buffer_t *output);

// Which of the signatures above a kernel's name implies (e.g. "max_pool_f32_indices_i64"):
// kernel_table.cpp checks every generated kernel's prototype against it at compile time.
enum class KernelKind { max_pool, max_pool_indices, avg_pool, conv };
constexpr KernelKind kernel_kind(std::string_view name) {
    if (name.substr(0, 5) == "conv_") return KernelKind::conv;
    if (name.find("avg_pool") != std::string_view::npos) return KernelKind::avg_pool;
    if (name.find("_indices_") != std::string_view::npos) return KernelKind::max_pool_indices;
    return KernelKind::max_pool;
}
template <KernelKind K>
struct KernelSignature;
template <>
struct KernelSignature<KernelKind::max_pool> {
    using type = MaxPoolKernel;
};
template <>
struct KernelSignature<KernelKind::max_pool_indices> {
    using type = MaxPoolIndicesKernel;
};
template <>
struct KernelSignature<KernelKind::avg_pool> {
    using type = AvgPoolKernel;
};
template <>
struct KernelSignature<KernelKind::conv> {
    using type = ConvKernel;
};

// Whether this build has kernels for `isa` (see POOLCONV_ISAS in cmake/PoolconvKernels.cmake).
bool kernels_built_for(int isa);
// Whether this build has kernel `name` (e.g. "conv_f32_row_pairs") for `isa`.
bool kernel_built(const std::string &name, Isa isa);
// Whether a call on `path` would find kernel `name` (find_kernel below): built for the path the
// call resolves to, or, for an autoscheduler's schedules, as that author's kernel.
bool kernel_available(const std::string &name, const CallPath &path);
// Whether this build has kernels scheduled by `author` (ours always; an autoscheduler's with
// POOLCONV_AUTOSCHEDULED_KERNELS, named like ours plus "_<author>").
bool author_kernels_built(ScheduleAuthor author);

// Where kernel `name` runs for a call on `path`: there, except that a GPU path with host tensors
// and no such kernel falls back to the best CPU path (GPUs have kernels for the types they compute
// in, e.g. no bf16). An operator whose CPU has kernels its GPUs lack (convolution) resolves the
// path first, by the kernel family's name, then picks among the kernels there.
CallPath kernel_path(const std::string &name, const CallPath &path);

// The kernel `name` (e.g. "max_pool_f32_indices_i64") for a call on kernel_path(name, path).
// Throws Error naming the kernel and path when there is none.
using AnyKernel = void (*)();
AnyKernel find_kernel(const char *op, const std::string &name, const CallPath &path);

// A kernel ready to call. A call holds thread_pool_mutex() shared while the kernel runs, so that
// set_num_threads from another thread waits for it.
template <typename Signature>
class Kernel;
template <typename... Args>
class Kernel<int (*)(Args...)> {
public:
    explicit Kernel(int (*fn)(Args...)) : fn_(fn) {}
    int operator()(Args... args) const {
        const std::shared_lock<std::shared_mutex> running(thread_pool_mutex());
        return fn_(args...);
    }

private:
    int (*fn_)(Args...);
};

// The same, typed as kind K's signature, which the name must imply (a logic_error otherwise: a
// runtime bug, not a user's).
template <KernelKind K>
Kernel<typename KernelSignature<K>::type> find_kernel_as(const char *op, const std::string &name, const CallPath &path) {
    if (kernel_kind(name) != K) {
        throw std::logic_error(std::string(op) + ": kernel " + name + " asked for with another kind's signature");
    }
    return Kernel<typename KernelSignature<K>::type>(
        reinterpret_cast<typename KernelSignature<K>::type>(find_kernel(op, name, path)));
}

}  // namespace poolconv::detail
