#include "bench/onednn.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <map>
#include <stdexcept>
#include <unordered_map>

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
#include <tbb/task_arena.h>
#endif

namespace poolconv_bench {

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

dnnl::engine &cpu_engine() {
#ifdef POOLCONV_ONEDNN_OPENCL_CPU_DRIVER
    // A SYCL build's CPU engine is an OpenCL CPU device: Intel's driver, from oneDNN's wheels
    // (bench/CMakeLists.txt). A driver the user chose stays.
    setenv("OCL_ICD_FILENAMES", POOLCONV_ONEDNN_OPENCL_CPU_DRIVER, /*overwrite=*/0);
#endif
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

memory::dims to_dims(const std::vector<int64_t> &v) { return memory::dims(v.begin(), v.end()); }

memory::dims dims_of(const memory::desc &md) { return md.get_dims(); }
memory::data_type data_type_of(const memory::desc &md) { return md.get_data_type(); }

tag plain_tag(std::size_t rank) { return rank == 5 ? tag::ncdhw : rank == 4 ? tag::nchw : tag::ncw; }

// The blocked layout oneDNN's pooling kernels prefer on this CPU: 16 channels per block with
// AVX-512, else 8. (oneDNN takes no format_tag::any for a pooling source, so we cannot just ask;
// the destination is left to `any`, which oneDNN resolves to the source's layout.)
tag blocked_tag(std::size_t rank) {
    const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    const auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
    const bool c16 = (isa & avx512) == avx512;
    if (rank == 5) return c16 ? tag::nCdhw16c : tag::nCdhw8c;
    if (rank == 4) return c16 ? tag::nChw16c : tag::nChw8c;
    return c16 ? tag::nCw16c : tag::nCw8c;
}

// Describes a memory descriptor's layout, e.g. "nchw" or "nChw16c" (only the tags we create).
std::string layout_name(const memory::desc &md, std::size_t rank) {
    struct Known {
        tag t;
        const char *name;
        std::size_t rank;
    };
    static const Known known[] = {
        {tag::ncw, "ncw", 3},         {tag::nchw, "nchw", 4},         {tag::ncdhw, "ncdhw", 5},
        {tag::nCw8c, "nCw8c", 3},     {tag::nChw8c, "nChw8c", 4},     {tag::nCdhw8c, "nCdhw8c", 5},
        {tag::nCw16c, "nCw16c", 3},   {tag::nChw16c, "nChw16c", 4},   {tag::nCdhw16c, "nCdhw16c", 5},
        {tag::nwc, "nwc", 3},         {tag::nhwc, "nhwc", 4},         {tag::ndhwc, "ndhwc", 5},
    };
    for (const Known &k : known) {
        if (k.rank == rank && memory::desc(dims_of(md), data_type_of(md), k.t) == md) return k.name;
    }
    return "other";
}

// Copies a primitive's output `src` (any layout) into `dst`, dense NC[D]HW of `shape`.
void reorder_to_plain(dnnl::stream &stream, memory &src, const std::vector<int64_t> &shape, float *dst) {
    const memory::desc plain_md(to_dims(shape), memory::data_type::f32, plain_tag(shape.size()));
    memory user_dst(plain_md, cpu_engine(), dst);
    dnnl::reorder(src, user_dst).execute(stream, src, user_dst);
    stream.wait();
}

}  // namespace

std::string onednn_runtime_name() {
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_SYCL
    const std::string engine = "SYCL, ";
#else
    const std::string engine;
#endif
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    return engine + "OpenMP";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
    return engine + "TBB";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_SEQ
    return engine + "sequential";
#else
    return engine + "other";
#endif
}

std::string onednn_version() {
    const dnnl_version_t *v = dnnl_version();
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
           onednn_runtime_name() + ")";
}

void onednn_with_threads(int threads, const std::function<void()> &body) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    omp_set_num_threads(threads);
    body();
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
    // oneDNN's TBB runtime runs on the calling thread's arena, one per thread count, kept for the
    // run. Not a tbb::global_control, which the bench used before: with TBB 2021.13, once a control
    // lowers max_allowed_parallelism below the workers already started, one of them spins in
    // sched_yield as long as the control lives (a whole core, also while poolconv's 1-thread rows
    // ran beside it: on the 2-core Zen 4 guest P1's 1-thread row took 1.15x the time, most rows
    // within noise; docs/PERFORMANCE_HISTORY.md, 2026-11-27). Arenas leave no worker spinning.
    static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
    std::unique_ptr<tbb::task_arena> &arena = arenas[threads];
    if (!arena) arena = std::make_unique<tbb::task_arena>(threads);
    arena->execute(body);
#else
    (void)threads;
    body();
#endif
}

struct OnednnPool::Impl {
    dnnl::stream stream{cpu_engine()};
    dnnl::primitive pool;
    std::unordered_map<int, memory> args;
    memory src, dst, workspace;
    std::size_t rank = 0;
    std::vector<int64_t> output_shape;
    std::string description;
};

OnednnPool::OnednnPool(const PoolCase &c, const std::vector<int64_t> &output_shape,
                       const std::vector<int64_t> &pads_begin, OnednnLayout layout, const float *src)
    : impl_(std::make_unique<Impl>()) {
    Impl &m = *impl_;
    dnnl::engine &eng = cpu_engine();
    m.rank = c.input_shape.size();
    m.output_shape = output_shape;
    const std::size_t spatial = m.rank - 2;

    // oneDNN has no rounding mode: out = (in + pb + pe - k) / s + 1 (floor). The end pad that yields
    // poolconv's output size, e.g. for ceil rounding, is (out - 1) * s + k - in - pb.
    memory::dims strides, kernel, pad_l, pad_r;
    for (std::size_t i = 0; i < spatial; i++) {
        const int64_t s = c.strides.empty() ? 1 : c.strides[i];
        const int64_t k = c.kernel[i];
        const int64_t in = c.input_shape[i + 2];
        const int64_t out = output_shape[i + 2];
        const int64_t pe = (out - 1) * s + k - in - pads_begin[i];
        if (pe < 0) throw std::runtime_error(c.id + ": no oneDNN end padding reproduces the output shape");
        strides.push_back(s);
        kernel.push_back(k);
        pad_l.push_back(pads_begin[i]);
        pad_r.push_back(pe);
    }

    const memory::dims src_dims = to_dims(c.input_shape), dst_dims = to_dims(output_shape);
    const auto f32 = memory::data_type::f32;
    const memory::desc plain_src_md(src_dims, f32, plain_tag(m.rank));
    const memory::desc plain_dst_md(dst_dims, f32, plain_tag(m.rank));
    const bool blocked = layout == OnednnLayout::blocked;
    const memory::desc src_md = blocked ? memory::desc(src_dims, f32, blocked_tag(m.rank)) : plain_src_md;
    const memory::desc dst_md = blocked ? memory::desc(dst_dims, f32, tag::any) : plain_dst_md;

    // P7 stands for max pooling with indices: oneDNN has no index output, but forward_training
    // writes a workspace with each window's argmax (for the backward pass), the closest equivalent.
    const auto prop = c.indices ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
    const auto alg = c.op == PoolOp::max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;

    const memory::dims dilation(spatial, 0);
    dnnl::pooling_forward::primitive_desc pd(eng, prop, alg, src_md, dst_md, strides, kernel, dilation, pad_l,
                                             pad_r);
    m.pool = dnnl::pooling_forward(pd);

    memory user_src(plain_src_md, eng, const_cast<float *>(src));
    if (blocked) {
        m.src = memory(pd.src_desc(), eng);
        dnnl::reorder(user_src, m.src).execute(m.stream, user_src, m.src);
        m.stream.wait();
    } else {
        m.src = user_src;
    }
    m.dst = memory(pd.dst_desc(), eng);
    m.args = {{DNNL_ARG_SRC, m.src}, {DNNL_ARG_DST, m.dst}};
    if (c.indices) {
        m.workspace = memory(pd.workspace_desc(), eng);
        m.args.insert({DNNL_ARG_WORKSPACE, m.workspace});
    }
    m.description = std::string("src ") + layout_name(pd.src_desc(), m.rank) + ", dst " +
                    layout_name(pd.dst_desc(), m.rank) + ", " + pd.impl_info_str();
    if (c.indices) m.description += ", forward_training (argmax workspace)";
}

OnednnPool::~OnednnPool() = default;

void OnednnPool::execute() {
    impl_->pool.execute(impl_->stream, impl_->args);
    impl_->stream.wait();
}

void OnednnPool::output_to_plain(float *dst) { reorder_to_plain(impl_->stream, impl_->dst, impl_->output_shape, dst); }

const std::string &OnednnPool::description() const { return impl_->description; }

struct OnednnConv::Impl {
    dnnl::stream stream{cpu_engine()};
    dnnl::primitive conv;
    std::unordered_map<int, memory> args;
    memory src, weights, bias, dst;
    std::size_t rank = 0;
    std::vector<int64_t> output_shape;
    std::string description;
};

OnednnConv::OnednnConv(const ConvCase &c, const std::vector<int64_t> &output_shape,
                       const std::vector<int64_t> &pads_begin, const std::vector<int64_t> &pads_end,
                       OnednnLayout layout, const float *src, const float *weights, const float *bias)
    : impl_(std::make_unique<Impl>()) {
    Impl &m = *impl_;
    dnnl::engine &eng = cpu_engine();
    m.rank = c.input_shape.size();
    m.output_shape = output_shape;
    const std::size_t spatial = m.rank - 2;

    memory::dims strides, dilates, pad_l, pad_r;
    for (std::size_t i = 0; i < spatial; i++) {
        strides.push_back(c.strides.empty() ? 1 : c.strides[i]);
        dilates.push_back((c.dilations.empty() ? 1 : c.dilations[i]) - 1);  // oneDNN counts the gaps
        pad_l.push_back(pads_begin[i]);
        pad_r.push_back(pads_end[i]);
    }
    // Weights as oneDNN sees groups: G, O/G, I/G, k... (the same memory as ONNX's O, I/G, k...).
    memory::dims w_dims = to_dims(c.weights_shape);
    tag w_tag = m.rank == 5 ? tag::oidhw : m.rank == 4 ? tag::oihw : tag::oiw;
    if (c.group > 1) {
        w_dims[0] /= c.group;
        w_dims.insert(w_dims.begin(), c.group);
        w_tag = m.rank == 5 ? tag::goidhw : m.rank == 4 ? tag::goihw : tag::goiw;
    }
    const auto f32 = memory::data_type::f32;
    const memory::dims src_dims = to_dims(c.input_shape), dst_dims = to_dims(output_shape);
    const memory::desc plain_src_md(src_dims, f32, plain_tag(m.rank)), plain_dst_md(dst_dims, f32, plain_tag(m.rank));
    const memory::desc user_w_md(w_dims, f32, w_tag), bias_md({c.weights_shape[0]}, f32, tag::x);
    const bool blocked = layout == OnednnLayout::blocked;
    const memory::desc src_md = blocked ? memory::desc(src_dims, f32, tag::any) : plain_src_md;
    const memory::desc dst_md = blocked ? memory::desc(dst_dims, f32, tag::any) : plain_dst_md;
    const memory::desc w_md(w_dims, f32, tag::any);
    const auto prop = dnnl::prop_kind::forward_inference;
    const auto alg = dnnl::algorithm::convolution_direct;
    dnnl::convolution_forward::primitive_desc pd(eng, prop, alg, src_md, w_md, bias_md, dst_md, strides, dilates,
                                                 pad_l, pad_r);
    m.conv = dnnl::convolution_forward(pd);

    // Reorders outside the timed loop: weights always, src for the blocked layout.
    auto prepare = [&](const memory::desc &user_md, const memory::desc &wanted, const float *data) {
        memory user(user_md, eng, const_cast<float *>(data));
        if (wanted == user_md) return user;
        memory reordered(wanted, eng);
        dnnl::reorder(user, reordered).execute(m.stream, user, reordered);
        m.stream.wait();
        return reordered;
    };
    m.src = prepare(plain_src_md, pd.src_desc(), src);
    m.weights = prepare(user_w_md, pd.weights_desc(), weights);
    m.bias = memory(bias_md, eng, const_cast<float *>(bias));
    m.dst = memory(pd.dst_desc(), eng);
    m.args = {{DNNL_ARG_SRC, m.src}, {DNNL_ARG_WEIGHTS, m.weights}, {DNNL_ARG_BIAS, m.bias}, {DNNL_ARG_DST, m.dst}};
    m.description = std::string("src ") + layout_name(pd.src_desc(), m.rank) + ", dst " +
                    layout_name(pd.dst_desc(), m.rank) + ", " + pd.impl_info_str();
}

OnednnConv::~OnednnConv() = default;

void OnednnConv::execute() {
    impl_->conv.execute(impl_->stream, impl_->args);
    impl_->stream.wait();
}

void OnednnConv::output_to_plain(float *dst) { reorder_to_plain(impl_->stream, impl_->dst, impl_->output_shape, dst); }

const std::string &OnednnConv::description() const { return impl_->description; }

}  // namespace poolconv_bench
