// What the pooling runtime (which checks a call's geometry) and the pooling schedules (which
// compute whole vectors) agree on. Plain C++, no Halide.
#pragma once

namespace poolconv {

// Pooling kernels compute a row's outputs in whole vectors, so the last vector of a row computes
// up to this many outputs past its end (64 lanes: AVX-512 with 1-byte values), reading the
// windows those would have. Every coordinate those windows read must fit in int32 too.
constexpr int kMaxPoolOvercompute = 63;

}  // namespace poolconv
