// One layer on random data: its tensors, its call through the poolconv API (the call a tuned
// kernel serves, so validation and packing are the API's own), the reference result, and the
// kernel call the runtime makes for it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "poolconv/poolconv.h"
#include "tune/layer_file.h"

namespace poolconv::tune {

// Storage and a dense view.
struct OwnedTensor {
    std::vector<unsigned char> bytes;
    TensorView view;
    OwnedTensor(DType dtype, const std::vector<int64_t> &shape);
};

// An argument of a kernel call, as the runtime passed it.
struct KernelArgument {
    bool buffer = false;
    std::vector<int> extents;  // buffer: per dimension, innermost first
    double value = 0;          // scalar
};

// The kernel the runtime calls for a layer on one CPU path, and its arguments.
struct KernelCall {
    std::string kernel;  // built-in kernel name, e.g. "conv_f32_row_pairs"
    std::vector<KernelArgument> arguments;
};

class LayerRun {
public:
    // Random inputs (uniform in [-1, 1], integers over their range), drawn from `seed`.
    LayerRun(const Layer &layer, uint32_t seed);
    ~LayerRun();

    // The layer through the API, writing the outputs.
    void run() const;
    // Empty when the outputs match the reference (max pooling exactly, indices too; sums within
    // rounding bounds), else what differs.
    std::string check_against_reference() const;
    // Sets the outputs to a value no kernel writes (NaN, or the integers' lowest), so that a
    // check after a run sees every element written.
    void poison_outputs();
    // Runs the layer once with the kernel call recorded instead of made (on path `isa`).
    KernelCall capture(Isa isa) const;

private:
    const Layer &layer_;
    std::unique_ptr<OwnedTensor> input_, weights_, bias_, output_, indices_;
    std::unique_ptr<PreparedConvolution> conv_;
};

}  // namespace poolconv::tune
