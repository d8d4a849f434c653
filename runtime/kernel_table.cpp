#include "runtime/kernel_table.h"

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "poolconv/kernel_override.h"
#include "poolconv/runtime.h"
#include "poolconv/tensor.h"
#include "runtime/dispatch.h"
#include "poolconv_kernels.h"  // generated: every kernel header + POOLCONV_FOR_EACH_KERNEL

namespace poolconv::detail {

namespace {

struct KernelEntry {
    const char *name;
    Isa isa;
    AnyKernel fn;
};

// Each kernel's generated prototype is the signature its name implies (a generator whose inputs
// changed fails here, not at run time).
#define POOLCONV_CHECK_SIGNATURE(name, isa)                                                               \
    static_assert(std::is_same_v<decltype(&poolconv_##name##_##isa), KernelSignature<kernel_kind(#name)>::type>, \
                  "poolconv_" #name "_" #isa " does not have the signature runtime/kernel_table.h gives its kind");
POOLCONV_FOR_EACH_KERNEL(POOLCONV_CHECK_SIGNATURE)
#undef POOLCONV_CHECK_SIGNATURE

#define POOLCONV_KERNEL_ENTRY(name, isa) \
    KernelEntry{#name, Isa::isa, reinterpret_cast<AnyKernel>(&poolconv_##name##_##isa)},
const KernelEntry kKernels[] = {POOLCONV_FOR_EACH_KERNEL(POOLCONV_KERNEL_ENTRY)};
#undef POOLCONV_KERNEL_ENTRY

// Every call looks its kernel up by name: an index built once (a scan of the table compared a
// few dozen names per call, a fifth of a small call's cost in the runtime).
AnyKernel lookup(const std::string &name, Isa isa) {
    using Index = std::unordered_map<std::string_view, AnyKernel>;
    static const std::vector<Index> by_isa = [] {
        std::vector<Index> index(std::size(kIsaTable));  // a row per Isa value
        for (const KernelEntry &k : kKernels) index[static_cast<std::size_t>(k.isa)].emplace(k.name, k.fn);
        return index;
    }();
    const auto row = static_cast<std::size_t>(isa);
    if (row >= by_isa.size()) return nullptr;
    const Index &kernels = by_isa[row];
    const auto found = kernels.find(name);
    return found == kernels.end() ? nullptr : found->second;
}

// An autoscheduler's kernels are ours renamed with this suffix: max_pool_f32_adams2019.
std::string author_suffix(ScheduleAuthor author) { return std::string("_") + schedule_author_name(author); }

}  // namespace

bool kernels_built_for(int isa) {
    for (const KernelEntry &k : kKernels) {
        if (static_cast<int>(k.isa) == isa) return true;
    }
    return false;
}

bool kernel_built(const std::string &name, Isa isa) { return lookup(name, isa) != nullptr; }

bool author_kernels_built(ScheduleAuthor author) {
    // Whether the (constant) table names any kernel "<...>_<author>"; asked on every call made with
    // an autoscheduler set, so the table is scanned once per author, in the order of the enum.
    auto scan = [](ScheduleAuthor a) {
        if (a == ScheduleAuthor::poolconv) return true;
        const std::string suffix = author_suffix(a);
        for (const KernelEntry &k : kKernels) {
            const std::string_view name = k.name;
            if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return true;
        }
        return false;
    };
    static const bool built[] = {scan(ScheduleAuthor::poolconv), scan(ScheduleAuthor::adams2019),
                                 scan(ScheduleAuthor::mullapudi2016)};
    return built[static_cast<int>(author)];
}

bool kernel_available(const std::string &name, const CallPath &path) {
    if (path.author != ScheduleAuthor::poolconv) return lookup(name + author_suffix(path.author), path.isa) != nullptr;
    return lookup(name, kernel_path(name, path).isa) != nullptr;
}

CallPath kernel_path(const std::string &name, const CallPath &path) {
    if (is_gpu_isa(path.isa) && !path.device_tensors && !lookup(name, path.isa)) return {best_cpu_isa(), false};
    return path;
}

AnyKernel find_kernel(const char *op, const std::string &name, const CallPath &path) {
    if (path.author != ScheduleAuthor::poolconv) {
        const std::string autoscheduled = name + author_suffix(path.author);
        if (AnyKernel fn = lookup(autoscheduled, path.isa)) return fn;
        throw Error(std::string(op) + ": no " + isa_name(path.isa) + " kernel " + autoscheduled + " (" +
                    schedule_author_name(path.author) + "'s schedules are built for f32 only, in builds with "
                    "POOLCONV_AUTOSCHEDULED_KERNELS)");
    }
    const CallPath where = kernel_path(name, path);
    const KernelOverride *tuned = ScopedKernelOverride::current();
    if (tuned && tuned->isa == where.isa && (!tuned->kernel || name == tuned->kernel)) {
        ScopedKernelOverride::note_replaced(name);
        return tuned->function;
    }
    AnyKernel fn = lookup(name, where.isa);
    if (!fn) {
        throw Error(std::string(op) + ": no " + isa_name(where.isa) + " kernel " + name +
                    (where.device_tensors ? " (the tensors are in device memory, so the CPU cannot run it)" : ""));
    }
    return fn;
}

}  // namespace poolconv::detail

namespace poolconv {

namespace {
thread_local const KernelOverride *current_override = nullptr;
thread_local std::string last_replaced_kernel;
}

ScopedKernelOverride::ScopedKernelOverride(const KernelOverride &kernel_override)
    : own_(kernel_override), previous_(current_override) {
    current_override = &own_;
}

ScopedKernelOverride::~ScopedKernelOverride() { current_override = previous_; }

const KernelOverride *ScopedKernelOverride::current() { return current_override; }

const std::string &ScopedKernelOverride::last_replaced() { return last_replaced_kernel; }

void ScopedKernelOverride::note_replaced(const std::string &kernel) { last_replaced_kernel = kernel; }

}  // namespace poolconv
