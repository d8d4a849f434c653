// GPU backends: device probes, the CUDA / OpenCL contexts the kernels run in, and wrapping device
// allocations in Halide buffers. Everything goes through the Halide runtime in libpoolconv.a,
// which loads the GPU driver libraries when first needed, so poolconv links no GPU library.
#include "runtime/gpu.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#ifdef POOLCONV_HAVE_CUDA
#include "HalideRuntimeCuda.h"
#endif
#ifdef POOLCONV_HAVE_OPENCL
#include "HalideRuntimeOpenCL.h"
#endif
#include "runtime/dispatch.h"
#include "runtime/kernel_table.h"

// Halide runtime hooks (weak definitions in the Halide runtime, not declared by its headers):
// the context and queue its kernels use. CUcontext, CUstream, cl_context and cl_command_queue are
// all pointers.
extern "C" {
#ifdef POOLCONV_HAVE_CUDA
int halide_cuda_acquire_context(void *user_context, void **context, bool create);
int halide_cuda_release_context(void *user_context);
int halide_cuda_get_stream(void *user_context, void *context, void **stream);
#endif
#ifdef POOLCONV_HAVE_OPENCL
int halide_acquire_cl_context(void *user_context, void **context, void **queue, bool create);
int halide_release_cl_context(void *user_context);
#endif
}

namespace poolconv {

namespace {

// Whether `interface`'s driver loads and gives a device: a tiny device allocation initializes
// both, or fails (no driver library, no device).
[[maybe_unused]] bool device_works(const halide_device_interface_t *interface) {
    uint8_t host[4] = {};
    halide_dimension_t dim(0, 4, 1);
    halide_buffer_t probe = {};
    probe.host = host;
    probe.type = halide_type_t(halide_type_uint, 8);
    probe.dimensions = 1;
    probe.dim = &dim;
    const bool ok = halide_device_malloc(nullptr, &probe, interface) == 0;
    if (ok) halide_device_free(nullptr, &probe);
    detail::clear_halide_error();
    return ok;
}

#ifdef POOLCONV_HAVE_CUDA
// The engine's context and stream (set_cuda_context); null: Halide's own.
std::atomic<void *> g_cuda_context{nullptr};
std::atomic<void *> g_cuda_stream{nullptr};
halide_cuda_acquire_context_t g_default_cuda_acquire = nullptr;
halide_cuda_release_context_t g_default_cuda_release = nullptr;
halide_cuda_get_stream_t g_default_cuda_get_stream = nullptr;

int acquire_cuda_context(void *user_context, void **context, bool create) {
    if (void *engine = g_cuda_context.load()) {
        *context = engine;
        return 0;
    }
    return g_default_cuda_acquire(user_context, context, create);
}
// Halide's default acquire takes a lock that its release drops; the engine's context takes none.
int release_cuda_context(void *user_context) {
    return g_cuda_context.load() ? 0 : g_default_cuda_release(user_context);
}
int get_cuda_stream(void *user_context, void *context, void **stream) {
    if (g_cuda_context.load()) {
        *stream = g_cuda_stream.load();
        return 0;
    }
    return g_default_cuda_get_stream(user_context, context, stream);
}

// Routes Halide's CUDA hooks through the functions above, once.
void install_cuda_hooks() {
    static std::once_flag once;
    std::call_once(once, [] {
        g_default_cuda_acquire = halide_set_cuda_acquire_context(acquire_cuda_context);
        g_default_cuda_release = halide_set_cuda_release_context(release_cuda_context);
        g_default_cuda_get_stream = halide_set_cuda_get_stream(get_cuda_stream);
    });
}
#endif

// `lead` begins the message, e.g. "set_cuda_context:".
[[noreturn]] void throw_not_built(const std::string &lead, Isa isa) {
    throw Error(lead + " this build has no " + isa_name(isa) + " kernels (POOLCONV_GPU_TARGETS at configure time)");
}

}  // namespace

GpuContext gpu_context(Isa isa) {
    detail::ensure_runtime_ready();
    const char *op = "gpu_context";
    if (!detail::is_gpu_isa(isa)) throw Error(std::string(op) + ": " + isa_name(isa) + " is not a GPU path");
    detail::require_gpu(std::string(op) + ":", isa);
    GpuContext c;
    int status = 0;
#ifdef POOLCONV_HAVE_CUDA
    if (isa == Isa::cuda) {
        status = halide_cuda_acquire_context(nullptr, &c.context, true);
        if (status == 0) {
            status = halide_cuda_get_stream(nullptr, c.context, &c.queue);
            halide_cuda_release_context(nullptr);
        }
    }
#endif
#ifdef POOLCONV_HAVE_OPENCL
    if (isa == Isa::opencl) {
        status = halide_acquire_cl_context(nullptr, &c.context, &c.queue, true);
        if (status == 0) halide_release_cl_context(nullptr);
    }
#endif
    if (status != 0) detail::throw_kernel_failure(op, status);
    return c;
}

void set_cuda_context(GpuContext context) {
    detail::ensure_runtime_ready();
#ifdef POOLCONV_HAVE_CUDA
    install_cuda_hooks();
    // Device buffers cached by earlier calls (gpu_present) were last used in the old stream: freed
    // now (cuMemFree waits for the device), none is reused in the new one before that work is done.
    halide_cuda_release_unused_device_allocations(nullptr);
    g_cuda_stream = context.queue;
    g_cuda_context = context.context;
#else
    (void)context;
    throw_not_built("set_cuda_context:", Isa::cuda);
#endif
}

namespace detail {

const halide_device_interface_t *device_interface(Isa isa) {
    switch (isa) {
#ifdef POOLCONV_HAVE_CUDA
    case Isa::cuda: return halide_cuda_device_interface();
#endif
#ifdef POOLCONV_HAVE_OPENCL
    case Isa::opencl: return halide_opencl_device_interface();
#endif
    default: return nullptr;
    }
}

bool gpu_present(Isa isa) {
    // Device buffers a kernel call allocates (the padded copy of a pooling input; host tensors'
    // device copies) go back to Halide's cache when freed and are reused by later calls: a
    // cuMemAlloc / cuMemFree per call, and the device synchronization cuMemFree implies, would
    // cost more than the small kernels. Kernels run in order on one stream, so a reused buffer is
    // free once the call that freed it has run. Process-wide in the Halide runtime.
    static const bool reuse = [] {
        halide_reuse_device_allocations(nullptr, true);
        return true;
    }();
    (void)reuse;
    switch (isa) {
#ifdef POOLCONV_HAVE_CUDA
    case Isa::cuda: {
        install_cuda_hooks();
        static const bool present = device_works(halide_cuda_device_interface());
        return present;
    }
#endif
#ifdef POOLCONV_HAVE_OPENCL
    case Isa::opencl: {
        static const bool present = device_works(halide_opencl_device_interface());
        return present;
    }
#endif
    default:
        return false;
    }
}

void require_gpu(const std::string &lead, Isa isa) {
    if (!kernels_built_for(static_cast<int>(isa))) throw_not_built(lead, isa);
    if (!gpu_present(isa)) throw Error(lead + " no " + isa_name(isa) + " device was found");
}

Isa memory_isa(Memory memory) {
    switch (memory) {
    case Memory::cuda: return Isa::cuda;
    case Memory::opencl: return Isa::opencl;
    case Memory::host: break;
    }
    return Isa::best;
}

void wrap_device_memory([[maybe_unused]] halide_buffer_t *buffer, Memory memory, void *data) {
    [[maybe_unused]] const auto handle = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(data));
    int status = -1;
    switch (memory) {
#ifdef POOLCONV_HAVE_CUDA
    case Memory::cuda: status = halide_cuda_wrap_device_ptr(nullptr, buffer, handle); break;
#endif
#ifdef POOLCONV_HAVE_OPENCL
    case Memory::opencl: status = halide_opencl_wrap_cl_mem(nullptr, buffer, handle); break;
#endif
    default: throw_not_built("device tensor:", memory_isa(memory));
    }
    if (status != 0) throw_kernel_failure("device tensor", status);
}

void detach_device_memory([[maybe_unused]] halide_buffer_t *buffer, Memory memory) noexcept {
    switch (memory) {
#ifdef POOLCONV_HAVE_CUDA
    case Memory::cuda: halide_cuda_detach_device_ptr(nullptr, buffer); break;
#endif
#ifdef POOLCONV_HAVE_OPENCL
    case Memory::opencl: halide_opencl_detach_cl_mem(nullptr, buffer); break;
#endif
    default: break;
    }
}

}  // namespace detail
}  // namespace poolconv
