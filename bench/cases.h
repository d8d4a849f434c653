// The pooling and convolution shapes poolconv_bench measures (all f32, NC[D]HW in and out).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "poolconv/convolution.h"
#include "poolconv/pooling.h"

namespace poolconv_bench {

// Elements of a dense tensor of `shape`.
inline int64_t element_count(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

enum class PoolOp { max, avg };

struct PoolCase {
    std::string id;           // "P1" ... "P11": the first part of every benchmark name
    std::string description;  // for the benchmark context / --help
    PoolOp op = PoolOp::max;
    bool indices = false;     // max pooling that also writes i64 argmax indices
    std::vector<int64_t> input_shape;
    std::vector<int64_t> kernel;
    std::vector<int64_t> strides;
    std::vector<int64_t> pads_begin;  // empty: all 0
    std::vector<int64_t> pads_end;    // empty: all 0
    poolconv::Rounding rounding = poolconv::Rounding::floor;

    poolconv::MaxPoolAttributes max_attributes() const {
        poolconv::MaxPoolAttributes a;
        fill(a);
        return a;
    }
    poolconv::AvgPoolAttributes avg_attributes() const {
        poolconv::AvgPoolAttributes a;
        fill(a);
        a.pad_mode = poolconv::AvgPadMode::exclude_pad;
        return a;
    }
    // Output shape and the pads poolconv applies.
    poolconv::PoolGeometry geometry() const {
        poolconv::PoolAttributes a;
        fill(a);
        return poolconv::infer_pool_shape(input_shape, a);
    }

private:
    void fill(poolconv::PoolAttributes &a) const {
        a.kernel = kernel;
        a.strides = strides;
        a.pads_begin = pads_begin;
        a.pads_end = pads_end;
        a.rounding = rounding;
    }
};

inline std::vector<PoolCase> pool_cases() {
    using poolconv::Rounding;
    std::vector<PoolCase> c;
    c.push_back({"P1", "maxpool 1x64x112x112 k3 s2 p1", PoolOp::max, false, {1, 64, 112, 112}, {3, 3}, {2, 2},
                 {1, 1}, {1, 1}, Rounding::floor});
    c.push_back({"P2", "maxpool 1x64x224x224 k2 s2", PoolOp::max, false, {1, 64, 224, 224}, {2, 2}, {2, 2}, {}, {},
                 Rounding::floor});
    c.push_back({"P3", "maxpool 1x192x28x28 k3 s1 p1", PoolOp::max, false, {1, 192, 28, 28}, {3, 3}, {1, 1},
                 {1, 1}, {1, 1}, Rounding::floor});
    c.push_back({"P4", "avgpool exclude-pad 1x288x35x35 k3 s1 p1", PoolOp::avg, false, {1, 288, 35, 35}, {3, 3},
                 {1, 1}, {1, 1}, {1, 1}, Rounding::floor});
    c.push_back({"P5", "maxpool3d 1x32x32x64x64 k2 s2", PoolOp::max, false, {1, 32, 32, 64, 64}, {2, 2, 2},
                 {2, 2, 2}, {}, {}, Rounding::floor});
    // OpenVINO rounding_type=ceil. Without padding ceil and ceil_torch agree here (27x27).
    c.push_back({"P6", "maxpool 1x96x55x55 k3 s2 ceil", PoolOp::max, false, {1, 96, 55, 55}, {3, 3}, {2, 2}, {},
                 {}, Rounding::ceil});
    c.push_back({"P7", "maxpool 1x64x112x112 k3 s2 p1, i64 indices", PoolOp::max, true, {1, 64, 112, 112}, {3, 3},
                 {2, 2}, {1, 1}, {1, 1}, Rounding::floor});
    c.push_back({"P8", "global avgpool 1x2048x7x7 (k7)", PoolOp::avg, false, {1, 2048, 7, 7}, {7, 7}, {1, 1}, {},
                 {}, Rounding::floor});
    c.push_back({"P9", "maxpool 32x64x56x56 k3 s2 p1", PoolOp::max, false, {32, 64, 56, 56}, {3, 3}, {2, 2},
                 {1, 1}, {1, 1}, Rounding::floor});
    // Beyond the pooling issue's list: unequal strides, as in CRNN's text recognizers (2x2 windows,
    // strides (2, 1), padding (0, 1): rows halve, columns keep their count). Strides (2, 1) once
    // took 4x the time they take now, for want of a specialization (cd78e13 added it).
    c.push_back({"P10", "maxpool 1x256x16x128 k2 s(2,1) p(0,1)", PoolOp::max, false, {1, 256, 16, 128}, {2, 2},
                 {2, 1}, {0, 1}, {0, 1}, Rounding::floor});
    // P1's window as an average (GoogLeNet's and Inception's strided average pools): the
    // rows-first AvgPool kernel's case (P4's stride-1 window takes the flat-plane kernel).
    c.push_back({"P11", "avgpool exclude-pad 1x64x112x112 k3 s2 p1", PoolOp::avg, false, {1, 64, 112, 112}, {3, 3},
                 {2, 2}, {1, 1}, {1, 1}, Rounding::floor});
    return c;
}

struct ConvCase {
    std::string id;           // "C1" ... "C11"
    std::string description;
    std::vector<int64_t> input_shape;
    std::vector<int64_t> weights_shape;  // ONNX: C_out, C_in / group, k...
    int64_t group = 1;
    std::vector<int64_t> strides;    // empty: all 1
    std::vector<int64_t> dilations;  // empty: all 1
    std::vector<int64_t> pads;       // both ends; empty: all 0

    poolconv::ConvAttributes attributes() const {
        poolconv::ConvAttributes a;
        a.strides = strides;
        a.dilations = dilations;
        a.pads_begin = pads;
        a.pads_end = pads;
        a.group = group;
        return a;
    }
    poolconv::ConvGeometry geometry() const {
        return poolconv::infer_conv_shape(input_shape, weights_shape, attributes());
    }
    // Multiply-adds count 2 FLOPs; the bias add is not counted.
    double flops() const {
        double macs = 1;
        for (int64_t d : geometry().output_shape) macs *= static_cast<double>(d);
        for (std::size_t i = 1; i < weights_shape.size(); i++) macs *= static_cast<double>(weights_shape[i]);
        return 2 * macs;
    }
};

// Every convolution has a bias.
inline std::vector<ConvCase> conv_cases() {
    std::vector<ConvCase> c;
    c.push_back({"C1", "conv 1x64x56x56 * 64x64x3x3 p1", {1, 64, 56, 56}, {64, 64, 3, 3}, 1, {}, {}, {1, 1}});
    c.push_back({"C2", "conv 1x3x224x224 * 64x3x7x7 s2 p3", {1, 3, 224, 224}, {64, 3, 7, 7}, 1, {2, 2}, {}, {3, 3}});
    c.push_back({"C3", "conv 1x256x56x56 * 64x256x1x1", {1, 256, 56, 56}, {64, 256, 1, 1}, 1, {}, {}, {}});
    c.push_back({"C4", "conv 1x256x14x14 * 256x256x3x3 p1", {1, 256, 14, 14}, {256, 256, 3, 3}, 1, {}, {}, {1, 1}});
    c.push_back({"C5", "depthwise conv 1x144x56x56 * 144x1x3x3 group 144 p1", {1, 144, 56, 56}, {144, 1, 3, 3}, 144,
                 {}, {}, {1, 1}});
    c.push_back({"C6", "conv 1x256x32x32 * 256x256x3x3 dilation 2 p2", {1, 256, 32, 32}, {256, 256, 3, 3}, 1, {},
                 {2, 2}, {2, 2}});
    c.push_back({"C7", "conv3d 1x16x16x56x56 * 32x16x3x3x3 p1", {1, 16, 16, 56, 56}, {32, 16, 3, 3, 3}, 1, {}, {},
                 {1, 1, 1}});
    c.push_back({"C8", "conv1d 1x256x4096 * 256x256x3 p1", {1, 256, 4096}, {256, 256, 3}, 1, {}, {}, {1}});
    c.push_back({"C9", "conv 8x64x56x56 * 64x64x3x3 p1", {8, 64, 56, 56}, {64, 64, 3, 3}, 1, {}, {}, {1, 1}});
    // Beyond the convolution issue's list: a patchify stem (ConvNeXt: 4x4 windows at stride 4, no
    // overlap) and a 1-D depthwise layer (a Conformer convolution module's 31 taps).
    c.push_back({"C10", "conv 1x3x224x224 * 96x3x4x4 s4", {1, 3, 224, 224}, {96, 3, 4, 4}, 1, {4, 4}, {}, {}});
    c.push_back({"C11", "depthwise conv1d 1x256x512 * 256x1x31 group 256 p15", {1, 256, 512}, {256, 1, 31}, 256, {}, {},
                 {15}});
    return c;
}

}  // namespace poolconv_bench
