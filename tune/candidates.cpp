#include "tune/candidates.h"

#include <sstream>

#include "schedules/conv_plan.h"
#include "tune/kernel_generators.h"  // generated: POOLCONV_KERNEL_GENERATORS
#include "tune/kernel_trampolines.h"

namespace poolconv::tune {

namespace {

const KernelGenerator kKernelGenerators[] = {POOLCONV_KERNEL_GENERATORS};

// The generator with the kernel's parameters (and `extra`), for `target`.
Halide::Internal::AbstractGeneratorPtr make_generator(const KernelGenerator &kernel,
                                                      const std::map<std::string, std::string> &extra,
                                                      const Halide::Target &target,
                                                      const Halide::AutoschedulerParams &autoscheduler) {
    auto generator = Halide::Internal::GeneratorRegistry::create(kernel.generator,
                                                                 Halide::GeneratorContext(target, autoscheduler));
    if (!generator) throw Error(std::string("poolconv-tune: no generator ") + kernel.generator);
    std::istringstream params(kernel.params);
    std::string item;
    while (params >> item) {
        const std::size_t eq = item.find('=');
        generator->set_generatorparam_value(item.substr(0, eq), item.substr(eq + 1));
    }
    for (const auto &[name, value] : extra) generator->set_generatorparam_value(name, value);
    return generator;
}

// The generator's inputs in signature order, each with its parameters (one per array element).
std::vector<Halide::Argument> input_arguments(Halide::Internal::AbstractGenerator &generator) {
    std::vector<Halide::Argument> arguments;
    for (const auto &info : generator.arginfos()) {
        if (info.dir != Halide::Internal::ArgInfoDirection::Input) continue;
        for (const Halide::Parameter &p : generator.input_parameter(info.name)) {
            arguments.emplace_back(p.name(), p.is_buffer() ? Halide::Argument::InputBuffer : Halide::Argument::InputScalar,
                                   p.type(), p.dimensions(), p.get_argument_estimates());
        }
    }
    return arguments;
}

std::string joined(const std::vector<int> &values) {
    std::string s;
    for (int v : values) s += (s.empty() ? "" : "x") + std::to_string(v);
    return s;
}

// A convolution kernel's plan: its generator parameter plan=<name>, or general without one.
ConvPlan kernel_plan(const KernelGenerator &kernel) {
    std::istringstream params(kernel.params);
    std::string item;
    while (params >> item) {
        for (const ConvPlanName &p : kConvPlanNames) {
            if (item == std::string("plan=") + p.name) return p.plan;
        }
    }
    return ConvPlan::general;
}

template<typename... Args>
void bind_callable(int (*)(Args...), const Halide::Callable &callable) {
    Forward<int (*)(Args...)>::target = callable.make_std_function<Args...>();
}

}  // namespace

const KernelGenerator &kernel_generator(const std::string &kernel) {
    for (const KernelGenerator &k : kKernelGenerators) {
        if (kernel == k.kernel) return k;
    }
    throw Error("poolconv-tune: " + kernel + " is not a built-in kernel");
}

std::vector<Candidate> candidates_for(const KernelGenerator &kernel, const Halide::Target &target, int threads) {
    std::vector<Candidate> out;
    out.push_back({"poolconv", {}, {}});
    const std::string parallelism = std::to_string(std::max(threads, 1));
    // The cache sizes are those of the machines we tune on (per core: 48 KB L1, 1-2 MB L2).
    out.push_back({"Mullapudi2016", {}, {"Mullapudi2016", {{"parallelism", parallelism}, {"last_level_cache_size", "1048576"}}}});
    out.push_back({"Adams2019 greedy", {}, {"Adams2019", {{"parallelism", parallelism}, {"beam_size", "1"}}}});
    const std::string name = kernel.kernel;
    if (name.rfind("conv_", 0) == 0 && !target.has_gpu_feature()) {
        // Accumulator tiles of x vectors x channels x rows that fit the registers with room for
        // the taps' operands (32 zmm on AVX-512, 16 ymm or NEON q registers elsewhere).
        const int registers = target.has_feature(Halide::Target::AVX512) ? 32 : 16;
        const bool depthwise = name.find("depthwise") != std::string::npos;
        const bool channel_vectors = name.find("channel_vectors") != std::string::npos;
        std::vector<std::string> tiles;
        if (channel_vectors) {
            // Columns x channels (whole vectors of 16, AVX-512 only; at most the 32 channels the
            // packed weights are padded to) x rows, one accumulator per column and channel vector,
            // with room for the weight vectors.
            for (int columns : {4, 6, 7, 12, 14}) {
                for (int channels : {16, 32}) {
                    const int accumulators = columns * channels / 16;
                    if (accumulators <= registers - 4 && accumulators >= 8) {
                        tiles.push_back(std::to_string(columns) + "x" + std::to_string(channels) + "x1");
                    }
                }
            }
        } else if (depthwise) {
            for (int x : {1, 2, 4}) {
                for (int rows : {1, 2, 4}) {
                    if (x * rows <= registers / 2) tiles.push_back(std::to_string(x) + "x1x" + std::to_string(rows));
                }
            }
        } else {
            for (int x : {1, 2, 3, 4, 5, 6}) {
                for (int channels : {4, 8, 16}) {
                    for (int rows : {1, 2}) {
                        const int accumulators = x * channels * rows;
                        if (accumulators <= registers - 4 && accumulators >= registers / 4) {
                            tiles.push_back(std::to_string(x) + "x" + std::to_string(channels) + "x" + std::to_string(rows));
                        }
                    }
                }
            }
        }
        for (const std::string &t : tiles) out.push_back({"poolconv tile " + t, {{"tile", t}}, {}});
    }
    return out;
}

std::vector<Candidate> task_candidates(const KernelGenerator &kernel, const Candidate &ours) {
    if (std::string(kernel.kernel).rfind("conv_", 0) != 0) return {};
    const ConvPlan plan = kernel_plan(kernel);
    std::vector<Candidate> out;
    for (int x : {1, 2, 4, 8, 16}) {
        for (int rows : {1, 2, 4}) {
            if (conv_task_shape_refusal(plan, x, rows)) continue;  // a generator error
            const std::string task = std::to_string(x) + "x" + std::to_string(rows);
            Candidate c = ours;
            c.label = (ours.label == "poolconv" ? std::string("poolconv") : ours.label) + " task " + task;
            c.params["task"] = task;
            out.push_back(c);
        }
    }
    return out;
}

std::vector<Candidate> search_candidates(int threads) {
    // Adams2019's beam search: about 45 s for a 3x3 convolution on 2 Zen 5 cores.
    return {{"Adams2019 beam 32", {}, {"Adams2019", {{"parallelism", std::to_string(std::max(threads, 1))}, {"beam_size", "32"}}}, 60}};
}

std::string layer_spec(const KernelGenerator &kernel, const KernelCall &call, const Halide::Target &target) {
    auto generator = make_generator(kernel, {}, target, {});
    generator->build_pipeline();
    std::string spec;
    std::size_t next = 0;  // the next recorded argument
    auto take = [&]() -> const KernelArgument & {
        if (next >= call.arguments.size()) throw Error("poolconv-tune: " + call.kernel + " took fewer arguments than its generator has");
        return call.arguments[next++];
    };
    auto add = [&](const std::string &name, const std::vector<int> &values) {
        spec += (spec.empty() ? "" : "/") + name + ":" + joined(values);
    };
    for (const auto &info : generator->arginfos()) {
        if (info.dir == Halide::Internal::ArgInfoDirection::Input) {
            std::vector<int> ints;
            bool integer_scalars = false;
            for (const Halide::Parameter &p : generator->input_parameter(info.name)) {
                const KernelArgument &a = take();
                if (p.is_buffer()) {
                    add(info.name, a.extents);
                } else if (p.type() == Halide::Int(32)) {
                    integer_scalars = true;
                    ints.push_back(static_cast<int>(a.value));
                }
            }
            if (integer_scalars) add(info.name, ints);
        } else {
            for (std::size_t i = 0; i < generator->output_func(info.name).size(); i++) add(info.name, take().extents);
        }
    }
    return spec;
}

BuiltKernel::BuiltKernel(const KernelGenerator &kernel, const std::string &spec, const Candidate &candidate,
                         const Halide::Target &target)
    : target_(target) {
    std::map<std::string, std::string> params = candidate.params;
    params["layer"] = spec;
    auto generator = make_generator(kernel, params, target, candidate.autoscheduler);
    pipeline_ = generator->build_pipeline();
    arguments_ = input_arguments(*generator);
    if (!candidate.autoscheduler.name.empty()) autoscheduled_ = pipeline_.apply_autoscheduler(target, candidate.autoscheduler);
}

void BuiltKernel::install_jit(KernelKind kind) {
    if (!callable_.defined()) callable_ = pipeline_.compile_to_callable(arguments_, target_);
    visit_kind(kind, [&](auto k) { bind_callable(KernelSignatureOf<decltype(k)::value>{}, callable_); });
}

Halide::Module BuiltKernel::module(const std::string &function_name) {
    return pipeline_.compile_to_module(arguments_, function_name, target_);
}

void load_autoschedulers() {
    static const bool loaded = [] {
        for (const char *plugin : {POOLCONV_TUNE_ADAMS2019_PLUGIN, POOLCONV_TUNE_MULLAPUDI2016_PLUGIN}) Halide::load_plugin(plugin);
        return true;
    }();
    (void)loaded;
}

}  // namespace poolconv::tune
