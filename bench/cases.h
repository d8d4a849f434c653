// The pooling shapes poolconv_bench measures (all f32, NC[D]HW in and out).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "poolconv/pooling.h"

namespace poolconv_bench {

enum class PoolOp { max, avg };

struct PoolCase {
    std::string id;           // "P1" ... "P9": the first part of every benchmark name
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
    return c;
}

}  // namespace poolconv_bench
