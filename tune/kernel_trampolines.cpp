#include "tune/kernel_trampolines.h"

namespace poolconv::tune {

namespace {

void record(std::vector<KernelArgument> &out, halide_buffer_t *b) {
    KernelArgument a;
    a.buffer = true;
    for (int d = 0; d < b->dimensions; d++) a.extents.push_back(b->dim[d].extent);
    out.push_back(a);
}
template<typename Scalar>
void record(std::vector<KernelArgument> &out, Scalar v) {
    KernelArgument a;
    a.value = static_cast<double>(v);
    out.push_back(a);
}

template<typename... Args>
void install_recorder(int (*)(Args...), CapturedArguments *into) {
    if (!into) {
        Forward<int (*)(Args...)>::target = nullptr;
        return;
    }
    Forward<int (*)(Args...)>::target = [into](Args... args) {
        into->arguments.clear();
        (record(into->arguments, args), ...);
        return 0;
    };
}

void install_all(CapturedArguments *into) {
    for (KernelKind kind : {KernelKind::max_pool, KernelKind::max_pool_indices, KernelKind::avg_pool, KernelKind::conv}) {
        visit_kind(kind, [&](auto k) { install_recorder(KernelSignatureOf<decltype(k)::value>{}, into); });
    }
}

}  // namespace

KernelKind layer_kernel_kind(const Layer &layer) {
    switch (layer.op) {
    case LayerOp::maxpool: return layer.indices ? KernelKind::max_pool_indices : KernelKind::max_pool;
    case LayerOp::avgpool: return KernelKind::avg_pool;
    case LayerOp::conv: break;
    }
    return KernelKind::conv;
}

CaptureScope::CaptureScope(CapturedArguments &into) { install_all(&into); }
CaptureScope::~CaptureScope() { install_all(nullptr); }

}  // namespace poolconv::tune
