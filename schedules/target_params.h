// The few numbers a schedule needs to know about the machine it is compiled for.
//
// Schedules never test target features themselves: they read a TargetParams, computed once per
// Target by target_params(). Each supported target has its table in its own file
// (x86_avx512.cpp, x86_avx2.cpp, arm_neon.cpp, ...), so adding NEON or CUDA means adding a file, not editing plans.
#pragma once

#include "Halide.h"

namespace poolconv::schedules {

// The block of convolution results one step of the inner loop keeps in registers: x_vectors
// vectors along output x, times `channels` output channels, times `rows` output rows. Each tap
// then loads x_vectors * rows input vectors (shared by the channels) and `channels` weights
// (broadcast), and issues x_vectors * channels * rows FMAs. `channels` must divide
// kOutputChannelBlock (schedules/conv_packing.h).
struct ConvTile {
    int x_vectors;
    int channels;
    int rows;
};

struct TargetParams {
    const char *name;            // for STMT headers and logs, e.g. "x86-avx512"
    int vector_bytes;            // width of one SIMD register in bytes
    int vector_registers;        // architectural SIMD registers available to accumulators and taps
    ConvTile conv_tile;          // convolution, any group size
    ConvTile row_pair_tile;      // undilated 3x3(xk) kernels, equal x and y strides: rows share input rows
    ConvTile depthwise_tile;     // convolution with one input and one output channel per group
    ConvTile depthwise_1d_tile;  // the same, output one row high (1-D): a row's columns only
    ConvTile pointwise_tile;     // 1x1 convolution: no taps to unroll, so the registers all go to the tile
    ConvTile channel_vector_tile;  // channel vectors: x_vectors counts columns, channels are the vectors
    ConvTile one_vector_tile;    // the general plan's, where the CPU halves its 512-bit FMAs (Zen 4)
    // The ISA stores part of a vector with one cheap instruction (AVX-512's mask registers). Where
    // it does not (AVX2's `vmaskmovps` store is slow on AMD cores; SSE and NEON have none, so
    // Halide stores lane by lane), pooling keeps guarded vectors out of its per-row loops
    // (schedules/pooling_schedule.cpp).
    bool masked_stores = false;
    // Convolution kernels (general, row pairs, channel vectors) skip the taps of window rows and
    // planes that lie in the padding, with a test at every row (plane) tap in the input-channel loop
    // (generators/convolution_generator.cpp). False where that test cost more than the taps it
    // saves.
    bool conv_skips_padding_rows = false;
    // The MaxPool and AvgPool kernels that read their input in place (unpadded and rows first)
    // prefetch it this many bytes ahead of each dense load (schedules/prefetch_ahead.h); 0: no
    // prefetch. Their loads wait on memory where the hardware prefetchers fall behind a stream of
    // strided windows.
    int in_place_prefetch_bytes = 0;
    // Convolution input copies at stride 1 (general, one-vector and row-pair kernels): on output
    // rows narrower than whole_vector_copy_columns, vectors of at most narrow_row_copy_lanes lanes,
    // so that each row's first and last vectors, which cross the padding and are gathers of
    // clamped columns, stay short; wider rows in whole vectors, where those two gathers are a few
    // vectors in a hundred. 0 lanes: whole vectors on every row.
    int narrow_row_copy_lanes = 0;
    int whole_vector_copy_columns = 0;
    // GPU targets (CUDA, OpenCL): the plans map output tiles onto thread blocks instead of SIMD
    // registers (schedules/*_gpu.cpp); ConvTile::channels is then the output channels per thread.
    bool gpu = false;
    // The GPU API runs a block's threads as warp lanes that can share registers (CUDA): a
    // block-level accumulator array is then striped across the lanes' registers. Elsewhere
    // (OpenCL) each thread keeps the whole array in private memory.
    bool gpu_warp_lanes = false;

    // Lanes of one SIMD register for elements of type t.
    int lanes(const Halide::Type &t) const { return vector_bytes / t.bytes(); }
};

// Tables, one per target family; each defined in its own file.
TargetParams x86_avx512_params();
TargetParams x86_avx2_params();
TargetParams x86_baseline_params();
TargetParams arm_neon_params();
TargetParams gpu_params(bool warp_lanes);

// Picks the table for a Halide target (aborts with a clear message for targets we do not schedule).
TargetParams target_params(const Halide::Target &target);

}  // namespace poolconv::schedules
