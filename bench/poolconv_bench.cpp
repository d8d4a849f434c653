// poolconv_bench: poolconv's pooling and convolution kernels beside oneDNN's on the shapes in cases.h.
//
// Benchmarks are named <ID>/<implementation>/<threads>t, e.g. P1/poolconv/2t, C4/onednn_nchw/1t:
//   poolconv        poolconv::max_pool / avg_pool, or a poolconv::PreparedConvolution (weights
//                   packed once, outside the timed loop), on dense NC[D]HW tensors
//   onednn_nchw     oneDNN with plain NC[D]HW src and dst (forward_inference); convolution weights
//                   are reordered into oneDNN's preferred layout once, outside the timed loop
//   onednn_blocked  oneDNN in its preferred layouts (nChw16c with AVX-512); the input (and the
//                   weights) are reordered once, outside the timed loop, which times only the
//                   primitive
//   poolconv_f16, poolconv_bf16
//                   poolconv as above on the same data rounded to f16 or bf16 (input, weights and
//                   bias; outputs in that type; the kernels compute in f32)
//   poolconv_adams2019, poolconv_mullapudi2016
//                   poolconv's kernels with that autoscheduler's checked-in schedules instead of
//                   ours (poolconv::set_schedule_author; on the avx2 path, which they were planned
//                   for), in builds that have them (POOLCONV_AUTOSCHEDULED_KERNELS)
//   PEAK/fma/<n>t   no operator: n threads each running independent FMAs from registers, AVX-512
//                   ones when poolconv runs its AVX-512 kernels, else AVX2 ones: the FLOP/s
//                   ceiling the convolutions are compared with
//   <P ID>/copy/<n>t
//                   no operator: memcpy of half the pooling shape's bytes (input + output [+
//                   indices]) into the other half, split among n threads: the same footprint
//                   read and written once, the bandwidth ceiling its pooling rows are compared
//                   with (the caches or memory that footprint lives in, at that thread count)
// Times are wall-clock (UseRealTime); exact_names_reporter.h keeps Google Benchmark from adding
// "/real_time" to the names. Threads: poolconv::set_num_threads(n) and, for oneDNN, a TBB task
// arena of n threads (or omp_set_num_threads(n) for an OpenMP build). Default
// --benchmark_min_time: 0.2 s.
//
// Before any timing, each benchmark (once per process) runs its implementation once on a fixed
// random input and compares the output with oneDNN NCHW's (max pooling exact, average pooling 1e-5
// relative, convolution 1e-4 absolute + relative: the sums are of O(1) terms in different orders;
// poolconv's P7 indices must point at the maximum; f16 and bf16 outputs: max pooling equal to the
// reference rounded to the type, the others within a few units of the type's precision, the error
// of rounding inputs and weights included); a mismatch skips the benchmark with an error instead
// of timing it.
//
// Counters: "GB/s", (input + output [+ i64 indices for P7] [+ weights and bias]) bytes per
// iteration over real time: the problem's bytes, the same for all implementations, so ratios of
// GB/s equal ratios of time. Convolutions also report "GFLOP/s" (2 FLOPs per multiply-add).
//
//   poolconv_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                  --benchmark_format=json > bench.json      (one command line)
//   /usr/bin/python3 bench/ratios.py bench.json
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <immintrin.h>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/cases.h"
#include "bench/exact_names_reporter.h"
#include "bench/onednn.h"
#include "poolconv/poolconv.h"
#include "reference/reference_pooling.h"

namespace poolconv_bench {
namespace {

constexpr double kDefaultMinTime = 0.2;  // seconds per repetition, unless --benchmark_min_time is given
constexpr double kAvgRelativeTolerance = 1e-5;
constexpr double kConvTolerance = 1e-4;

enum class Impl { poolconv, poolconv_f16, poolconv_bf16, onednn_nchw, onednn_blocked, adams2019, mullapudi2016 };
constexpr Impl kImpls[] = {Impl::poolconv, Impl::poolconv_f16, Impl::poolconv_bf16, Impl::onednn_nchw,
                           Impl::onednn_blocked};
// poolconv's kernels with an autoscheduler's checked-in schedules (poolconv::set_schedule_author):
// registered where poolconv::schedule_author_available says they run (builds with
// POOLCONV_AUTOSCHEDULED_KERNELS and the avx2 path, CPUs with AVX2).
constexpr Impl kAutoscheduledImpls[] = {Impl::adams2019, Impl::mullapudi2016};
constexpr int kThreadCounts[] = {1, 2};

const char *impl_name(Impl impl) {
    switch (impl) {
    case Impl::poolconv: return "poolconv";
    case Impl::poolconv_f16: return "poolconv_f16";
    case Impl::poolconv_bf16: return "poolconv_bf16";
    case Impl::onednn_nchw: return "onednn_nchw";
    case Impl::onednn_blocked: return "onednn_blocked";
    case Impl::adams2019: return "poolconv_adams2019";
    case Impl::mullapudi2016: return "poolconv_mullapudi2016";
    }
    return "?";
}

// Whose schedules a poolconv implementation runs.
poolconv::ScheduleAuthor schedule_author(Impl impl) {
    switch (impl) {
    case Impl::adams2019: return poolconv::ScheduleAuthor::adams2019;
    case Impl::mullapudi2016: return poolconv::ScheduleAuthor::mullapudi2016;
    case Impl::poolconv:
    case Impl::poolconv_f16:
    case Impl::poolconv_bf16:
    case Impl::onednn_nchw:
    case Impl::onednn_blocked: break;
    }
    return poolconv::ScheduleAuthor::poolconv;
}

// The element type a poolconv implementation runs in (oneDNN's always run in f32).
poolconv::DType data_type(Impl impl) {
    if (impl == Impl::poolconv_f16) return poolconv::DType::f16;
    if (impl == Impl::poolconv_bf16) return poolconv::DType::bf16;
    return poolconv::DType::f32;
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

// Elements of a poolconv type, converted from and to f32 (f16 and bf16 round to nearest even).
class TypedBuffer {
public:
    TypedBuffer(poolconv::DType type, int64_t count)
        : type_(type), count_(count), bytes_(count * static_cast<int64_t>(poolconv::dtype_size(type))) {}
    TypedBuffer(poolconv::DType type, const AlignedBuffer<float> &values) : TypedBuffer(type, values.size()) {
        const std::size_t size = poolconv::dtype_size(type_);
        for (int64_t i = 0; i < count_; i++) {
            poolconv::reference::store_from_double(type_, bytes_.data() + i * size, values[i]);
        }
    }
    void *data() const { return bytes_.data(); }
    void to_f32(float *out) const {
        const std::size_t size = poolconv::dtype_size(type_);
        for (int64_t i = 0; i < count_; i++) {
            out[i] = float(poolconv::reference::load_as_double(type_, bytes_.data() + i * size));
        }
    }

private:
    poolconv::DType type_;
    int64_t count_;
    AlignedBuffer<unsigned char> bytes_;
};

// One shape's data and oneDNN NCHW reference output. Exactly one of `pool` / `conv` is set.
struct CaseData {
    std::string id;
    const PoolCase *pool = nullptr;
    const ConvCase *conv = nullptr;
    std::vector<int64_t> output_shape, pads_begin, pads_end;
    AlignedBuffer<float> input, weights, bias;  // weights and bias: convolution only
    AlignedBuffer<float> reference;
    double bytes = 0;  // moved per iteration
    double flops = 0;  // convolution only
};

// `value` rounded to `type` (f32, f16 or bf16) and back.
float round_to(poolconv::DType type, float value) {
    if (type == poolconv::DType::f32) return value;
    uint16_t bits = 0;
    poolconv::reference::store_from_double(type, &bits, double(value));
    return float(poolconv::reference::load_as_double(type, &bits));
}

// Whether `got`, an output computed in `type`, matches the oneDNN reference; the first mismatch
// otherwise. In f16 and bf16 the inputs were rounded too: each of a convolution's O(1) terms
// carries up to two roundings of the type's precision.
std::string compare_outputs(const CaseData &d, const float *got, poolconv::DType type) {
    const double epsilon = type == poolconv::DType::f16 ? 0x1p-10 : type == poolconv::DType::bf16 ? 0x1p-7 : 0.0;
    const int64_t n = d.reference.size();
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++) {
        const float r = round_to(type, d.reference[i]), g = got[i];
        const double diff = std::fabs(double(g) - double(r));
        bool ok;
        if (d.conv) {
            ok = diff <= std::max(kConvTolerance, 4 * epsilon) * (1.0 + std::fabs(double(r)));
        } else if (d.pool->op == PoolOp::max) {
            ok = std::memcmp(&r, &g, sizeof(float)) == 0 || r == g;  // exact (+0 == -0 accepted)
        } else {
            ok = diff <= std::max(kAvgRelativeTolerance, 2 * epsilon) * std::fabs(double(r));
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

// Autoscheduled kernels run on the avx2 path whatever the isa setting says.
std::string poolconv_label(poolconv::ScheduleAuthor author) {
    if (author != poolconv::ScheduleAuthor::poolconv) return std::string("isa=avx2, ") + schedule_author_name(author);
    return std::string("isa=") + poolconv::isa_name(poolconv::active_isa());
}

class PoolconvPoolRunner final : public Runner {
public:
    PoolconvPoolRunner(const CaseData &d, poolconv::ScheduleAuthor author, poolconv::DType type)
        : d_(d),
          author_(author),
          type_(type),
          input_(type, d.input),
          output_(type, element_count(d.output_shape)),
          output_f32_(element_count(d.output_shape)),
          indices_(d.pool->indices ? element_count(d.output_shape) : 0) {
        using poolconv::DType;
        using poolconv::TensorView;
        in_ = TensorView::dense(type, d.pool->input_shape, static_cast<const void *>(input_.data()));
        out_ = TensorView::dense(type, d.output_shape, output_.data());
        idx_ = TensorView::dense(DType::i64, d.output_shape, static_cast<void *>(indices_.data()));
        if (d.pool->op == PoolOp::max) {
            max_attributes_ = d.pool->max_attributes();
        } else {
            avg_attributes_ = d.pool->avg_attributes();
        }
    }
    void run() override {
        poolconv::set_schedule_author(author_);
        if (d_.pool->op == PoolOp::max) {
            poolconv::max_pool(in_, out_, max_attributes_, d_.pool->indices ? &idx_ : nullptr);
        } else {
            poolconv::avg_pool(in_, out_, avg_attributes_);
        }
    }
    const float *plain_output() override {
        output_.to_f32(output_f32_.data());
        return output_f32_.data();
    }
    // Default MaxPool attributes: axis 0, row-major, so an index addresses the whole input tensor.
    // Each must be in the output's own (n, c) plane and point at a value equal to the output.
    std::string extra_check() override {
        if (!d_.pool->indices) return "";
        const int64_t n = indices_.size(), in_count = d_.input.size();
        const int64_t out_plane = n / (d_.output_shape[0] * d_.output_shape[1]);
        const int64_t in_plane = in_count / (d_.pool->input_shape[0] * d_.pool->input_shape[1]);
        for (int64_t i = 0; i < n; i++) {
            const int64_t idx = indices_[i];
            if (idx < 0 || idx >= in_count || idx / in_plane != i / out_plane ||
                round_to(type_, d_.input[idx]) != output_f32_[i]) {
                return "poolconv index " + std::to_string(idx) + " at output " + std::to_string(i) +
                       " does not point at the window's maximum";
            }
        }
        return "";
    }
    std::string label() const override { return poolconv_label(author_); }

private:
    const CaseData &d_;
    poolconv::ScheduleAuthor author_;
    poolconv::DType type_;
    TypedBuffer input_, output_;
    AlignedBuffer<float> output_f32_;
    AlignedBuffer<int64_t> indices_;
    poolconv::TensorView in_, out_, idx_;
    poolconv::MaxPoolAttributes max_attributes_;
    poolconv::AvgPoolAttributes avg_attributes_;
};

class PoolconvConvRunner final : public Runner {
public:
    PoolconvConvRunner(const CaseData &d, poolconv::ScheduleAuthor author, poolconv::DType type)
        : author_(author),
          input_(type, d.input),
          weights_(type, d.weights),
          bias_values_(type, d.bias),
          output_(type, element_count(d.output_shape)),
          output_f32_(element_count(d.output_shape)),
          in_(view(type, d.conv->input_shape, input_.data())),
          out_(view(type, d.output_shape, output_.data())),
          bias_(view(type, {d.conv->weights_shape[0]}, bias_values_.data())),
          conv_(view(type, d.conv->weights_shape, weights_.data()), &bias_, d.conv->attributes()) {}
    void run() override {
        poolconv::set_schedule_author(author_);
        conv_.run(in_, out_);
    }
    const float *plain_output() override {
        output_.to_f32(output_f32_.data());
        return output_f32_.data();
    }
    std::string label() const override { return poolconv_label(author_); }

private:
    static poolconv::TensorView view(poolconv::DType type, std::vector<int64_t> shape, void *data) {
        return poolconv::TensorView::dense(type, std::move(shape), data);
    }
    poolconv::ScheduleAuthor author_;
    TypedBuffer input_, weights_, bias_values_, output_;
    AlignedBuffer<float> output_f32_;
    poolconv::TensorView in_, out_, bias_;
    poolconv::PreparedConvolution conv_;  // packs the weights once
};

// OnednnPool or OnednnConv.
template <typename Primitive>
class OnednnRunner final : public Runner {
public:
    template <typename... Args>
    OnednnRunner(int64_t output_count, Args &&...args) : primitive_(std::forward<Args>(args)...), output_(output_count) {}
    void run() override { primitive_.execute(); }
    const float *plain_output() override {
        primitive_.output_to_plain(output_.data());
        return output_.data();
    }
    std::string label() const override { return primitive_.description(); }

private:
    Primitive primitive_;
    AlignedBuffer<float> output_;
};

std::unique_ptr<Runner> make_onednn_runner(const CaseData &d, OnednnLayout layout) {
    const int64_t count = element_count(d.output_shape);
    if (d.pool) {
        return std::make_unique<OnednnRunner<OnednnPool>>(count, *d.pool, d.output_shape, d.pads_begin, layout,
                                                          d.input.data());
    }
    return std::make_unique<OnednnRunner<OnednnConv>>(count, *d.conv, d.output_shape, d.pads_begin, d.pads_end, layout,
                                                      d.input.data(), d.weights.data(), d.bias.data());
}

std::unique_ptr<Runner> make_runner(const CaseData &d, Impl impl) {
    switch (impl) {
    case Impl::onednn_nchw: return make_onednn_runner(d, OnednnLayout::plain);
    case Impl::onednn_blocked: return make_onednn_runner(d, OnednnLayout::blocked);
    case Impl::poolconv:
    case Impl::poolconv_f16:
    case Impl::poolconv_bf16:
    case Impl::adams2019:
    case Impl::mullapudi2016: break;
    }
    if (d.pool) return std::make_unique<PoolconvPoolRunner>(d, schedule_author(impl), data_type(impl));
    return std::make_unique<PoolconvConvRunner>(d, schedule_author(impl), data_type(impl));
}

void fill_uniform(AlignedBuffer<float> &b, std::mt19937 &rng, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    for (int64_t i = 0; i < b.size(); i++) b[i] = dist(rng);
}

// The reference output: oneDNN NCHW on the case's data.
void compute_reference(CaseData &d) {
    const int64_t out_count = element_count(d.output_shape);
    d.reference = AlignedBuffer<float>(out_count);
    std::unique_ptr<Runner> reference = make_onednn_runner(d, OnednnLayout::plain);
    reference->run();
    std::memcpy(d.reference.data(), reference->plain_output(), static_cast<std::size_t>(out_count) * sizeof(float));
}

std::unique_ptr<CaseData> make_case_data(const PoolCase &c) {
    auto d = std::make_unique<CaseData>();
    d->id = c.id;
    d->pool = &c;
    const poolconv::PoolGeometry g = c.geometry();
    d->output_shape = g.output_shape;
    d->pads_begin = g.pads_begin;
    d->pads_end = g.pads_end;
    d->input = AlignedBuffer<float>(element_count(c.input_shape));
    // Max: values in [-1, 1). Avg: positive values, so that a relative tolerance is meaningful.
    std::mt19937 rng(12345);
    fill_uniform(d->input, rng, c.op == PoolOp::max ? -1.0f : 0.5f, c.op == PoolOp::max ? 1.0f : 1.5f);
    const int64_t out_count = element_count(d->output_shape);
    d->bytes = double(d->input.size() * 4 + out_count * 4 + (c.indices ? out_count * 8 : 0));
    compute_reference(*d);
    return d;
}

std::unique_ptr<CaseData> make_case_data(const ConvCase &c) {
    auto d = std::make_unique<CaseData>();
    d->id = c.id;
    d->conv = &c;
    const poolconv::ConvGeometry g = c.geometry();
    d->output_shape = g.output_shape;
    d->pads_begin = g.pads_begin;
    d->pads_end = g.pads_end;
    d->input = AlignedBuffer<float>(element_count(c.input_shape));
    d->weights = AlignedBuffer<float>(element_count(c.weights_shape));
    d->bias = AlignedBuffer<float>(c.weights_shape[0]);
    // Inputs in [-1, 1), weights scaled by 1/sqrt(fan-in): outputs of order 1.
    std::mt19937 rng(12345);
    fill_uniform(d->input, rng, -1.0f, 1.0f);
    const float scale = 1.0f / std::sqrt(float(d->weights.size() / c.weights_shape[0]));
    fill_uniform(d->weights, rng, -scale, scale);
    fill_uniform(d->bias, rng, -0.5f, 0.5f);
    d->bytes = double((d->input.size() + d->weights.size() + d->bias.size() + element_count(d->output_shape)) * 4);
    d->flops = c.flops();
    compute_reference(*d);
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
    using MakeData = std::function<std::unique_ptr<CaseData>()>;
    const CaseData &case_data(const std::string &id, const MakeData &make) {
        if (!current_ || current_->id != id) {
            prepared_.clear();
            current_.reset();
            current_ = make();
        }
        return *current_;
    }
    Prepared &prepared(const std::string &id, const MakeData &make, Impl impl, int threads) {
        const CaseData &d = case_data(id, make);
        const std::string key = std::string(impl_name(impl)) + "/" + std::to_string(threads);
        auto it = prepared_.find(key);
        if (it != prepared_.end()) return it->second;
        Prepared &p = prepared_[key];
        bool refused = false;
        try {
            p.runner = make_runner(d, impl);
            p.runner->run();
            p.error = compare_outputs(d, p.runner->plain_output(), data_type(impl));
            if (p.error.empty()) p.error = p.runner->extra_check();
            p.label = p.runner->label();
        } catch (const std::exception &e) {
            p.error = e.what();
            // An autoscheduler's kernel refuses shapes smaller than its schedule's tiles (Halide's
            // bounds check, before any work): expected, and reported apart from failures.
            refused = schedule_author(impl) != poolconv::ScheduleAuthor::poolconv &&
                      p.error.find(" is accessed at ") != std::string::npos;
        }
        if (!p.error.empty()) {
            p.error = std::string(refused ? "refused, " : "") + id + "/" + impl_name(impl) + ": " + p.error;
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

void run_benchmark(benchmark::State &state, const std::string &id, const SetupCache::MakeData &make, Impl impl,
                   int threads) {
    poolconv::set_num_threads(threads);
    // Setup and the timed loop inside: oneDNN's primitives (the reference and the peer's) are
    // created and run with this row's thread count.
    onednn_with_threads(threads, [&] {
        // Error strings must outlive the report; they are few, so keep them all.
        static std::map<std::string, std::string> errors;
        std::string &error = errors[id + impl_name(impl) + std::to_string(threads)];
        Prepared *p = nullptr;
        const CaseData *d = nullptr;
        try {
            d = &setup_cache().case_data(id, make);
            p = &setup_cache().prepared(id, make, impl, threads);
        } catch (const std::exception &e) {
            error = id + ": setup failed: " + e.what();
            state.SkipWithError(error.c_str());
            return;
        }
        if (!p->runner) {
            error = p->error;
            state.SkipWithError(error.c_str());
            return;
        }
        Runner &runner = *p->runner;
        runner.run();  // warm-up: caches, thread pools
        for (auto _ : state) {
            runner.run();
        }
        state.counters["GB/s"] = benchmark::Counter(d->bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
        if (d->flops > 0) {
            state.counters["GFLOP/s"] =
                benchmark::Counter(d->flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
        }
        char bytes[64];
        std::snprintf(bytes, sizeof bytes, "%.2f MB/iter; ", d->bytes * 1e-6);
        state.SetLabel(bytes + p->label);
    });
}

// ---- Copy bandwidth at a pooling shape's footprint ----

// n threads copying their slices of one buffer into another, started together on every run().
// The helpers spin between runs (waking a sleeping thread costs microseconds, as much as the
// copy of a small footprint) and stop with the object, so they only take a core while it lives.
// Each wait yields its core after a few thousand spins, so that a thread of another runtime still
// runnable on the same cores (oneDNN's TBB workers after a oneDNN benchmark, most likely) cannot
// keep a spinning helper off its core until the scheduler's next tick: on a 2-core slice of a
// 16-vCPU Xeon, pure spinning let every 2-thread copy take 8 ms (P8's 0.4 MB, 2 µs elsewhere).
// Same figures as pure spinning on the 2-core Zen 4 host.
inline void spin_then_yield(unsigned &spins) {
    if (++spins > 4096) std::this_thread::yield();
}

class ParallelCopy {
public:
    ParallelCopy(int threads, std::size_t bytes)
        : threads_(threads), bytes_(bytes), src_(static_cast<int64_t>(bytes)), dst_(static_cast<int64_t>(bytes)) {
        std::memset(src_.data(), 1, bytes);
        std::memset(dst_.data(), 2, bytes);  // both buffers touched: no page faults timed
        for (int t = 1; t < threads; t++) helpers_.emplace_back([this, t] { helper(t); });
    }
    ~ParallelCopy() {
        stop_ = true;
        generation_++;
        for (std::thread &t : helpers_) t.join();
    }
    void run() {
        done_ = 0;
        generation_++;
        copy_slice(0);
        unsigned spins = 0;
        while (done_.load(std::memory_order_acquire) != threads_ - 1) spin_then_yield(spins);
    }

private:
    void copy_slice(int t) {
        // Slices in whole cache lines.
        const std::size_t lines = (bytes_ + 63) / 64, begin = lines * t / threads_ * 64;
        const std::size_t end = std::min(bytes_, lines * (t + 1) / threads_ * 64);
        if (end > begin) std::memcpy(dst_.data() + begin, src_.data() + begin, end - begin);
    }
    void helper(int t) {
        uint64_t seen = 0;
        for (;;) {
            uint64_t g;
            unsigned spins = 0;
            while ((g = generation_.load(std::memory_order_acquire)) == seen) spin_then_yield(spins);
            seen = g;
            if (stop_) return;
            copy_slice(t);
            done_.fetch_add(1, std::memory_order_release);
        }
    }

    const int threads_;
    const std::size_t bytes_;
    AlignedBuffer<unsigned char> src_, dst_;
    std::vector<std::thread> helpers_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> done_{0};
    std::atomic<bool> stop_{false};
};

void run_copy(benchmark::State &state, const std::string &id, const SetupCache::MakeData &make, int threads) {
    const CaseData &d = setup_cache().case_data(id, make);
    // Half the footprint copied onto the other half: d.bytes read and written in all.
    ParallelCopy copy(threads, static_cast<std::size_t>(d.bytes / 2));
    copy.run();
    for (auto _ : state) copy.run();
    state.counters["GB/s"] = benchmark::Counter(d.bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    char label[64];
    std::snprintf(label, sizeof label, "%.2f MB footprint, memcpy", d.bytes * 1e-6);
    state.SetLabel(label);
}

// ---- FMA peak: 24 independent accumulators per thread, so neither latency nor memory limits it ----

// Iterations of 24 FMAs per thread per benchmark iteration: about 14 ms, so that starting and
// joining the other threads each iteration costs well under 1%. With 1 << 18 (1.7 ms) the 2-thread
// peak read 183-220 GFLOP/s on the 2-core Zen 4 host, 223-228 with this (1 thread 117 either way;
// docs/PERFORMANCE_HISTORY.md, "2026-11-30, 1e6515f..3083d08").
constexpr int64_t kPeakSteps = 1 << 21;

__attribute__((target("avx512f"))) float fma_loop_avx512(float seed) {
    __m512 acc[24];
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(seed * 1e-7f);
    for (int i = 0; i < 24; i++) acc[i] = _mm512_set1_ps(seed + float(i));
    for (int64_t s = 0; s < kPeakSteps; s++) {
#pragma GCC unroll 24  // every accumulator in its own register
        for (int i = 0; i < 24; i++) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    float out[16];
    __m512 sum = acc[0];
    for (int i = 1; i < 24; i++) sum = _mm512_add_ps(sum, acc[i]);
    _mm512_storeu_ps(out, sum);
    return out[0] + out[15];
}

__attribute__((target("avx2,fma"))) float fma_loop_avx2(float seed) {
    __m256 acc[12];
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(seed * 1e-7f);
    for (int i = 0; i < 12; i++) acc[i] = _mm256_set1_ps(seed + float(i));
    // 12 accumulators x 8 lanes is a quarter of 24 x 16: four times the steps.
    for (int64_t s = 0; s < 4 * kPeakSteps; s++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    float out[8];
    __m256 sum = acc[0];
    for (int i = 1; i < 12; i++) sum = _mm256_add_ps(sum, acc[i]);
    _mm256_storeu_ps(out, sum);
    return out[0] + out[7];
}

bool has_avx512() { return __builtin_cpu_supports("avx512f"); }

// The peak of the path poolconv runs here (POOLCONV_ISA): AVX-512 kernels are compared with the
// AVX-512 FMA peak, the others with the AVX2 one (half of it where the FMA pipes are 512 bits
// wide, as on Zen 5 and Intel's server cores).
bool peak_avx512() { return has_avx512() && poolconv::active_isa() == poolconv::Isa::avx512; }

// FLOPs of one fma_loop call (either width: both do 24 * 16 lanes * kPeakSteps multiply-adds).
constexpr double kPeakLoopFlops = 2.0 * 24 * 16 * kPeakSteps;

void run_peak(benchmark::State &state, int threads) {
    if (!has_avx512() && !__builtin_cpu_supports("fma")) {
        state.SkipWithError("PEAK: this CPU has no FMA");
        return;
    }
    volatile float sink = 0;
    const bool wide = peak_avx512();  // asked once, outside the timed loop
    auto one = [wide](float seed) { return wide ? fma_loop_avx512(seed) : fma_loop_avx2(seed); };
    for (auto _ : state) {
        std::vector<std::thread> pool;
        std::vector<float> results(static_cast<std::size_t>(threads));
        for (int t = 1; t < threads; t++) pool.emplace_back([&, t] { results[t] = one(float(t)); });
        results[0] = one(0.5f);
        for (std::thread &t : pool) t.join();
        sink = sink + results[0];
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(kPeakLoopFlops * threads * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(wide ? "AVX-512 FMA, 24 accumulators" : "AVX2 FMA, 12 accumulators");
}

}  // namespace
}  // namespace poolconv_bench

int main(int argc, char **argv) {
    using namespace poolconv_bench;
    // Our defaults, unless the command line sets them (as flags rather than per-benchmark settings,
    // which would override the command line and add "/min_time:..." to names):
    //   - --benchmark_min_time=kDefaultMinTime;
    //   - --benchmark_enable_random_interleaving=true: the repetitions of every benchmark run in
    //     one shuffled sequence, so a slow phase of a shared host (frequency, neighbours) spreads
    //     over poolconv and oneDNN alike instead of landing on whichever ran then, and the
    //     side-by-side ratios of medians hold up.
    std::vector<char *> args(argv, argv + argc);
    std::string default_min_time = "--benchmark_min_time=" + std::to_string(kDefaultMinTime);
    std::string default_interleaving = "--benchmark_enable_random_interleaving=true";
    if (flag_value(argc, argv, "benchmark_min_time", "").empty()) args.insert(args.begin() + 1, default_min_time.data());
    if (flag_value(argc, argv, "benchmark_enable_random_interleaving", "").empty()) {
        args.insert(args.begin() + 1, default_interleaving.data());
    }
    args.push_back(nullptr);
    argc = static_cast<int>(args.size()) - 1;
    argv = args.data();

    auto add = [](const std::string &id, Impl impl, int threads, SetupCache::MakeData make) {
        const std::string name = id + "/" + impl_name(impl) + "/" + std::to_string(threads) + "t";
        benchmark::RegisterBenchmark(name.c_str(), [id, impl, threads, make](benchmark::State &state) {
            run_benchmark(state, id, make, impl, threads);
        })->UseRealTime()->Unit(benchmark::kMicrosecond);
    };
    std::vector<Impl> impls(std::begin(kImpls), std::end(kImpls));
    for (Impl impl : kAutoscheduledImpls) {
        if (poolconv::schedule_author_available(schedule_author(impl))) impls.push_back(impl);
    }
    static const std::vector<PoolCase> pools = pool_cases();
    static const std::vector<ConvCase> convs = conv_cases();
    for (const PoolCase &c : pools) {
        for (int threads : kThreadCounts) {
            for (Impl impl : impls) add(c.id, impl, threads, [&c] { return make_case_data(c); });
            const std::string name = c.id + "/copy/" + std::to_string(threads) + "t";
            benchmark::RegisterBenchmark(name.c_str(), [&c, threads](benchmark::State &state) {
                run_copy(state, c.id, [&c] { return make_case_data(c); }, threads);
            })->UseRealTime()->Unit(benchmark::kMicrosecond);
        }
    }
    for (int threads : kThreadCounts) {
        const std::string name = "PEAK/fma/" + std::to_string(threads) + "t";
        benchmark::RegisterBenchmark(name.c_str(), [threads](benchmark::State &state) { run_peak(state, threads); })
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    }
    for (const ConvCase &c : convs) {
        for (int threads : kThreadCounts) {
            for (Impl impl : impls) add(c.id, impl, threads, [&c] { return make_case_data(c); });
        }
    }

    ExactNamesReporters reporters(argc, argv);  // before Initialize removes the flags
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("poolconv_isa", poolconv::isa_name(poolconv::active_isa()));
    benchmark::AddCustomContext("onednn", onednn_version());
    for (const PoolCase &c : pools) benchmark::AddCustomContext(c.id, c.description);
    for (const ConvCase &c : convs) benchmark::AddCustomContext(c.id, c.description);
    benchmark::RunSpecifiedBenchmarks(reporters.display.get(), reporters.file.get());
    benchmark::Shutdown();
    return 0;
}
