// poolconv-tune: shape-specialized kernels for a model's layers, chosen by timing on this machine,
// in one static library (README, "Tuning a model").
//
//   poolconv-tune --layers layers.json|--onnx model.onnx --name NAME --out DIR [--target host|<Halide target>]
//                 [--budget-s N] [--threads T] [--seed S]
//
// Per layer: the runtime's own call is recorded (which built-in kernel, with what extents and
// window values), candidates are built from that kernel's generator with those values as
// constants, each is checked against the reference on random data, and the fastest (interleaved
// medians, the built-in kernel timed alongside) goes into the library.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"
#include "poolconv/kernel_override.h"
#include "poolconv/poolconv.h"
#include "tune/candidates.h"
#include "tune/kernel_trampolines.h"
#include "tune/layer_file.h"
#include "tune/layer_run.h"
#include "tune/library_writer.h"
#include "tune/retraining.h"

namespace poolconv::tune {
namespace {

using Clock = std::chrono::steady_clock;

// Sampled schedules per layer for retraining, each tried while this much of the layer's budget is left.
constexpr int kSamplesPerLayer = 4;
constexpr double kSecondsPerSample = 15;

const char *const kUsage =
    "usage: poolconv-tune (--layers FILE.json | --onnx MODEL.onnx) --name NAME --out DIR\n"
    "                     [--target host|<Halide target>]\n"
    "                     [--budget-s SECONDS] [--threads T] [--seed S]\n"
    "Writes DIR/libNAME.a, DIR/NAME.h and DIR/NAME-report.{json,txt}.\n";

struct Options {
    std::string layers, onnx, name, out, target = "host";
    double budget_s = 600;
    int threads = 1;
    uint32_t seed = 1;
};

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

Options parse_options(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::cout << kUsage;
            std::exit(0);
        }
        if (i + 1 >= argc) throw UsageError(flag + ": missing value");
        const std::string value = argv[++i];
        try {
            if (flag == "--layers") o.layers = value;
            else if (flag == "--onnx") o.onnx = value;
            else if (flag == "--name") o.name = value;
            else if (flag == "--out") o.out = value;
            else if (flag == "--target") o.target = value;
            else if (flag == "--budget-s") o.budget_s = std::stod(value);
            else if (flag == "--threads") o.threads = std::stoi(value);
            else if (flag == "--seed") o.seed = static_cast<uint32_t>(std::stoul(value));
            else throw UsageError("unknown option " + flag);
        } catch (const std::logic_error &) {
            throw UsageError(flag + ": not a number: " + value);
        }
    }
    if (o.layers.empty() == o.onnx.empty()) throw UsageError("give one of --layers and --onnx");
    if (o.name.empty() || o.out.empty()) throw UsageError("--name and --out are required");
    bool identifier = !std::isdigit(static_cast<unsigned char>(o.name[0]));
    for (char c : o.name) identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!identifier) throw UsageError("--name: must be a C identifier, got \"" + o.name + "\"");
    if (!(o.budget_s > 0)) throw UsageError("--budget-s: must be > 0");
    if (o.threads < 1 || o.threads > 1024) throw UsageError("--threads: must be in [1, 1024]");
    return o;
}

// The Halide target of each CPU path (POOLCONV_ISAS at build time, "<isa>=<target>;...").
std::string isa_target(Isa isa) {
    const std::string table = POOLCONV_TUNE_ISA_TARGETS;
    const std::string key = std::string(isa_name(isa)) + "=";
    std::size_t at = 0;
    while (at < table.size()) {
        std::size_t end = table.find(';', at);
        if (end == std::string::npos) end = table.size();
        const std::string item = table.substr(at, end - at);
        if (item.rfind(key, 0) == 0) return item.substr(key.size());
        at = end + 1;
    }
    throw Error(std::string("poolconv-tune: this build has no ") + isa_name(isa) + " path");
}

// host: the path this CPU runs (its best), timed here. Else a Halide target: the path whose
// kernels it matches, timed only if this machine runs that path.
TuneTarget resolve_target(const std::string &spec) {
    if (spec == "host") {
        const Isa isa = active_isa();
        return {Halide::Target(isa_target(isa)), isa, true};
    }
    if (!Halide::Target::validate_target_string(spec)) throw Error("--target: not a Halide target: " + spec);
    const Halide::Target target(spec);
    Isa isa = Isa::baseline;
    if (target.arch == Halide::Target::ARM) isa = Isa::neon;
    else if (target.has_feature(Halide::Target::AVX512_Skylake)) isa = Isa::avx512;
    else if (target.has_feature(Halide::Target::AVX2)) isa = Isa::avx2;
    const Halide::Target host = Halide::get_host_target();
    bool runs_here = target.arch == host.arch && target.os == host.os && target.bits == host.bits;
    if (runs_here) {
        set_isa(isa);
        runs_here = active_isa() == isa;
        set_isa(Isa::best);
    }
    return {target, isa, runs_here};
}

// Seconds since `start`.
double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Median microseconds per call of each of `runs`, measured in `rounds` interleaved rounds, each
// run repeated to about 2 ms per round.
std::vector<double> interleaved_medians(const std::vector<std::function<void()>> &runs, int rounds) {
    std::vector<int> reps(runs.size());
    for (std::size_t i = 0; i < runs.size(); i++) {
        runs[i]();  // warm up
        const auto start = Clock::now();
        runs[i]();
        reps[i] = std::max(1, static_cast<int>(0.002 / std::max(since(start), 1e-7)));
    }
    std::vector<std::vector<double>> samples(runs.size());
    for (int r = 0; r < rounds; r++) {
        for (std::size_t i = 0; i < runs.size(); i++) {
            const auto start = Clock::now();
            for (int k = 0; k < reps[i]; k++) runs[i]();
            samples[i].push_back(since(start) * 1e6 / reps[i]);
        }
    }
    std::vector<double> medians;
    for (std::vector<double> &s : samples) {
        std::sort(s.begin(), s.end());
        medians.push_back(s[s.size() / 2]);
    }
    return medians;
}

int tune(const Options &o) {
    const auto start = Clock::now();
    const std::string source = o.onnx.empty() ? o.layers : o.onnx;
    const std::vector<Layer> layers = o.onnx.empty() ? read_layer_file(o.layers) : read_onnx_model(o.onnx);
    set_num_threads(o.threads);
    // The JIT-compiled candidates have Halide's JIT runtime and thread pool, sized from this.
    setenv("HL_NUM_THREADS", std::to_string(o.threads).c_str(), 1);
    const TuneTarget target = resolve_target(o.target);
    // The layers run on the target's path where this CPU runs it, so that the runtime picks the
    // kernel it picks there (the convolution plans differ by path: schedules/conv_plan.h). A target
    // this CPU cannot run is captured on a path with the same plans: only AVX-512 builds channel
    // vectors, so an AVX-512 host captures other targets' layers on avx2.
    if (target.timed) {
        set_isa(target.isa);
    } else if (target.isa != Isa::avx512 && active_isa() == Isa::avx512) {
        set_isa(Isa::avx2);
    }
    std::filesystem::create_directories(o.out);
    load_autoschedulers();
    std::cout << "poolconv-tune: " << layers.size() << " layers, target " << target.target.to_string() << " ("
              << isa_name(target.isa) << " path" << (target.timed ? "" : ", not timed here") << "), " << o.threads
              << " thread(s), budget " << o.budget_s << " s" << std::endl;

    // Layers that compute the same thing (ResNet-50 repeats most of its blocks) share one kernel,
    // tuned once: the budget is shared among the distinct ones.
    std::map<std::string, std::size_t> first_with_key;  // into `tuned`
    std::size_t distinct = 0;
    for (const Layer &layer : layers) distinct += first_with_key.emplace(layer_key(layer), 0).second ? 1 : 0;
    first_with_key.clear();
    std::size_t distinct_done = 0;

    // Adams2019's cost model retrained on this machine's timings as the run goes (tune/retraining.h).
    std::unique_ptr<Retraining> retraining;
    if (target.timed && Retraining::available()) {
        try {
            retraining = std::make_unique<Retraining>();
        } catch (const Error &e) {
            std::cout << "poolconv-tune: no retraining: " << e.what() << std::endl;
        }
    }
    int sample_index = 0;

    std::vector<TunedLayer> tuned;
    for (std::size_t i = 0; i < layers.size(); i++) {
        const Layer &layer = layers[i];
        const auto same = first_with_key.find(layer_key(layer));
        if (same != first_with_key.end()) {
            TunedLayer t;
            const TunedLayer &first = tuned[same->second];
            t.layer = &layer;
            t.kernel = first.kernel, t.function = first.function, t.winner = first.winner;
            t.generic_us = first.generic_us, t.tuned_us = first.tuned_us;
            t.same_as = first.layer->name;
            std::cout << "[" << i + 1 << "/" << layers.size() << "] " << layer.name << ": as " << t.same_as << std::endl;
            tuned.push_back(std::move(t));
            continue;
        }
        first_with_key[layer_key(layer)] = tuned.size();
        const double left = o.budget_s - since(start);
        const double layer_budget = std::max(left, 0.0) / static_cast<double>(distinct - distinct_done++);
        const auto layer_start = Clock::now();
        LayerRun run(layer, o.seed + static_cast<uint32_t>(i));
        const KernelKind kind = layer_kernel_kind(layer);
        const KernelCall call = run.capture(active_isa());
        TunedLayer t;
        t.layer = &layer;
        t.kernel = call.kernel;
        t.function = o.name + "_" + layer.name;
        const KernelGenerator &generator = kernel_generator(call.kernel);
        const std::string spec = layer_spec(generator, call, target.target);
        std::vector<Candidate> candidates = candidates_for(generator, target.target, o.threads);
        if (!target.timed) candidates.resize(1);  // our schedule: nothing to time it against here
        const std::string where = "[" + std::to_string(i + 1) + "/" + std::to_string(layers.size()) + "] " + layer.name;
        std::cout << where << ": " << call.kernel << ", " << std::lround(layer_budget) << " s" << std::endl;

        const poolconv::KernelOverride candidate_override{call.kernel.c_str(), target.isa, forward_function(kind)};
        std::vector<std::unique_ptr<BuiltKernel>> kept;
        std::vector<std::size_t> kept_index;  // into t.tried
        std::function<void()> generic = [&] { run.run(); };
        // The layer through the API with kept candidate k in place of the built-in kernel.
        auto run_kept = [&](std::size_t k) {
            kept[k]->install_jit(kind);
            const ScopedKernelOverride use(candidate_override);
            run.run();
        };
        double best_us = -1, best_ours_us = -1;
        std::string best_label;
        Candidate best_ours;  // the fastest of our schedule's candidates so far
        // Builds, checks and (on a timed target) estimates a candidate: its median us, or -1 when
        // it was skipped or dropped. Adams2019's timed schedules become retraining samples.
        auto try_candidate = [&](const Candidate &c) -> double {
            const double layer_left = layer_budget - since(layer_start);
            if (!kept.empty() && (layer_left <= 0 || layer_left < c.min_budget_s)) return -1;
            double estimate = -1;
            TriedCandidate tried;
            tried.label = c.label;
            const auto build_start = Clock::now();
            try {
                auto built = std::make_unique<BuiltKernel>(generator, spec, c, target.target);
                if (target.timed) {
                    built->install_jit(kind);
                    run.poison_outputs();
                    {
                        const ScopedKernelOverride use(candidate_override);
                        run.run();
                    }
                    tried.error = run.check_against_reference();
                }
                if (tried.error.empty()) {
                    kept.push_back(std::move(built));
                    kept_index.push_back(t.tried.size());
                }
            } catch (const std::exception &e) {
                tried.error = e.what();
            } catch (const Halide::Error &e) {
                // A schedule Halide rejects, or a JIT-compiled candidate's run that failed its
                // bounds checks (Adams2019 has planned over-reads of the input).
                tried.error = e.what();
            }
            tried.build_s = since(build_start);
            if (target.timed && tried.error.empty()) {
                // A first estimate against the built-in kernel, for the progress line.
                const std::vector<double> us = interleaved_medians({generic, [&] { run_kept(kept.size() - 1); }}, 3);
                estimate = us[1];
                if (retraining) retraining->add_sample(*kept.back(), static_cast<int>(distinct_done), us[1]);
                if (best_us < 0 || us[1] < best_us) best_us = us[1], best_label = c.label;
                if (c.autoscheduler.name.empty() && (best_ours_us < 0 || us[1] < best_ours_us)) best_ours_us = us[1], best_ours = c;
                std::cout << "    " << c.label << ": " << us[1] << " us (built-in " << us[0] << " us; best " << best_label
                          << " " << best_us << " us; " << std::lround(std::max(0.0, o.budget_s - since(start)))
                          << " s left)" << std::endl;
            } else if (!tried.error.empty()) {
                std::cout << "    " << c.label << ": dropped: " << tried.error << std::endl;
            }
            t.tried.push_back(tried);
            return estimate;
        };
        // Our schedule (several tiles) and the quick autoschedulers; then the best of ours with
        // other task shapes; then the long searches.
        for (const Candidate &c : candidates) try_candidate(c);
        if (target.timed) {
            for (const Candidate &c : task_candidates(generator, best_ours)) try_candidate(c);
            std::vector<Candidate> retrained;
            if (retraining) {
                // Halide's autotuning loop: a few sampled schedules, timed; the cost model
                // retrained on every sample of the run so far; its plans tried.
                for (int k = 0; k < kSamplesPerLayer && layer_budget - since(layer_start) >= kSecondsPerSample; k++) {
                    try_candidate(Retraining::sample_candidate(sample_index++, o.threads));
                }
                if (retraining->samples() > 0 && layer_budget - since(layer_start) > 0) {
                    try {
                        retrained = retraining->retrain(o.threads);
                    } catch (const Error &e) {
                        std::cout << "    retraining: " << e.what() << std::endl;
                    }
                }
            }
            if (!retrained.empty()) try_candidate(retrained[0]);
            // No beam search on 3-D layers: on C7 (1x16x16x56x56 * 32x16x3x3x3, Zen 4, 1 thread)
            // Adams2019's beam 32 was still searching after 5 minutes, at 16.6 GB, where a 2-D
            // 3x3 convolution takes about 45 s; a started search cannot be stopped.
            const bool three_d = layer.input_shape.size() == 5;  // N, C, D, H, W
            if (!three_d) {
                for (const Candidate &c : search_candidates(o.threads)) try_candidate(c);
                for (std::size_t r = 1; r < retrained.size(); r++) try_candidate(retrained[r]);
            } else {
                std::cout << "    beam searches: skipped (3-D layer)" << std::endl;
            }
        }
        if (kept.empty()) throw Error(where + ": no candidate built and ran correctly");

        std::size_t winner = 0;
        if (target.timed) {
            // Every correct candidate and the built-in kernel, interleaved.
            std::vector<std::function<void()>> runs = {generic};
            for (std::size_t k = 0; k < kept.size(); k++) {
                runs.push_back([&, k] { run_kept(k); });
            }
            const std::vector<double> us = interleaved_medians(runs, 7);
            t.generic_us = us[0];
            for (std::size_t k = 0; k < kept.size(); k++) {
                t.tried[kept_index[k]].us = us[k + 1];
                if (us[k + 1] < us[winner + 1]) winner = k;
            }
            t.tuned_us = us[winner + 1];
        }
        t.winner = t.tried[kept_index[winner]].label;
        t.module = kept[winner]->module(t.function);
        std::cout << "    winner: " << t.winner;
        if (target.timed) std::cout << ", " << t.tuned_us << " us against the built-in " << t.generic_us << " us";
        std::cout << std::endl;
        tuned.push_back(std::move(t));
    }
    write_library(o.out, o.name, source, target, o.threads, tuned);
    std::cout << "poolconv-tune: wrote " << o.out << "/lib" << o.name << ".a, " << o.name << ".h and " << o.name
              << "-report.{json,txt} in " << std::lround(since(start)) << " s" << std::endl;
    return 0;
}

}  // namespace
}  // namespace poolconv::tune

int main(int argc, char **argv) {
    try {
        return poolconv::tune::tune(poolconv::tune::parse_options(argc, argv));
    } catch (const poolconv::tune::UsageError &e) {
        std::cerr << "poolconv-tune: " << e.what() << "\n" << poolconv::tune::kUsage;
        return 2;
    } catch (const Halide::CompileError &e) {
        std::cerr << "poolconv-tune: Halide: " << e.what() << "\n";
    } catch (const Halide::Error &e) {
        std::cerr << "poolconv-tune: Halide: " << e.what() << "\n";
    } catch (const std::exception &e) {
        std::cerr << "poolconv-tune: " << e.what() << "\n";
    }
    return 1;
}
