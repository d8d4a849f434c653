// Candidate kernels for one layer: the generator of the built-in kernel the runtime picks, built
// with the layer's shapes as constants (generators/fixed_layer.h) and scheduled by us (with the
// target's tile or another), or by an autoscheduler on that exact shape.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "runtime/kernel_table.h"
#include "tune/layer_run.h"

namespace poolconv::tune {

// A built-in kernel's generator and parameters (generated from generators/variants.cmake).
struct KernelGenerator {
    const char *kernel;     // e.g. "conv_f32_row_pairs"
    const char *generator;  // e.g. "convolution"
    const char *params;     // e.g. "data_type=float32 plan=row_pairs"
};
// Throws Error when `kernel` is not a built-in kernel.
const KernelGenerator &kernel_generator(const std::string &kernel);

struct Candidate {
    std::string label;                           // for the report: "poolconv", "poolconv tile 1x8x2", "Adams2019"
    std::map<std::string, std::string> params;   // generator parameters besides the kernel's
    Halide::AutoschedulerParams autoscheduler;   // name empty: our schedule
    // Tried only while at least this much of the layer's budget is left (a search that long
    // cannot be stopped once started).
    double min_budget_s = 0;
};

// The first candidates for `kernel` on `target` with `threads` worker threads, cheapest first: our
// schedule, the quick autoschedulers, then our schedule with other register tiles (convolutions).
std::vector<Candidate> candidates_for(const KernelGenerator &kernel, const Halide::Target &target, int threads);

// Then `ours` (the best of our schedule's candidates so far) with other parallel task shapes, those
// the kernel's plan takes (conv_task_shape_refusal in schedules/conv_plan.h: none for depthwise
// kernels; none for other kernels than convolutions).
std::vector<Candidate> task_candidates(const KernelGenerator &kernel, const Candidate &ours);

// Last, the searches that take a minute or more: Adams2019's beam search (not for 3-D layers:
// tune/main.cpp says why).
std::vector<Candidate> search_candidates(int threads);

// The layer spec (generators/fixed_layer.h) of a recorded kernel call.
std::string layer_spec(const KernelGenerator &kernel, const KernelCall &call, const Halide::Target &target);

// One candidate's pipeline, built and scheduled.
class BuiltKernel {
public:
    BuiltKernel(const KernelGenerator &kernel, const std::string &layer_spec, const Candidate &candidate,
                const Halide::Target &target);
    // JIT-compiled, installed as this thread's forwarding target of `kind` (kernel_trampolines.h).
    void install_jit(detail::KernelKind kind);
    // Compiled for the target, as the C function `function_name`.
    Halide::Module module(const std::string &function_name);
    // The autoscheduler's featurization of the pipeline and its schedule (Adams2019; empty for ours).
    const std::vector<uint8_t> &featurization() const { return autoscheduled_.featurization; }

private:
    Halide::Pipeline pipeline_;
    std::vector<Halide::Argument> arguments_;
    Halide::Target target_;
    Halide::Callable callable_;
    Halide::AutoSchedulerResults autoscheduled_;
};

// Loads the autoscheduler plugins (once).
void load_autoschedulers();

}  // namespace poolconv::tune
