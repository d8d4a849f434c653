// Halide's autotuning loop for Adams2019 (its apps/autoscheduler/autotune_loop.sh, in process):
// schedules sampled from the cost model with random dropout are timed on this machine, the cost
// model is retrained on every sample so far (Halide's adams2019_retrain_cost_model, from the
// baked-in weights), and the retrained weights then drive Adams2019's search like the default ones.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tune/candidates.h"

namespace poolconv::tune {

class Retraining {
public:
    // Samples and weights live in a scratch folder, removed with this object.
    Retraining();
    ~Retraining();
    Retraining(const Retraining &) = delete;
    Retraining &operator=(const Retraining &) = delete;

    // Whether this build found Halide's retraining tools.
    static bool available();

    // The sampling candidate `index` (Adams2019, greedy, random dropout, its own seed).
    static Candidate sample_candidate(int index, int threads);

    // Records a timed sample of pipeline `pipeline_id` (one per layer): its featurization and the
    // median time per call.
    void add_sample(const BuiltKernel &kernel, int pipeline_id, double us);
    int samples() const { return samples_; }

    // Retrains the cost model on every sample so far and returns Adams2019 candidates (greedy, and
    // beam search) that plan with the new weights. Throws Error if the tools fail.
    std::vector<Candidate> retrain(int threads);

private:
    std::filesystem::path dir_;
    int samples_ = 0;
    int generation_ = 0;
};

}  // namespace poolconv::tune
