// What the pooling runtime (which checks a call's geometry) and the pooling schedules (which
// compute whole vectors) agree on. Plain C++, no Halide.
#pragma once

#include <cstdint>

namespace poolconv {

// Pooling kernels compute a row's outputs in whole vectors, so the last vector of a row computes
// up to this many outputs past its end (64 lanes: AVX-512 with 1-byte values), reading the
// windows those would have. Every coordinate those windows read must fit in int32 too.
constexpr int kMaxPoolOvercompute = 63;

// Padded values-only kernels pool this many output rows per step (schedules/pooling_schedule.cpp
// says why), so the last step may compute up to kPooledRowsPerStep - 1 rows past the last output
// row (into nothing kept), reading the input rows their windows would.
constexpr int kPooledRowsPerStep = 2;

// The padded kernels' parallel tasks hold at most this many planes (padded_planes_per_task,
// schedules/pooling_schedule.cpp); where the runtime calls the argmax kernel a few planes at a
// time (runtime/pooling.cpp), it gives each call at least this many planes per worker thread.
constexpr int kMaxPlanesPerTask = 8;

// The rows-first kernels (MaxPool's and AvgPool's generate_rows_first,
// generators/pooling_generator.cpp) reduce the window rows of this many output rows per step, into
// a scratch band of as many rows.
constexpr int kRowsFirstBandRows = 8;

// The unpadded kernels read the input in place, so no lane may compute a window past a row's end:
// they pool rows of at least one vector in whole vectors, the last one shifted inwards, and on
// 512-bit SIMD (AVX-512) those that work in f32 (f32, bf16 and f16 data, except f16 MaxPool, which
// compares integer keys) also pool rows of at least half a vector (8 lanes) in half vectors.
// Narrower rows run in scalar code there (schedules/pooling_schedule.cpp says why);
// unpadded_kernel_pays sends them to the padded or rows-first kernels. Only there: the half
// vectors of AVX2 (4 f32 lanes), of f64 and of 8-bit MaxPool were not measured. `works_in_f32` is
// worked out on each side from what that side knows, the schedule from the kernel's work type,
// the runtime's rule from the call's data type and operator: change both together.
constexpr bool unpadded_half_vector_rows(int vector_bytes, bool works_in_f32) {
    return vector_bytes >= 64 && works_in_f32;
}

// The flat-plane kernels (MaxPool's and AvgPool's generate_flat_plane) specialize these k x k
// windows with pads of k / 2 (straight-line taps: in the kernels' general path a window's taps are
// loops, where 7x7 took 1.9-2.4x the time, 9x9 1.2-1.3x, 13x13 1.1-1.4x); flat_plane_kernel_pays
// takes the 5x5 to 13x13 ones, and AvgPool's 3x3, on wider planes than other windows.
// 3x3: GoogLeNet's and Inception's pools; 5x5, 9x9 and 13x13: YOLO's spatial pyramid pools; 7x7,
// between them, the general path's slowest of those measured.
constexpr int kFlatPlaneSquareWindows[] = {3, 5, 7, 9, 13};

// Whether a window is the k x k one of kFlatPlaneSquareWindows with pads of k / 2 along x and y.
// T is int32_t for the runtime's rule, Halide::Expr for the schedule's specializations.
template <typename T>
auto centred_square_window(int k, const T &kernel_x, const T &kernel_y, const T &pad_x, const T &pad_y) {
    return kernel_x == k && kernel_y == k && pad_x == k / 2 && pad_y == k / 2;
}

// Besides the padded kernels, which copy each plane once into a padded scratch, the runtime may
// call kernels that read the input in place: where every window lies inside the input, the
// unpadded kernels (generators/pool_window.h, padded=false), converting each tap; elsewhere, for
// f32 MaxPool (values only) and AvgPool, the rows-first kernels. And for stride-1 windows that
// keep the plane's size, the same operators' flat-plane kernels, which copy each plane flat (a
// margin above and below it, no padding columns). What the rules below need to know of a call (window numbers
// in Halide axis order: 0 = x, 1 = y, 2 = z; 1 along the axes a call lacks):
struct PoolKernelCall {
    bool avg = false;         // AvgPool (sums); else MaxPool, values only
    bool f16 = false;         // f16 data: each tap converted to f32 (MaxPool's then encoded as a key)
    bool bf16 = false;        // bf16 data: each tap converted to f32 (a shift)
    bool eight_bit = false;   // i8 or u8 MaxPool: compares its own type, no conversion
    int compared_bytes = 4;   // the type compared or summed (and the padded scratch's): 1 for 8-bit
                              // MaxPool, 8 for f64, else 4 (f32, f16 keys, bf16 as f32)
    int32_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad_begin[3] = {0, 0, 0};
    int64_t output_width = 1;  // outputs per row
    // The call is one the flat-plane kernels compute (the runtime checks: stride 1 and dilation 1
    // along x and y, pads inside the window, the output plane the input's size, one plane deep
    // at stride 1 with as many output planes as input ones, dense rows).
    bool flat_plane = false;
    // The path's SIMD (schedules/vector_bytes.h); vector_bytes 0 for a path the rule was not
    // measured on: the GPUs, and an autoscheduler's kernels.
    int vector_bytes = 0;
    bool converts_f16 = false;
};

// Whether the unpadded kernel is the faster for such a call. Measured on Zen 4 on the AVX-512, AVX2
// and baseline paths, every type and both operators (docs/PERFORMANCE_HISTORY.md, "2026-11-29,
// 9d29585", has the table; figures below: the unpadded kernel's time over the padded one's), with
// the unpadded kernels' tasks of one plane, before 27f2303 (their larger tasks since then made them
// faster still, at 2 threads most: not measured against this rule).
//   - A row narrower than one vector: the padded or rows-first one. The unpadded kernels' rows of
//     at least one vector are specialized (the last vector shifted inwards); a narrower row was a
//     guarded vector, computed lane by lane, without the hot windows' constant taps: f32 2x2/2 on
//     28x28 planes (14 outputs, 16 lanes) 6.5-8.1 on AVX-512, 8-bit MaxPool's 64-lane rows 19-84
//     there (it is scalar code since, which builds in seconds, its speed not measured:
//     pooling_schedule.cpp).
//   - But on AVX-512 rows of half a vector or more in the kernels that work in f32
//     (unpadded_half_vector_rows), which pool those in half vectors: f32 data, and bf16 and f16
//     data in disjoint windows. Measured against the rows-first or padded kernel (Zen 5, 1 / 2
//     threads, two or three runs; docs/PERFORMANCE_HISTORY.md, "2026-12-02, 032d30a.."): f32
//     MaxPool 2x2/2 on 28x28 planes (VGG) 0.31-0.36, 3x3/2 on 27x27 (AlexNet) 0.43-0.57, AvgPool
//     2x2/2 on 28x28 0.36-0.49 (f32's other windows follow these, not measured); bf16 2x2/2
//     0.51-0.81; f16 AvgPool 2x2/2 0.75-0.88 on 512 planes, 0.79-1.07 on 256. Not bf16 MaxPool's
//     overlapping windows (3x3/2 on 27x27 1.11-1.19; bf16 and f16 AvgPool's, not measured, follow
//     it), nor f16 MaxPool (2x2/2 1.32-1.37: keys encoded at each tap; its kernel builds no half
//     vectors).
//   - f16 MaxPool encodes each tap as a key (five vector instructions): disjoint windows only
//     (2x2x2/2 0.76-0.98, 2x2/2 0.86-1.20, but 3x3/2 1.03-1.44). f16 on the baseline, which
//     emulates the conversion: never (1.3-2.6 wherever measured).
//   - 8-bit MaxPool: always (0.19-0.89; on the baseline 2x2/1 1.02).
//   - Otherwise (f32, bf16, f64; AvgPool of f16 too): always, except 2-D undilated 3x3 windows
//     at stride 1, which the padded kernels step two rows at a time, sharing the rows' x stages
//     (MaxPool 1.07-1.65, and 0.83-1.33 with the whole-window unpadded kernels of 811c796, slower
//     on 56- and 112-wide planes; AvgPool 0.76-1.38: faster or slower by path, type and thread
//     count). 2x2/1: MaxPool f32 0.49-0.77 (811c796's kernels, AVX-512, AVX2 and the baseline),
//     f64 0.41-0.75, bf16 0.75-0.93 on AVX-512 but on AVX2 0.75-0.82 on 28-wide and 1.16-1.28 on
//     56-wide planes (taken anyway: one rule per type family), AvgPool 0.81-1.05. Elsewhere
//     0.24-1.00 (MaxPool 3x3/2 0.77-0.92 on the AVX paths and level on the baseline with the
//     kernels before 811c796, which then took 0.69-0.89 of that time): the padded kernels
//     specialize 2x2 and 3x3 windows only, and their copy costs more than it saves.
//   NEON follows the AVX2 figures (not measured); unequal strides along x and y (3x3 at (2, 1))
//   were not measured either.
inline bool unpadded_kernel_pays(const PoolKernelCall &c) {
    int64_t taps = 1, strides = 1;
    for (int a = 0; a < 3; a++) {
        taps *= c.kernel[a];
        strides *= c.stride[a];
    }
    const bool disjoint = taps <= strides;
    if (c.vector_bytes == 0) return disjoint;
    // Rows of half a vector where the kernel has them (works_in_f32: the schedule's test, from the
    // call) and they paid: f32, and bf16 and f16 in disjoint windows; one vector elsewhere.
    const int64_t lanes = c.vector_bytes / c.compared_bytes;
    const bool works_in_f32 = c.compared_bytes == 4 && !(c.f16 && !c.avg);
    const bool half_rows = unpadded_half_vector_rows(c.vector_bytes, works_in_f32) && (!(c.bf16 || c.f16) || disjoint);
    if (c.output_width < (half_rows ? lanes / 2 : lanes)) return false;
    if (c.f16 && !c.converts_f16) return false;
    if (c.f16 && !c.avg) return disjoint;
    if (c.eight_bit) return true;
    const bool stride_one_box = c.kernel[0] == c.kernel[1] && c.kernel[2] == 1 && c.stride[0] == 1 &&
                                c.stride[1] == 1 && c.dilation[0] == 1 && c.dilation[1] == 1;
    return !(stride_one_box && c.kernel[0] == 3);
}

// Where the padded kernel would run otherwise, f32 MaxPool (values only) and f32 AvgPool take the
// rows-first kernels (generate_rows_first in generators/pooling_generator.cpp; built for the AVX2
// and AVX-512 paths), which read the input in place where the padded kernels copy (MaxPool: and
// encode) each plane first. One rule for both: the same windows pay.
// AvgPool, measured on Zen 4 (docs/PERFORMANCE_HISTORY.md, 2026-11-29, "AvgPool rows first"; its
// time over the padded kernel's, fastest of 9 interleaved turns, AVX-512 1 / 2 threads, AVX2 1 / 2):
// 3x3/2 pad 1 on 112x112 0.62 / 0.63, 0.54 / 0.57, on 56x56 0.81 / 0.78, 0.62 / 0.63; 3x3/2 and 2x2/2
// ceil on 55x55 0.82-0.90 / 0.74-0.84, 0.78-0.88 / 0.74-0.83; 5x5/1 0.59 / 0.58, 0.65 / 0.64; 3-D
// 3x3x3/2 0.69 / 0.67, 0.71 / 0.70; 1-D 3/2 0.55 / 0.55, 0.85 / 0.83; 3x3/2 dilated 2 0.52 / 0.54,
// 0.62 / 0.71. Not taken, as for MaxPool: 3x3/1 1.08-1.33 / 1.02-1.23 (AVX2 0.90-1.16 /
// 0.89-1.19: 56x56 planes faster, 14x14 to 35x35 slower), 2x2/1 1.21 / 1.17, 1.05 / 1.04, and
// that with a rows-first kernel that specialized these windows as well (the one built does not:
// 1.3-2.1x that time on them).
// MaxPool, measured on Zen 4 at 1 and 2 threads (docs/PERFORMANCE_HISTORY.md, "2026-11-29,
// dd090da", has the table; figures: its time over the padded kernel's, AVX-512, fastest / median),
// before 27f2303 gave the rows-first kernels larger tasks (0.65-1.0 of their time since, at 2
// threads; the excluded stride-1 windows not measured again):
//   - Taken: 3x3/2 0.70-0.97 at 1 thread (ResNet's stem 0.70-0.75), 0.45-0.89 at 2; 5x5/2 0.60-0.65,
//     3x3/3 0.27-0.29, 3-D 3x3x3/2 0.65-0.74, 1-D 3/2 0.67-0.70, 5x5/1 0.50-0.53, 2x2 at strides
//     (2, 1) 0.51-0.73; AVX2 0.51-0.89 on all of these. Also 2x2/2, though at 1 thread on rows
//     narrower than a vector 1.15-1.26 (and over 55x55 planes 0.83 / 1.14): at 2 threads 0.62-0.77,
//     on AVX2 0.77-0.89.
//   - Dilated windows (the padded kernel's general path): 3x3/2 dilated 2 and 3 0.50-0.62 at 1
//     thread, 0.53-0.73 at 2, 2x2/2 dilated 2 0.62-0.74, 3x3/1 dilated 2 0.45-0.53; AVX2
//     0.55-0.75.
//   - Not taken: undilated windows of 2 or 3 rows at stride 1 along y, where the padded kernel
//     shares the x stages of two output rows: 3x3/1 1.16-1.41 and 2x2/1 1.38 at 1 thread (at 2
//     threads 0.63-1.34, three of the four faster; AVX2 0.77-1.50).
//   - Not taken: windows of a single tap (1x1): the rows-first kernels start each reduction at its
//     first tap, so MaxPool's would pass a NaN on as it is, where the output must be the canonical
//     NaN (the padded kernel's keys give it).
// An autoscheduler's kernels and the GPU paths (vector_bytes 0) keep the padded kernel.
inline bool rows_first_kernel_pays(const PoolKernelCall &c) {
    if (c.vector_bytes == 0 || c.f16 || c.eight_bit) return false;
    if (c.kernel[0] * c.kernel[1] * c.kernel[2] == 1) return false;
    return !(c.stride[1] == 1 && c.dilation[1] == 1 && (c.kernel[1] == 2 || c.kernel[1] == 3));
}

// Where the flat-plane call holds (PoolKernelCall::flat_plane), f32 MaxPool (values only) and f32
// AvgPool take the flat-plane kernels (generate_flat_plane in generators/pooling_generator.cpp;
// built for the AVX2 and AVX-512 paths), which pool each plane as one flat row where the padded
// kernels run a loop per row, and the rows-first kernels a band of rows. Measured on Zen 4
// (docs/PERFORMANCE_HISTORY.md, "2026-11-30"; time over the kernel the call would take otherwise,
// 9 interleaved turns, AVX-512 at 1 and 2 threads, then AVX2):
//   - The specialized 5x5, 7x7, 9x9 and 13x13 windows, against the rows-first kernels (medians),
//     on planes 13 to 112 wide: MaxPool 5x5 0.38-0.56, 7x7 0.46-0.68, 9x9 0.57-0.79, 13x13
//     0.45-1.04 (on 112x112 1.01 / 1.04, taken anyway: AVX2 0.81-0.83, AvgPool 0.82-0.94), AVX2
//     0.26-0.84; AvgPool 0.27-0.94, AVX2 0.22-0.86. On four 224x224 planes AvgPool's 7x7 to
//     13x13 took 1.40-1.55x the time at 2 threads, 5x5 0.78 (MaxPool 5x5 0.62-0.63, AVX2 both
//     0.35-0.46): 5x5 taken up to 224 wide, the others up to 112.
//   - 3x3 windows with pads of 1 (specialized too), against the padded kernels (fastest; the
//     rows-first kernels leave 2- and 3-row windows at stride 1 alone): MaxPool on 35x35 0.77 /
//     0.77, 28x28 0.76 / 0.75, 14x14 0.64 / 0.63, 7x7 0.54 / 0.54, 40x40 0.85 / 0.83 but AVX2 1.15
//     / 1.17, 48x48 1.02-1.04, AVX2 1.13-1.16: MaxPool up to 39 wide. AvgPool (exclude-pad)
//     0.48-0.67 up to 40 wide, 42x42 0.72 / 0.75, 48x48 0.96 / 0.82, 56x56 0.81 / 0.81, AVX2
//     0.55-0.88; 64x64 0.98-1.00, AVX2 0.96: AvgPool up to 56 wide.
//   - Other windows of at least 3x3 (the kernel's general path, whose taps are loops): against
//     the rows-first kernels on 48- to 56-wide planes 7x7 and 9x9 (before they were specialized)
//     0.90-1.06, AVX2 1.14-1.31, 4x4 0.83-1.03, AVX2 0.97-1.06: up to 39 wide.
//   - Not taken: 2x2 windows (2x2/1 on 30x30 took 2.2 / 1.9 the padded kernel's time in the
//     first flat-plane kernels: the padded kernels specialize them, this kernel does not).
inline bool flat_plane_kernel_pays(const PoolKernelCall &c) {
    if (!c.flat_plane || c.vector_bytes == 0 || c.f16 || c.eight_bit) return false;
    if (c.kernel[0] < 3 || c.kernel[1] < 3) return false;
    bool specialized = false;  // one of kFlatPlaneSquareWindows
    for (int k : kFlatPlaneSquareWindows) {
        specialized = specialized || centred_square_window(k, c.kernel[0], c.kernel[1], c.pad_begin[0], c.pad_begin[1]);
    }
    if (specialized && c.kernel[0] == 5) return c.output_width <= 224;
    if (specialized && c.kernel[0] > 5) return c.output_width <= 112;
    if (specialized && c.avg) return c.output_width <= 56;
    return c.output_width < 40;
}

}  // namespace poolconv
