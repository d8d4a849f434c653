// Plain functions with each kernel kind's signature (runtime/kernel_table.h) that forward to what
// poolconv-tune installs on this thread: a recorder of the call's arguments, or a JIT-compiled
// candidate. ScopedKernelOverride takes these in place of the built-in kernels.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "runtime/kernel_table.h"
#include "tune/layer_file.h"
#include "tune/layer_run.h"

namespace poolconv::tune {

using detail::KernelKind;

// The kind of kernel a layer's calls take.
KernelKind layer_kernel_kind(const Layer &layer);

// Calls f(std::integral_constant<KernelKind, kind>{}): a runtime kind to a compile-time one.
template<typename F>
decltype(auto) visit_kind(KernelKind kind, F &&f) {
    switch (kind) {
    case KernelKind::max_pool: return f(std::integral_constant<KernelKind, KernelKind::max_pool>{});
    case KernelKind::max_pool_indices: return f(std::integral_constant<KernelKind, KernelKind::max_pool_indices>{});
    case KernelKind::avg_pool: return f(std::integral_constant<KernelKind, KernelKind::avg_pool>{});
    case KernelKind::conv: break;
    }
    return f(std::integral_constant<KernelKind, KernelKind::conv>{});
}

// The forwarding function of signature Sig and what it forwards to (per thread).
template<typename Sig>
struct Forward;
template<typename... Args>
struct Forward<int (*)(Args...)> {
    static thread_local std::function<int(Args...)> target;
    static int call(Args... args) { return target(args...); }
};
template<typename... Args>
thread_local std::function<int(Args...)> Forward<int (*)(Args...)>::target;

template<KernelKind K>
using KernelSignatureOf = typename detail::KernelSignature<K>::type;

// The forwarding function of `kind`, as ScopedKernelOverride takes it.
inline void (*forward_function(KernelKind kind))() {
    return visit_kind(kind, [](auto k) {
        return reinterpret_cast<void (*)()>(&Forward<KernelSignatureOf<decltype(k)::value>>::call);
    });
}

// While alive, the forwarding functions (forward_function) record each call's arguments into
// `into` and compute nothing.
struct CapturedArguments {
    std::vector<KernelArgument> arguments;
};
class CaptureScope {
public:
    explicit CaptureScope(CapturedArguments &into);
    ~CaptureScope();
    CaptureScope(const CaptureScope &) = delete;
    CaptureScope &operator=(const CaptureScope &) = delete;
};

}  // namespace poolconv::tune
