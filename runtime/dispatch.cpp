// Threads, instruction-set selection and Halide error capture.
#include "runtime/dispatch.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "HalideRuntime.h"
#include "poolconv_isas.h"  // generated: POOLCONV_CPU_ISA_FEATURES
#include "poolconv/runtime.h"
#include "poolconv/tensor.h"
#include "runtime/gpu.h"
#include "runtime/kernel_table.h"

namespace poolconv {

namespace {

std::atomic<Isa> g_requested_isa{Isa::best};
std::atomic<ScheduleAuthor> g_schedule_author{ScheduleAuthor::poolconv};
std::atomic<int> g_threads{0};
std::atomic<int> g_halved_fmas_override{-1};  // -1: CPUID's answer; else 0 or 1 (a test's)
thread_local std::string t_last_halide_error;

// Halide reports kernel failures (e.g. a violated buffer constraint) through this handler;
// we keep the message and rethrow it as an Error after the call returns.
void capture_halide_error(void * /*user_context*/, const char *message) {
    t_last_halide_error = message ? message : "";
    while (!t_last_halide_error.empty() && t_last_halide_error.back() == '\n') t_last_halide_error.pop_back();
}

// Whether this CPU (and OS) runs code built for the Halide target features listed: the same
// test Halide's own multi-target dispatch uses.
bool cpu_supports(const std::vector<halide_target_feature_t> &features) {
    uint64_t mask[(halide_target_feature_end + 63) / 64] = {};
    for (halide_target_feature_t f : features) mask[f / 64] |= uint64_t(1) << (f % 64);
    return halide_default_can_use_target_features(static_cast<int>(std::size(mask)), mask) != 0;
}

// Whether this CPU runs the kernels this build compiled for `isa`, by the target features of that
// path in POOLCONV_ISAS (poolconv_isas.h, generated); false for a path not built, and for GPUs.
bool cpu_supports_isa(Isa isa) {
    struct IsaFeatures {
        const char *isa;
        std::vector<halide_target_feature_t> features;
    };
    static const IsaFeatures kBuilt[] = {POOLCONV_CPU_ISA_FEATURES};
    for (const IsaFeatures &built : kBuilt) {
        if (std::strcmp(built.isa, isa_name(isa)) == 0) return cpu_supports(built.features);
    }
    return false;
}

// Whether the CPU is an AMD family 0x19 core with AVX-512F: Zen 4, whose FPU is 256 bits wide
// (Zen 3, the same family, has no AVX-512). The only such core measured; other AVX-512 cores keep
// the general tile, which the Intel Xeons measured (two 512-bit FMA pipes) ran faster. Cores that
// may halve 512-bit FMAs too but were not measured (mobile Zen 5, family 0x1a) are not named.
bool cpuid_says_halved_512_bit_fmas() {
#if defined(__x86_64__)
    return __builtin_cpu_is("amdfam19h") && __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

// This library's architecture, as kIsaTable names it.
#if defined(__aarch64__)
constexpr IsaKind kArchitecture = IsaKind::aarch64;
#else
constexpr IsaKind kArchitecture = IsaKind::x86_64;
#endif

// The paths of kIsaTable of one kind, in its order.
std::vector<Isa> isas_of(IsaKind kind) {
    std::vector<Isa> isas;
    for (const IsaInfo &info : kIsaTable) {
        if (info.kind == kind) isas.push_back(info.isa);
    }
    return isas;
}

// POOLCONV_NUM_THREADS if set (an integer in [1, 1024]; anything else is an Error, not ignored),
// else one per hardware thread.
int default_threads() {
    if (const char *env = std::getenv("POOLCONV_NUM_THREADS")) {
        char *end = nullptr;
        errno = 0;
        const long n = std::strtol(env, &end, 10);
        if (end == env || *end != '\0' || errno != 0 || n < 1 || n > 1024) {
            throw Error(std::string("POOLCONV_NUM_THREADS='") + env + "' is not an integer in [1, 1024]");
        }
        return static_cast<int>(n);
    }
    unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}

// Environment variable `variable` read as one of `choices` by name (anything else is an Error, not
// ignored); the first choice when it is unset.
template <typename Choice>
Choice choice_from_env(const char *variable, const std::vector<Choice> &choices, const char *(*name)(Choice)) {
    const char *env = std::getenv(variable);
    if (!env) return *choices.begin();
    std::string names;
    for (Choice choice : choices) {
        if (std::strcmp(env, name(choice)) == 0) return choice;
        names += std::string(names.empty() ? "" : ", ") + name(choice);
    }
    throw Error(std::string(variable) + "='" + env + "' is not one of " + names);
}

}  // namespace

void set_num_threads(int threads) {
    detail::ensure_runtime_ready();
    if (threads < 0) throw Error("set_num_threads: threads must be >= 0, got " + std::to_string(threads));
    const int n = threads == 0 ? default_threads() : threads;
    // Halide 14's pool keeps already-started workers taking tasks after a lower count is set
    // (measured: "1 thread" after 2 ran at 2 threads' speed), so a change restarts the pool: once
    // no kernel runs (kernel calls hold the mutex shared).
    const std::unique_lock<std::shared_mutex> no_kernel_running(detail::thread_pool_mutex());
    if (g_threads.exchange(n) != n) halide_shutdown_thread_pool();
    halide_set_num_threads(n);
}

int num_threads() {
    detail::ensure_runtime_ready();
    return g_threads;
}

void set_isa(Isa isa) {
    detail::ensure_runtime_ready();
    g_requested_isa = isa;
}

void set_schedule_author(ScheduleAuthor author) {
    detail::ensure_runtime_ready();
    g_schedule_author = author;
}

ScheduleAuthor schedule_author() {
    detail::ensure_runtime_ready();
    return g_schedule_author;
}

const char *schedule_author_name(ScheduleAuthor author) {
    switch (author) {
    case ScheduleAuthor::poolconv: return "poolconv";
    case ScheduleAuthor::adams2019: return "adams2019";
    case ScheduleAuthor::mullapudi2016: return "mullapudi2016";
    }
    return "unknown";
}

bool schedule_author_available(ScheduleAuthor author) { return detail::author_unavailable(author).empty(); }

namespace {

// The CPU path for `requested`: itself, else the best lower one, else (a build without the lower
// ones, or a path of another architecture or a GPU) the best there is.
Isa work_out_cpu_isa(Isa requested) {
    auto usable = [](Isa isa) { return cpu_supports_isa(isa) && detail::kernels_built_for(static_cast<int>(isa)); };
    const std::vector<Isa> paths = architecture_isas();
    bool allowed = requested == Isa::best;
    for (Isa isa : paths) {
        allowed = allowed || isa == requested;
        if (allowed && usable(isa)) return isa;
    }
    for (Isa isa : paths) {
        if (usable(isa)) return isa;
    }
    return paths.back();
}

// The same, worked out once per request: neither the CPU nor the build changes while the process
// runs, and every call asks (the path's vector and feature checks were a few percent of a small
// call's cost in the runtime).
Isa choose_cpu_isa(Isa requested) {
    static const std::vector<Isa> answers = [] {
        std::vector<Isa> a(std::size(kIsaTable));  // a row per Isa value
        for (const IsaInfo &info : kIsaTable) a[static_cast<std::size_t>(info.isa)] = work_out_cpu_isa(info.isa);
        return a;
    }();
    const auto row = static_cast<std::size_t>(requested);
    return row < answers.size() ? answers[row] : work_out_cpu_isa(requested);
}

}  // namespace

Isa active_isa() {
    detail::ensure_runtime_ready();
    const Isa requested = g_requested_isa;
    if (detail::is_gpu_isa(requested) && detail::kernels_built_for(static_cast<int>(requested)) &&
        detail::gpu_present(requested)) {
        return requested;
    }
    return choose_cpu_isa(requested);
}

std::vector<Isa> architecture_isas() { return isas_of(kArchitecture); }

std::vector<Isa> built_isas() {
    std::vector<Isa> isas;
    for (const auto &list : {architecture_isas(), isas_of(IsaKind::gpu)}) {
        for (Isa isa : list) {
            if (detail::kernels_built_for(static_cast<int>(isa))) isas.push_back(isa);
        }
    }
    return isas;
}

const char *isa_name(Isa isa) {
    for (const IsaInfo &info : kIsaTable) {
        if (info.isa == isa) return info.name;
    }
    return "unknown";
}

namespace detail {

// A bad POOLCONV_ISA or POOLCONV_NUM_THREADS makes every call throw its Error (call_once runs the
// set-up again next time).
void ensure_runtime_ready() {
    static std::once_flag once;
    std::call_once(once, [] {
        halide_set_error_handler(capture_halide_error);
        std::vector<Isa> isas;
        for (const IsaInfo &info : kIsaTable) isas.push_back(info.isa);
        g_requested_isa = choice_from_env("POOLCONV_ISA", isas, isa_name);
        g_schedule_author = choice_from_env(
            "POOLCONV_SCHEDULE_AUTHOR",
            {ScheduleAuthor::poolconv, ScheduleAuthor::adams2019, ScheduleAuthor::mullapudi2016}, schedule_author_name);
        g_threads = default_threads();
        halide_set_num_threads(g_threads);
    });
}

bool cpu_halves_512_bit_fmas() {
    static const bool by_cpuid = cpuid_says_halved_512_bit_fmas();
    const int forced = g_halved_fmas_override;
    return forced < 0 ? by_cpuid : forced != 0;
}

void override_halved_512_bit_fmas(std::optional<bool> halved) { g_halved_fmas_override = halved ? int(*halved) : -1; }

bool is_gpu_isa(Isa isa) {
    for (const IsaInfo &info : kIsaTable) {
        if (info.isa == isa) return info.kind == IsaKind::gpu;
    }
    return false;
}

// An autoscheduler's kernels were planned for the avx2 path: they run there or nowhere.
std::string author_unavailable(ScheduleAuthor author) {
    if (author == ScheduleAuthor::poolconv) return "";
    if (!kernels_built_for(static_cast<int>(Isa::avx2))) return "need a build with the avx2 path";
    if (!author_kernels_built(author)) return "are not in this build (CMake option POOLCONV_AUTOSCHEDULED_KERNELS)";
    if (!cpu_supports_isa(Isa::avx2)) return "need an AVX2 CPU";
    return "";
}

Isa best_cpu_isa() { return choose_cpu_isa(Isa::best); }

CallPath call_path(const char *op, std::initializer_list<NamedTensor> tensors) {
    ensure_runtime_ready();
    const NamedTensor &first = *tensors.begin();
    for (const NamedTensor &t : tensors) {
        if (t.tensor->memory != first.tensor->memory) {
            throw Error(std::string(op) + ": " + first.name + " is in " + memory_name(first.tensor->memory) +
                        " memory but " + t.name + " is in " + memory_name(t.tensor->memory) +
                        " memory; all tensors of a call must be in one place");
        }
    }
    const Memory memory = first.tensor->memory;
    const ScheduleAuthor author = g_schedule_author;
    if (author != ScheduleAuthor::poolconv) {
        const std::string whose = std::string(op) + ": " + schedule_author_name(author) + "'s kernels (set_schedule_author)";
        if (memory != Memory::host) throw Error(whose + " take host tensors only, not " + memory_name(memory) + " memory");
        const std::string missing = author_unavailable(author);
        if (!missing.empty()) throw Error(whose + " " + missing);
        return CallPath{Isa::avx2, false, author};
    }
    if (memory == Memory::host) return CallPath{active_isa(), false};
    const Isa isa = memory_isa(memory);
    require_gpu(std::string(op) + ": the tensors are in " + memory_name(memory) + " memory but", isa);
    return CallPath{isa, true};
}

std::shared_mutex &thread_pool_mutex() {
    static std::shared_mutex mutex;
    return mutex;
}

void clear_halide_error() { t_last_halide_error.clear(); }

void throw_kernel_failure(const char *op, int halide_status) {
    std::string message = t_last_halide_error.empty() ? "no message" : t_last_halide_error;
    t_last_halide_error.clear();
    throw Error(std::string(op) + ": kernel failed (Halide status " + std::to_string(halide_status) + "): " + message);
}

}  // namespace detail
}  // namespace poolconv
