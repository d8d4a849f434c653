// poolconv_bench: poolconv's pooling kernels beside oneDNN's on the shapes in cases.h.
//
// Benchmarks are named <ID>/<implementation>/<threads>t, e.g. P1/poolconv/2t:
//   poolconv        poolconv::max_pool / avg_pool on dense NC[D]HW tensors
//   onednn_nchw     oneDNN pooling with plain NC[D]HW src and dst (forward_inference)
//   onednn_blocked  oneDNN pooling in its preferred blocked layout (nChw16c with AVX-512); the
//                   input is reordered into it once, outside the timed loop, which times only the
//                   pooling primitive
// Times are wall-clock (UseRealTime); exact_names_reporter.h keeps Google Benchmark from adding
// "/real_time" to the names. Threads: poolconv::set_num_threads(n) and, for oneDNN's OpenMP
// runtime, omp_set_num_threads(n). Default --benchmark_min_time: 0.2 s.
//
// Before any timing, each benchmark (once per process) runs its implementation once on a fixed random input and
// compares the output with oneDNN NCHW's (exact for max pooling, 1e-5 relative for average
// pooling; poolconv's P7 indices must point at the maximum); a mismatch skips the benchmark with
// an error instead of timing it.
//
// Counter "GB/s": (input + output [+ i64 indices for P7]) bytes per iteration over real time. The
// byte count is the problem's, the same for all three implementations (oneDNN's P7 workspace is
// smaller than poolconv's i64 indices), so GB/s ratios equal time ratios.
//
//   poolconv_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                  --benchmark_format=json > bench.json      (one command line)
//   /usr/bin/python3 bench/ratios.py bench.json
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/cases.h"
#include "bench/exact_names_reporter.h"
#include "bench/onednn_pool.h"
#include "poolconv/poolconv.h"

namespace poolconv_bench {
namespace {

constexpr double kDefaultMinTime = 0.2;  // seconds per repetition, unless --benchmark_min_time is given
constexpr double kAvgRelativeTolerance = 1e-5;

enum class Impl { poolconv, onednn_nchw, onednn_blocked };
constexpr Impl kImpls[] = {Impl::poolconv, Impl::onednn_nchw, Impl::onednn_blocked};
constexpr int kThreadCounts[] = {1, 2};

const char *impl_name(Impl impl) {
    switch (impl) {
    case Impl::poolconv: return "poolconv";
    case Impl::onednn_nchw: return "onednn_nchw";
    case Impl::onednn_blocked: return "onednn_blocked";
    }
    return "?";
}

int64_t element_count(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

// 64-byte aligned, uninitialised storage.
template <typename T>
class AlignedBuffer {
public:
    AlignedBuffer() = default;
    explicit AlignedBuffer(int64_t count) : count_(count) {
        const std::size_t bytes = (static_cast<std::size_t>(count) * sizeof(T) + 63) / 64 * 64;
        data_.reset(static_cast<T *>(std::aligned_alloc(64, bytes == 0 ? 64 : bytes)));
        if (!data_) throw std::bad_alloc();
    }
    T *data() const { return data_.get(); }
    int64_t size() const { return count_; }
    T &operator[](int64_t i) const { return data_.get()[i]; }

private:
    struct Free {
        void operator()(T *p) const { std::free(p); }
    };
    std::unique_ptr<T, Free> data_;
    int64_t count_ = 0;
};

// One shape's input, geometry and oneDNN NCHW reference output.
struct CaseData {
    const PoolCase *c = nullptr;
    poolconv::PoolGeometry geometry;
    AlignedBuffer<float> input;
    AlignedBuffer<float> reference;
    double bytes = 0;  // moved per iteration
};

// Whether `got` matches the oneDNN reference; the first mismatch otherwise.
std::string compare_outputs(const CaseData &d, const float *got) {
    const int64_t n = d.reference.size();
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++) {
        const float r = d.reference[i], g = got[i];
        bool ok;
        if (d.c->op == PoolOp::max) {
            ok = std::memcmp(&r, &g, sizeof(float)) == 0 || r == g;  // exact (+0 == -0 accepted)
        } else {
            ok = std::fabs(double(g) - double(r)) <= kAvgRelativeTolerance * std::fabs(double(r));
        }
        if (!ok) {
            if (first < 0) first = i;
            bad++;
        }
    }
    if (bad == 0) return "";
    char msg[256];
    std::snprintf(msg, sizeof msg, "%lld of %lld outputs differ from oneDNN NCHW; first at %lld: got %.9g, expected %.9g",
                  static_cast<long long>(bad), static_cast<long long>(n), static_cast<long long>(first),
                  double(got[first]), double(d.reference[first]));
    return msg;
}

// One implementation, ready to run on a CaseData's input.
class Runner {
public:
    virtual ~Runner() = default;
    virtual void run() = 0;
    // The last output as dense NC[D]HW f32.
    virtual const float *plain_output() = 0;
    // Checks beyond the output values (poolconv's indices); "" when fine.
    virtual std::string extra_check() { return ""; }
    virtual std::string label() const = 0;
};

class PoolconvRunner final : public Runner {
public:
    explicit PoolconvRunner(const CaseData &d)
        : d_(d), output_(element_count(d.geometry.output_shape)),
          indices_(d.c->indices ? element_count(d.geometry.output_shape) : 0) {
        using poolconv::DType;
        using poolconv::TensorView;
        in_ = TensorView::dense(DType::f32, d.c->input_shape, static_cast<const void *>(d.input.data()));
        out_ = TensorView::dense(DType::f32, d.geometry.output_shape, static_cast<void *>(output_.data()));
        idx_ = TensorView::dense(DType::i64, d.geometry.output_shape, static_cast<void *>(indices_.data()));
        if (d.c->op == PoolOp::max) {
            max_attributes_ = d.c->max_attributes();
        } else {
            avg_attributes_ = d.c->avg_attributes();
        }
    }
    void run() override {
        if (d_.c->op == PoolOp::max) {
            poolconv::max_pool(in_, out_, max_attributes_, d_.c->indices ? &idx_ : nullptr);
        } else {
            poolconv::avg_pool(in_, out_, avg_attributes_);
        }
    }
    const float *plain_output() override { return output_.data(); }
    // Default MaxPool attributes: axis 0, row-major, so an index addresses the whole input tensor.
    // Each must be in the output's own (n, c) plane and point at a value equal to the output.
    std::string extra_check() override {
        if (!d_.c->indices) return "";
        const int64_t n = indices_.size(), in_count = d_.input.size();
        const int64_t out_plane = n / (d_.geometry.output_shape[0] * d_.geometry.output_shape[1]);
        const int64_t in_plane = in_count / (d_.c->input_shape[0] * d_.c->input_shape[1]);
        for (int64_t i = 0; i < n; i++) {
            const int64_t idx = indices_[i];
            if (idx < 0 || idx >= in_count || idx / in_plane != i / out_plane || d_.input[idx] != output_[i]) {
                return "poolconv index " + std::to_string(idx) + " at output " + std::to_string(i) +
                       " does not point at the window's maximum";
            }
        }
        return "";
    }
    std::string label() const override { return std::string("isa=") + poolconv::isa_name(poolconv::active_isa()); }

private:
    const CaseData &d_;
    AlignedBuffer<float> output_;
    AlignedBuffer<int64_t> indices_;
    poolconv::TensorView in_, out_, idx_;
    poolconv::MaxPoolAttributes max_attributes_;
    poolconv::AvgPoolAttributes avg_attributes_;
};

class OnednnRunner final : public Runner {
public:
    OnednnRunner(const CaseData &d, OnednnLayout layout)
        : pool_(*d.c, d.geometry.output_shape, d.geometry.pads_begin, layout, d.input.data()),
          output_(element_count(d.geometry.output_shape)) {}
    void run() override { pool_.execute(); }
    const float *plain_output() override {
        pool_.output_to_plain(output_.data());
        return output_.data();
    }
    std::string label() const override { return pool_.description(); }

private:
    OnednnPool pool_;
    AlignedBuffer<float> output_;
};

std::unique_ptr<Runner> make_runner(const CaseData &d, Impl impl) {
    switch (impl) {
    case Impl::poolconv: return std::make_unique<PoolconvRunner>(d);
    case Impl::onednn_nchw: return std::make_unique<OnednnRunner>(d, OnednnLayout::plain);
    case Impl::onednn_blocked: return std::make_unique<OnednnRunner>(d, OnednnLayout::blocked);
    }
    return nullptr;
}

std::unique_ptr<CaseData> make_case_data(const PoolCase &c) {
    auto d = std::make_unique<CaseData>();
    d->c = &c;
    d->geometry = c.geometry();
    d->input = AlignedBuffer<float>(element_count(c.input_shape));
    // Max: values in [-1, 1). Avg: positive values, so that a relative tolerance is meaningful.
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> dist(c.op == PoolOp::max ? -1.0f : 0.5f, c.op == PoolOp::max ? 1.0f : 1.5f);
    for (int64_t i = 0; i < d->input.size(); i++) d->input[i] = dist(rng);

    const int64_t out_count = element_count(d->geometry.output_shape);
    d->bytes = double(d->input.size() * 4 + out_count * 4 + (c.indices ? out_count * 8 : 0));
    d->reference = AlignedBuffer<float>(out_count);
    OnednnRunner reference(*d, OnednnLayout::plain);
    reference.run();
    std::memcpy(d->reference.data(), reference.plain_output(), static_cast<std::size_t>(out_count) * sizeof(float));
    return d;
}

// A checked runner, or why there is none.
struct Prepared {
    std::unique_ptr<Runner> runner;
    std::string error;
    std::string label;
};

// Setup is cached across the calls Google Benchmark makes for one benchmark (iteration-count
// probing, repetitions). Only the current shape's data is kept, to bound memory.
class SetupCache {
public:
    const CaseData &case_data(const PoolCase &c) {
        if (!current_ || current_->c != &c) {
            prepared_.clear();
            current_.reset();
            current_ = make_case_data(c);
        }
        return *current_;
    }
    Prepared &prepared(const PoolCase &c, Impl impl, int threads) {
        const CaseData &d = case_data(c);
        const std::string key = std::string(impl_name(impl)) + "/" + std::to_string(threads);
        auto it = prepared_.find(key);
        if (it != prepared_.end()) return it->second;
        Prepared &p = prepared_[key];
        try {
            p.runner = make_runner(d, impl);
            p.runner->run();
            p.error = compare_outputs(d, p.runner->plain_output());
            if (p.error.empty()) p.error = p.runner->extra_check();
            p.label = p.runner->label();
        } catch (const std::exception &e) {
            p.error = e.what();
        }
        if (!p.error.empty()) {
            p.error = c.id + "/" + impl_name(impl) + ": " + p.error;
            p.runner.reset();
        }
        return p;
    }

private:
    std::unique_ptr<CaseData> current_;
    std::map<std::string, Prepared> prepared_;
};

SetupCache &setup_cache() {
    static SetupCache cache;
    return cache;
}

void run_benchmark(benchmark::State &state, const PoolCase &c, Impl impl, int threads) {
    poolconv::set_num_threads(threads);
    onednn_set_num_threads(threads);
    // Error strings must outlive the report; they are few, so keep them all.
    static std::map<std::string, std::string> errors;
    Prepared *p = nullptr;
    const CaseData *d = nullptr;
    try {
        d = &setup_cache().case_data(c);
        p = &setup_cache().prepared(c, impl, threads);
    } catch (const std::exception &e) {
        std::string &msg = errors[c.id + impl_name(impl) + std::to_string(threads)];
        msg = c.id + ": setup failed: " + e.what();
        state.SkipWithError(msg.c_str());
        return;
    }
    if (!p->runner) {
        std::string &msg = errors[c.id + impl_name(impl) + std::to_string(threads)];
        msg = p->error;
        state.SkipWithError(msg.c_str());
        return;
    }
    Runner &runner = *p->runner;
    runner.run();  // warm-up: caches, thread pools
    for (auto _ : state) {
        runner.run();
    }
    state.counters["GB/s"] = benchmark::Counter(d->bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    char bytes[64];
    std::snprintf(bytes, sizeof bytes, "%.2f MB/iter; ", d->bytes * 1e-6);
    state.SetLabel(bytes + p->label);
}

}  // namespace
}  // namespace poolconv_bench

int main(int argc, char **argv) {
    using namespace poolconv_bench;
    // Our default --benchmark_min_time, unless the command line sets one. (As a flag rather than a
    // per-benchmark MinTime, which would override the command line and add "/min_time:..." to names.)
    std::vector<char *> args(argv, argv + argc);
    std::string default_min_time = "--benchmark_min_time=" + std::to_string(kDefaultMinTime);
    if (flag_value(argc, argv, "benchmark_min_time", "").empty()) args.insert(args.begin() + 1, default_min_time.data());
    args.push_back(nullptr);
    argc = static_cast<int>(args.size()) - 1;
    argv = args.data();

    static const std::vector<PoolCase> cases = pool_cases();
    for (const PoolCase &c : cases) {
        for (int threads : kThreadCounts) {
            for (Impl impl : kImpls) {
                const std::string name = c.id + "/" + impl_name(impl) + "/" + std::to_string(threads) + "t";
                benchmark::RegisterBenchmark(name.c_str(), [&c, impl, threads](benchmark::State &state) {
                    run_benchmark(state, c, impl, threads);
                })->UseRealTime()->Unit(benchmark::kMicrosecond);
            }
        }
    }

    ExactNamesReporters reporters(argc, argv);  // before Initialize removes the flags
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("poolconv_isa", poolconv::isa_name(poolconv::active_isa()));
    benchmark::AddCustomContext("onednn", onednn_version());
    for (const PoolCase &c : cases) benchmark::AddCustomContext(c.id, c.description);
    benchmark::RunSpecifiedBenchmarks(reporters.display.get(), reporters.file.get());
    benchmark::Shutdown();
    return 0;
}
