// poolconv_gpu_bench: poolconv's CUDA kernels beside cuDNN's on the shapes in cases.h, on one GPU,
// on device tensors in the same stream (no host copies in the timed loop).
//
// Benchmarks are named <ID>/<implementation>, e.g. P1/poolconv_cuda, C4/cudnn_nhwc:
//   poolconv_cuda   poolconv::max_pool / avg_pool / PreparedConvolution on Memory::cuda tensors
//                   (dense NC[D]HW), in the device's primary context and the bench's stream
//                   (poolconv::set_cuda_context)
//   cudnn           cuDNN (legacy API) on the same NC[D]HW device tensors: cudnnPoolingForward, or
//                   cudnnConvolutionForward + cudnnAddTensor (the bias) with the fastest algorithm
//                   cudnnFindConvolutionForwardAlgorithmEx measured among those of plain f32 FMA
//                   math (CUDNN_FMA_MATH: the precision poolconv computes in)
//   cudnn_nhwc      convolutions only: as cudnn, with input, output and filter channels-last
//                   (cuDNN's preferred layout for many kernels); the data is transposed once,
//                   outside the timed loop
//   cudnn_tf32      convolutions only: as cudnn, with cuDNN's default math (TF32 tensor cores on
//                   Ampere and later: a 10-bit mantissa, what frameworks enable by default); not
//                   the same precision, shown for scale
//   <P ID>/copy     no operator: cudaMemcpyAsync device-to-device of half the pooling shape's bytes
//                   (input + output [+ indices]): the footprint read and written once, the
//                   bandwidth ceiling its pooling rows are compared with
//   PEAK/sgemm      no operator: cuBLAS SGEMM 8192^3 with pedantic f32 math (no tensor cores):
//                   the f32 FLOP/s the convolutions are compared with
//
// Times are GPU times measured with CUDA events around a batch of kBatch back-to-back calls
// (UseManualTime), divided by kBatch: the host's cost per call shows only where it exceeds the
// kernel's. Before timing, each implementation runs once on a fixed random input and its output is
// compared with poolconv's CPU kernels on the same data (the test suite checks those against the
// plain references): max pooling exact, average pooling 1e-5 relative, convolution 1e-4 absolute
// + relative (TF32: 1e-2); poolconv's P7 indices must point at the window's maximum. A mismatch
// skips the benchmark with an error instead of timing it.
//
//   poolconv_gpu_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                      --benchmark_format=json > gpu.json
//   /usr/bin/python3 bench/gpu_ratios.py gpu.json
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/cases.h"
#include "bench/exact_names_reporter.h"
#include "poolconv/poolconv.h"

namespace poolconv_bench {
namespace {

constexpr int kBatch = 20;  // calls per timed iteration
constexpr double kAvgRelativeTolerance = 1e-5;
constexpr double kConvTolerance = 1e-4;
constexpr double kTf32Tolerance = 1e-2;
constexpr std::size_t kMaxWorkspace = std::size_t(1) << 30;

void check_cuda(cudaError_t e, const char *what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check_cudnn(cudnnStatus_t s, const char *what) {
    if (s != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(s));
}

// One device allocation.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
        void *p = nullptr;
        check_cuda(cudaMalloc(&p, std::max<std::size_t>(bytes, 256)), "cudaMalloc");
        data_.reset(p);
    }
    // A synchronous upload: from pageable memory cudaMemcpy may return before the data has
    // landed, and the bench's stream does not wait for the default stream.
    template <typename T>
    explicit DeviceBuffer(const std::vector<T> &host) : DeviceBuffer(host.size() * sizeof(T)) {
        check_cuda(cudaMemcpy(data(), host.data(), bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to device");
        check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
    void *data() const { return data_.get(); }
    std::size_t bytes() const { return bytes_; }
    template <typename T>
    std::vector<T> download() const {
        std::vector<T> host(bytes_ / sizeof(T));
        check_cuda(cudaMemcpy(host.data(), data(), bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
        return host;
    }

private:
    struct Free {
        void operator()(void *p) const { cudaFree(p); }
    };
    std::unique_ptr<void, Free> data_;
    std::size_t bytes_ = 0;
};

// The device, its primary context (which cudaMalloc allocates in) and one stream, shared by
// poolconv, cuDNN and cuBLAS.
struct Gpu {
    cudaStream_t stream = nullptr;
    cudnnHandle_t cudnn = nullptr;
    cublasHandle_t cublas = nullptr;
    std::string name;

    Gpu() {
        check_cuda(cudaSetDevice(0), "cudaSetDevice");
        check_cuda(cudaFree(nullptr), "creating the primary context");
        // The driver's cuCtxGetCurrent through the runtime: no link to libcuda, so the bench starts
        // (and says what is missing) on a machine without a driver.
        using GetCurrent = CUresult (*)(CUcontext *);
        void *get_current = nullptr;
        cudaDriverEntryPointQueryResult found{};
        check_cuda(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get_current, 12000, cudaEnableDefault, &found),
                   "cudaGetDriverEntryPointByVersion");
        CUcontext context = nullptr;
        if (found != cudaDriverEntryPointSuccess || reinterpret_cast<GetCurrent>(get_current)(&context) != CUDA_SUCCESS ||
            !context) {
            throw std::runtime_error("no current CUDA context");
        }
        check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        poolconv::set_cuda_context({context, stream});
        check_cudnn(cudnnCreate(&cudnn), "cudnnCreate");
        check_cudnn(cudnnSetStream(cudnn, stream), "cudnnSetStream");
        if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
        cublasSetStream(cublas, stream);
        cudaDeviceProp p{};
        check_cuda(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
        name = p.name;
    }
    static Gpu &get() {
        static Gpu gpu;
        return gpu;
    }
};

// ---- Layouts and checks (host side) ----

// A dense tensor of `shape` (NC<spatial>) moved into channels-last order (N<spatial>C), or back.
enum class Channels { to_last, from_last };
std::vector<float> move_channels(const std::vector<float> &v, const std::vector<int64_t> &shape, Channels way) {
    const int64_t n = shape[0], c = shape[1], s = element_count(shape) / (n * c);
    std::vector<float> moved(v.size());
    for (int64_t b = 0; b < n; b++) {
        for (int64_t ch = 0; ch < c; ch++) {
            for (int64_t i = 0; i < s; i++) {
                const int64_t first = (b * c + ch) * s + i, last = (b * s + i) * c + ch;
                if (way == Channels::to_last) {
                    moved[std::size_t(last)] = v[std::size_t(first)];
                } else {
                    moved[std::size_t(first)] = v[std::size_t(last)];
                }
            }
        }
    }
    return moved;
}

// "" when `got` matches `expected` within `tolerance` (0: exact), else the first mismatch.
std::string compare(const std::vector<float> &got, const std::vector<float> &expected, double tolerance,
                    bool relative_only) {
    int64_t bad = 0, first = -1;
    for (std::size_t i = 0; i < expected.size(); i++) {
        const double g = got[i], r = expected[i], diff = std::fabs(g - r);
        const bool ok = tolerance == 0 ? g == r
                                       : diff <= tolerance * (relative_only ? std::fabs(r) : 1.0 + std::fabs(r));
        if (!ok) {
            if (first < 0) first = int64_t(i);
            bad++;
        }
    }
    if (bad == 0) return "";
    char msg[256];
    std::snprintf(msg, sizeof msg, "%lld of %zu outputs differ from poolconv's CPU kernels; first at %lld: got %.9g, expected %.9g",
                  static_cast<long long>(bad), expected.size(), static_cast<long long>(first), double(got[first]),
                  double(expected[first]));
    return msg;
}

void fill_uniform(std::vector<float> &v, std::mt19937 &rng, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    for (float &x : v) x = dist(rng);
}

// ---- One shape's data and reference ----

struct CaseData {
    const PoolCase *pool = nullptr;
    const ConvCase *conv = nullptr;
    std::vector<int64_t> output_shape, pads_begin, pads_end;
    std::vector<float> input, weights, bias, reference;
    double bytes = 0, flops = 0;
};

CaseData make_case_data(const PoolCase &c) {
    CaseData d;
    d.pool = &c;
    const poolconv::PoolGeometry g = c.geometry();
    d.output_shape = g.output_shape;
    d.pads_begin = g.pads_begin;
    d.pads_end = g.pads_end;
    d.input.resize(std::size_t(element_count(c.input_shape)));
    std::mt19937 rng(12345);
    fill_uniform(d.input, rng, c.op == PoolOp::max ? -1.0f : 0.5f, c.op == PoolOp::max ? 1.0f : 1.5f);
    const int64_t out = element_count(d.output_shape);
    d.bytes = double(d.input.size() * 4 + std::size_t(out) * (c.indices ? 12 : 4));
    d.reference.resize(std::size_t(out));
    poolconv::set_isa(poolconv::Isa::best);
    const auto in = poolconv::TensorView::dense(poolconv::DType::f32, c.input_shape, d.input.data());
    const auto y = poolconv::TensorView::dense(poolconv::DType::f32, d.output_shape, d.reference.data());
    if (c.op == PoolOp::max) {
        poolconv::max_pool(in, y, c.max_attributes());
    } else {
        poolconv::avg_pool(in, y, c.avg_attributes());
    }
    return d;
}

CaseData make_case_data(const ConvCase &c) {
    CaseData d;
    d.conv = &c;
    const poolconv::ConvGeometry g = c.geometry();
    d.output_shape = g.output_shape;
    d.pads_begin = g.pads_begin;
    d.pads_end = g.pads_end;
    d.input.resize(std::size_t(element_count(c.input_shape)));
    d.weights.resize(std::size_t(element_count(c.weights_shape)));
    d.bias.resize(std::size_t(c.weights_shape[0]));
    std::mt19937 rng(12345);
    fill_uniform(d.input, rng, -1, 1);
    // Weights scaled by the fan-in, so outputs stay O(1) and an absolute tolerance is meaningful.
    const float scale = 1.0f / std::sqrt(float(element_count(c.weights_shape) / c.weights_shape[0]));
    fill_uniform(d.weights, rng, -scale, scale);
    fill_uniform(d.bias, rng, -1, 1);
    const int64_t out = element_count(d.output_shape);
    d.bytes = double((d.input.size() + std::size_t(out) + d.weights.size() + d.bias.size()) * 4);
    d.flops = c.flops();
    d.reference.resize(std::size_t(out));
    poolconv::set_isa(poolconv::Isa::best);
    const auto w = poolconv::TensorView::dense(poolconv::DType::f32, c.weights_shape, d.weights.data());
    const auto b = poolconv::TensorView::dense(poolconv::DType::f32, {c.weights_shape[0]}, d.bias.data());
    poolconv::PreparedConvolution(w, &b, c.attributes())
        .run(poolconv::TensorView::dense(poolconv::DType::f32, c.input_shape, d.input.data()),
             poolconv::TensorView::dense(poolconv::DType::f32, d.output_shape, d.reference.data()));
    return d;
}

// ---- Implementations ----

class Runner {
public:
    virtual ~Runner() = default;
    virtual void run() = 0;  // queues one call on the bench's stream
    // "" when the output (and indices) are right; else what is wrong.
    virtual std::string check(const CaseData &d) = 0;
};

poolconv::TensorView device_view(poolconv::DType type, const std::vector<int64_t> &shape, const DeviceBuffer &b) {
    poolconv::TensorView v = poolconv::TensorView::dense(type, shape, b.data());
    v.memory = poolconv::Memory::cuda;
    return v;
}

class PoolconvPool final : public Runner {
public:
    explicit PoolconvPool(const CaseData &d)
        : c_(*d.pool),
          input_(d.input),
          output_(d.reference.size() * sizeof(float)),
          indices_(c_.indices ? d.reference.size() * sizeof(int64_t) : 0),
          in_(device_view(poolconv::DType::f32, c_.input_shape, input_)),
          out_(device_view(poolconv::DType::f32, d.output_shape, output_)),
          idx_(device_view(poolconv::DType::i64, d.output_shape, indices_)) {}
    void run() override {
        if (c_.op == PoolOp::max) {
            poolconv::max_pool(in_, out_, c_.max_attributes(), c_.indices ? &idx_ : nullptr);
        } else {
            poolconv::avg_pool(in_, out_, c_.avg_attributes());
        }
    }
    std::string check(const CaseData &d) override {
        const std::vector<float> y = output_.download<float>();
        std::string e = compare(y, d.reference, c_.op == PoolOp::max ? 0 : kAvgRelativeTolerance, true);
        if (!e.empty() || !c_.indices) return e;
        // Default MaxPool attributes: an index addresses the whole input, inside the output's plane.
        const std::vector<int64_t> idx = indices_.download<int64_t>();
        const int64_t in_plane = int64_t(d.input.size()) / (c_.input_shape[0] * c_.input_shape[1]);
        const int64_t out_plane = int64_t(y.size()) / (d.output_shape[0] * d.output_shape[1]);
        for (std::size_t i = 0; i < idx.size(); i++) {
            if (idx[i] < 0 || idx[i] >= int64_t(d.input.size()) || idx[i] / in_plane != int64_t(i) / out_plane ||
                d.input[std::size_t(idx[i])] != y[i]) {
                return "index " + std::to_string(idx[i]) + " at output " + std::to_string(i) +
                       " does not point at the window's maximum";
            }
        }
        return "";
    }

private:
    const PoolCase &c_;
    DeviceBuffer input_, output_, indices_;
    poolconv::TensorView in_, out_, idx_;
};

class PoolconvConv final : public Runner {
public:
    explicit PoolconvConv(const CaseData &d)
        : input_(d.input),
          output_(d.reference.size() * sizeof(float)),
          in_(device_view(poolconv::DType::f32, d.conv->input_shape, input_)),
          out_(device_view(poolconv::DType::f32, d.output_shape, output_)),
          bias_(poolconv::TensorView::dense(poolconv::DType::f32, {d.conv->weights_shape[0]},
                                            const_cast<float *>(d.bias.data()))),
          conv_(poolconv::TensorView::dense(poolconv::DType::f32, d.conv->weights_shape,
                                            const_cast<float *>(d.weights.data())),
                &bias_, d.conv->attributes()) {}
    void run() override { conv_.run(in_, out_); }
    std::string check(const CaseData &d) override {
        return compare(output_.download<float>(), d.reference, kConvTolerance, false);
    }

private:
    DeviceBuffer input_, output_;
    poolconv::TensorView in_, out_, bias_;
    poolconv::PreparedConvolution conv_;  // packs the weights once, uploads them on the first call
};

// cuDNN descriptors need at least 4-d tensors: 1-D shapes get a unit H.
std::vector<int> cudnn_dims(const std::vector<int64_t> &shape) {
    std::vector<int> d(shape.begin(), shape.end());
    if (d.size() == 3) d.insert(d.begin() + 2, 1);
    return d;
}
std::vector<int> cudnn_spatial(const std::vector<int64_t> &v, std::size_t spatial, int fill) {
    std::vector<int> d(spatial, fill);
    std::copy(v.begin(), v.end(), d.end() - std::ptrdiff_t(v.size()));
    return d;
}

struct TensorDesc {
    cudnnTensorDescriptor_t desc = nullptr;
    TensorDesc(const std::vector<int64_t> &shape, bool channels_last) {
        check_cudnn(cudnnCreateTensorDescriptor(&desc), "cudnnCreateTensorDescriptor");
        const std::vector<int> d = cudnn_dims(shape);
        check_cudnn(cudnnSetTensorNdDescriptorEx(desc, channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                 CUDNN_DATA_FLOAT, int(d.size()), d.data()),
                    "cudnnSetTensorNdDescriptorEx");
    }
    ~TensorDesc() { cudnnDestroyTensorDescriptor(desc); }
    TensorDesc(const TensorDesc &) = delete;
    TensorDesc &operator=(const TensorDesc &) = delete;
};

class CudnnPool final : public Runner {
public:
    explicit CudnnPool(const CaseData &d)
        : input_(d.input), output_(d.reference.size() * sizeof(float)), x_(d.pool->input_shape, false),
          y_(d.output_shape, false) {
        const PoolCase &c = *d.pool;
        if (d.pads_begin != d.pads_end) throw std::runtime_error("cuDNN pooling pads both ends alike");
        check_cudnn(cudnnCreatePoolingDescriptor(&pool_), "cudnnCreatePoolingDescriptor");
        const std::size_t spatial = cudnn_dims(c.input_shape).size() - 2;
        const std::vector<int> window = cudnn_spatial(c.kernel, spatial, 1),
                               pads = cudnn_spatial(d.pads_begin, spatial, 0),
                               strides = cudnn_spatial(c.strides, spatial, 1);
        const cudnnPoolingMode_t mode =
            c.op == PoolOp::max ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
        check_cudnn(cudnnSetPoolingNdDescriptor(pool_, mode, CUDNN_PROPAGATE_NAN, int(spatial), window.data(),
                                                pads.data(), strides.data()),
                    "cudnnSetPoolingNdDescriptor");
        // cuDNN rounds output sizes down; a shape it would size differently is not comparable.
        std::vector<int> out(spatial + 2);
        check_cudnn(cudnnGetPoolingNdForwardOutputDim(pool_, x_.desc, int(out.size()), out.data()),
                    "cudnnGetPoolingNdForwardOutputDim");
        if (out != cudnn_dims(d.output_shape)) throw std::runtime_error("cuDNN sizes this output differently");
    }
    ~CudnnPool() override { cudnnDestroyPoolingDescriptor(pool_); }
    void run() override {
        const float one = 1, zero = 0;
        check_cudnn(cudnnPoolingForward(Gpu::get().cudnn, pool_, &one, x_.desc, input_.data(), &zero, y_.desc,
                                        output_.data()),
                    "cudnnPoolingForward");
    }
    std::string check(const CaseData &d) override {
        return compare(output_.download<float>(), d.reference,
                       d.pool->op == PoolOp::max ? 0 : kAvgRelativeTolerance, true);
    }

private:
    DeviceBuffer input_, output_;
    TensorDesc x_, y_;
    cudnnPoolingDescriptor_t pool_ = nullptr;
};

enum class CudnnConvFlavour { nchw_fma, nhwc_fma, nchw_default_math };

class CudnnConv final : public Runner {
public:
    CudnnConv(const CaseData &d, CudnnConvFlavour flavour)
        : flavour_(flavour),
          channels_last_(flavour == CudnnConvFlavour::nhwc_fma),
          input_(channels_last_ ? move_channels(d.input, d.conv->input_shape, Channels::to_last) : d.input),
          weights_(channels_last_ ? move_channels(d.weights, d.conv->weights_shape, Channels::to_last) : d.weights),
          bias_(d.bias),
          output_(d.reference.size() * sizeof(float)),
          x_(d.conv->input_shape, channels_last_),
          y_(d.output_shape, channels_last_),
          b_(bias_shape(d), false) {
        const ConvCase &c = *d.conv;
        if (d.pads_begin != d.pads_end) throw std::runtime_error("cuDNN convolution pads both ends alike");
        const std::vector<int> wd = cudnn_dims(c.weights_shape);
        const std::size_t spatial = wd.size() - 2;
        check_cudnn(cudnnCreateFilterDescriptor(&w_), "cudnnCreateFilterDescriptor");
        check_cudnn(cudnnSetFilterNdDescriptor(w_, CUDNN_DATA_FLOAT, channels_last_ ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                               int(wd.size()), wd.data()),
                    "cudnnSetFilterNdDescriptor");
        check_cudnn(cudnnCreateConvolutionDescriptor(&conv_), "cudnnCreateConvolutionDescriptor");
        const std::vector<int> pads = cudnn_spatial(d.pads_begin, spatial, 0),
                               strides = cudnn_spatial(c.strides, spatial, 1),
                               dilations = cudnn_spatial(c.dilations, spatial, 1);
        check_cudnn(cudnnSetConvolutionNdDescriptor(conv_, int(spatial), pads.data(), strides.data(), dilations.data(),
                                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                    "cudnnSetConvolutionNdDescriptor");
        check_cudnn(cudnnSetConvolutionGroupCount(conv_, int(c.group)), "cudnnSetConvolutionGroupCount");
        const cudnnMathType_t math = flavour == CudnnConvFlavour::nchw_default_math ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
        check_cudnn(cudnnSetConvolutionMathType(conv_, math), "cudnnSetConvolutionMathType");
        choose_algorithm(math);
    }
    ~CudnnConv() override {
        cudnnDestroyConvolutionDescriptor(conv_);
        cudnnDestroyFilterDescriptor(w_);
    }
    void run() override {
        const float one = 1, zero = 0;
        cudnnHandle_t h = Gpu::get().cudnn;
        check_cudnn(cudnnConvolutionForward(h, &one, x_.desc, input_.data(), w_, weights_.data(), conv_, algorithm_,
                                            workspace_.data(), workspace_.bytes(), &zero, y_.desc, output_.data()),
                    "cudnnConvolutionForward");
        check_cudnn(cudnnAddTensor(h, &one, b_.desc, bias_.data(), &one, y_.desc, output_.data()), "cudnnAddTensor");
    }
    std::string check(const CaseData &d) override {
        std::vector<float> y = output_.download<float>();
        if (channels_last_) y = move_channels(y, d.output_shape, Channels::from_last);
        const double tolerance = flavour_ == CudnnConvFlavour::nchw_default_math ? kTf32Tolerance : kConvTolerance;
        return compare(y, d.reference, tolerance, false);
    }

private:
    static std::vector<int64_t> bias_shape(const CaseData &d) {
        std::vector<int64_t> s(d.output_shape.size(), 1);
        s[1] = d.output_shape[1];
        return s;
    }
    // The fastest algorithm cuDNN measures among those with `math` (FMA: no tensor cores).
    void choose_algorithm(cudnnMathType_t math) {
        DeviceBuffer scratch(kMaxWorkspace);
        constexpr int kMax = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
        cudnnConvolutionFwdAlgoPerf_t perf[kMax];
        int found = 0;
        check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(Gpu::get().cudnn, x_.desc, input_.data(), w_, weights_.data(),
                                                           conv_, y_.desc, output_.data(), kMax, &found, perf,
                                                           scratch.data(), scratch.bytes()),
                    "cudnnFindConvolutionForwardAlgorithmEx");
        for (int i = 0; i < found; i++) {  // sorted fastest first
            if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
            if (math == CUDNN_FMA_MATH && perf[i].mathType != CUDNN_FMA_MATH) continue;
            algorithm_ = perf[i].algo;
            check_cudnn(cudnnSetConvolutionMathType(conv_, perf[i].mathType), "cudnnSetConvolutionMathType");
            workspace_ = DeviceBuffer(perf[i].memory);
            return;
        }
        throw std::runtime_error("cuDNN found no algorithm for this convolution");
    }

    CudnnConvFlavour flavour_;
    bool channels_last_;
    DeviceBuffer input_, weights_, bias_, output_, workspace_;
    TensorDesc x_, y_, b_;
    cudnnFilterDescriptor_t w_ = nullptr;
    cudnnConvolutionDescriptor_t conv_ = nullptr;
    cudnnConvolutionFwdAlgo_t algorithm_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
};

// ---- Timing ----

// Case data is made on first use (after argument parsing), shared by a case's implementations.
template <typename Case>
const CaseData &case_data(const Case &c) {
    static std::vector<std::pair<std::string, std::unique_ptr<CaseData>>> made;
    for (auto &m : made)
        if (m.first == c.id) return *m.second;
    made.emplace_back(c.id, std::make_unique<CaseData>(make_case_data(c)));
    return *made.back().second;
}

struct Event {
    cudaEvent_t event = nullptr;
    Event() { check_cuda(cudaEventCreate(&event), "cudaEventCreate"); }
    ~Event() { cudaEventDestroy(event); }
    Event(const Event &) = delete;
    Event &operator=(const Event &) = delete;
};

// Times kBatch calls of `call` per iteration with CUDA events on the bench's stream.
void time_on_stream(benchmark::State &state, const std::function<void()> &call) {
    Gpu &gpu = Gpu::get();
    const Event start_event, stop_event;
    cudaEvent_t start = start_event.event, stop = stop_event.event;
    for (int i = 0; i < 3; i++) call();  // warm-up: module loads, first uploads
    check_cuda(cudaStreamSynchronize(gpu.stream), "cudaStreamSynchronize");
    for (auto _ : state) {
        check_cuda(cudaEventRecord(start, gpu.stream), "cudaEventRecord");
        for (int i = 0; i < kBatch; i++) call();
        check_cuda(cudaEventRecord(stop, gpu.stream), "cudaEventRecord");
        check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        state.SetIterationTime(double(ms) * 1e-3 / kBatch);
    }
}

// Runs `body`; an exception skips the benchmark with its message (Google Benchmark catches none).
void or_skip(benchmark::State &state, const std::function<void()> &body) {
    try {
        body();
    } catch (const std::exception &e) {
        state.SkipWithError(e.what());
    }
}

// Builds, checks and times one implementation of one case; errors skip the benchmark.
template <typename Case>
void run_case(benchmark::State &state, const Case &c,
              const std::function<std::unique_ptr<Runner>(const CaseData &)> &make) {
    or_skip(state, [&] {
        const CaseData &d = case_data(c);
        std::unique_ptr<Runner> runner = make(d);
        runner->run();
        check_cuda(cudaStreamSynchronize(Gpu::get().stream), "cudaStreamSynchronize");
        const std::string wrong = runner->check(d);
        if (!wrong.empty()) throw std::runtime_error(wrong);
        time_on_stream(state, [&] { runner->run(); });
        state.counters["GB/s"] = benchmark::Counter(d.bytes, benchmark::Counter::kIsIterationInvariantRate);
        if (d.flops > 0) {
            state.counters["GFLOP/s"] = benchmark::Counter(d.flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
        }
    });
}

void run_copy(benchmark::State &state, const PoolCase &c) {
    or_skip(state, [&] {
        const CaseData &d = case_data(c);
        const std::size_t half = std::size_t(d.bytes / 2);
        DeviceBuffer from(half), to(half);
        Gpu &gpu = Gpu::get();
        time_on_stream(state, [&] {
            check_cuda(cudaMemcpyAsync(to.data(), from.data(), half, cudaMemcpyDeviceToDevice, gpu.stream),
                       "cudaMemcpyAsync");
        });
        state.counters["GB/s"] = benchmark::Counter(d.bytes, benchmark::Counter::kIsIterationInvariantRate);
    });
}

void run_sgemm_peak(benchmark::State &state) {
    or_skip(state, [&] {
        constexpr int n = 8192;
        Gpu &gpu = Gpu::get();
        std::vector<float> host(std::size_t(n) * n);
        std::mt19937 rng(7);
        fill_uniform(host, rng, -1, 1);
        DeviceBuffer a(host), b(host), c(host.size() * sizeof(float));
        // f32 FMAs only, no TF32
        if (cublasSetMathMode(gpu.cublas, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS) {
            throw std::runtime_error("cublasSetMathMode failed");
        }
        const float one = 1, zero = 0;
        time_on_stream(state, [&] {
            if (cublasSgemm(gpu.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, static_cast<const float *>(a.data()), n,
                            static_cast<const float *>(b.data()), n, &zero, static_cast<float *>(c.data()),
                            n) != CUBLAS_STATUS_SUCCESS) {
                throw std::runtime_error("cublasSgemm failed");
            }
        });
        state.counters["GFLOP/s"] =
            benchmark::Counter(2.0 * n * n * double(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    });
}

void register_benchmarks() {
    auto add = [](const std::string &name, std::function<void(benchmark::State &)> f) {
        benchmark::RegisterBenchmark(name.c_str(), std::move(f))->UseManualTime()->Unit(benchmark::kMicrosecond);
    };
    static const std::vector<PoolCase> pools = pool_cases();
    static const std::vector<ConvCase> convs = conv_cases();
    for (const PoolCase &c : pools) {
        add(c.id + "/poolconv_cuda", [&c](benchmark::State &s) {
            run_case(s, c, [](const CaseData &d) { return std::make_unique<PoolconvPool>(d); });
        });
        add(c.id + "/cudnn", [&c](benchmark::State &s) {
            run_case(s, c, [](const CaseData &d) { return std::make_unique<CudnnPool>(d); });
        });
        add(c.id + "/copy", [&c](benchmark::State &s) { run_copy(s, c); });
    }
    for (const ConvCase &c : convs) {
        add(c.id + "/poolconv_cuda", [&c](benchmark::State &s) {
            run_case(s, c, [](const CaseData &d) { return std::make_unique<PoolconvConv>(d); });
        });
        const std::pair<const char *, CudnnConvFlavour> flavours[] = {{"cudnn", CudnnConvFlavour::nchw_fma},
                                                                      {"cudnn_nhwc", CudnnConvFlavour::nhwc_fma},
                                                                      {"cudnn_tf32", CudnnConvFlavour::nchw_default_math}};
        for (const auto &[name, flavour] : flavours) {
            add(c.id + "/" + name, [&c, flavour = flavour](benchmark::State &s) {
                run_case(s, c, [flavour](const CaseData &d) { return std::make_unique<CudnnConv>(d, flavour); });
            });
        }
    }
    add("PEAK/sgemm", run_sgemm_peak);
}

}  // namespace
}  // namespace poolconv_bench

int main(int argc, char **argv) {
    poolconv_bench::register_benchmarks();
    poolconv_bench::ExactNamesReporters reporters(argc, argv);  // before Initialize removes the flags
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    try {
        const poolconv_bench::Gpu &gpu = poolconv_bench::Gpu::get();
        benchmark::AddCustomContext("gpu", gpu.name);
        benchmark::AddCustomContext("cudnn", std::to_string(cudnnGetVersion()));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "poolconv_gpu_bench: %s\n", e.what());
        return 1;
    }
    for (const poolconv_bench::PoolCase &c : poolconv_bench::pool_cases()) benchmark::AddCustomContext(c.id, c.description);
    for (const poolconv_bench::ConvCase &c : poolconv_bench::conv_cases()) benchmark::AddCustomContext(c.id, c.description);
    benchmark::RunSpecifiedBenchmarks(reporters.display.get(), reporters.file.get());
    benchmark::Shutdown();
    return 0;
}
