// oneDNN pooling and convolution for one PoolCase / ConvCase, behind a small interface so that only
// onednn.cpp includes the oneDNN headers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/cases.h"

namespace poolconv_bench {

enum class OnednnLayout {
    plain,    // src and dst in NCHW / NCDHW, wrapping the caller's buffers
    blocked,  // oneDNN's preferred layout; the input is reordered into it once, at construction
};

// The oneDNN threading runtime, e.g. "OpenMP", and version, e.g. "2.6.3".
std::string onednn_runtime_name();
std::string onednn_version();
// Runs `body` with oneDNN on `threads` threads: the primitives `body` creates and executes (an
// OpenMP runtime: omp_set_num_threads; TBB: inside a task arena of that many threads).
void onednn_with_threads(int threads, const std::function<void()> &body);

class OnednnPool {
public:
    // `src` is the dense NC[D]HW input; it must outlive this object (plain layout reads it on every
    // execute()). `output_shape` and `pads_begin` are poolconv's (PoolGeometry); the end pads oneDNN
    // gets are those that reproduce `output_shape` (ceil rounding becomes a larger right pad).
    // P7 (`c.indices`) uses prop_kind::forward_training, which also writes the argmax workspace;
    // everything else uses forward_inference. Create and run it inside onednn_with_threads.
    OnednnPool(const PoolCase &c, const std::vector<int64_t> &output_shape, const std::vector<int64_t> &pads_begin,
               OnednnLayout layout, const float *src);
    ~OnednnPool();
    OnednnPool(const OnednnPool &) = delete;
    OnednnPool &operator=(const OnednnPool &) = delete;

    // Runs the pooling primitive only (and waits for it).
    void execute();
    // Copies the last output into `dst`, dense NC[D]HW (a reorder for the blocked layout).
    void output_to_plain(float *dst);
    // E.g. "src nChw16c, dst nChw16c, jit:avx512_core".
    const std::string &description() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// forward_inference with bias; same interface as OnednnPool.
class OnednnConv {
public:
    // `src` (dense NC[D]HW), `weights` (ONNX OI[D]HW) and `bias` must outlive this object (the
    // plain layout reads src on every execute()). Weights are reordered into the layout oneDNN
    // picks once, here; with OnednnLayout::blocked so is src. Create and run it inside
    // onednn_with_threads.
    OnednnConv(const ConvCase &c, const std::vector<int64_t> &output_shape, const std::vector<int64_t> &pads_begin,
               const std::vector<int64_t> &pads_end, OnednnLayout layout, const float *src, const float *weights,
               const float *bias);
    ~OnednnConv();
    OnednnConv(const OnednnConv &) = delete;
    OnednnConv &operator=(const OnednnConv &) = delete;

    void execute();
    void output_to_plain(float *dst);
    // E.g. "src nchw, dst nchw, gemm:jit".
    const std::string &description() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace poolconv_bench
