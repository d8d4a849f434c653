// poolconv-tune's output: libNAME.a (every layer's winning kernel and one Halide runtime), NAME.h
// (one function or class per layer, taking TensorViews like the API) and NAME-report.json / .txt.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"
#include "poolconv/runtime.h"
#include "tune/layer_file.h"

namespace poolconv::tune {

// What was tried for a layer, for the report.
struct TriedCandidate {
    std::string label;
    double us = -1;     // median time per call; < 0: not timed
    std::string error;  // why it was dropped (did not build, wrong values); empty if it ran right
    double build_s = 0; // time to build (autoscheduler included) and check it
};

struct TunedLayer {
    const Layer *layer = nullptr;
    std::string kernel;     // the built-in kernel it replaces, e.g. "conv_f32_row_pairs"
    std::string function;   // its C function in libNAME.a: "<NAME>_<layer>"
    std::string winner;     // the winning candidate's label
    std::string same_as;    // the earlier layer with the same computation, whose kernel this one uses
    double generic_us = -1; // the built-in kernel's time in the same run; < 0: not timed
    double tuned_us = -1;
    std::vector<TriedCandidate> tried;
    Halide::Module module{"", Halide::Target()};
};

struct TuneTarget {
    Halide::Target target;  // what the kernels are compiled for
    Isa isa;                // the runtime path they replace kernels of
    bool timed;             // whether this machine runs them (else: our schedule, untimed)
};

void write_library(const std::string &dir, const std::string &name, const std::string &layer_source,
                   const TuneTarget &target, int threads, const std::vector<TunedLayer> &layers);

}  // namespace poolconv::tune
