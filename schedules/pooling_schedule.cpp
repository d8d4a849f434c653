// Pooling schedule: one plan for every target, sized by TargetParams.
//
// Plan (NCDHW, x = W is unit-stride):
//   output:  for n, for c (both parallel, whole planes per task: padded kernels as many as fit
//            in L1 with their copies, kernels that read in place about 256 KiB of input, in at
//            least 4 tasks per thread) / for z / for y / for x in vectors of L lanes
//            (L = one register of the widest per-lane state; the last vector of a row is guarded,
//            or shifted inwards: in unpadded kernels, and where masked stores are slow; unpadded
//            kernels on AVX-512 pool rows narrower than L, but at least L / 2, in half vectors)
//   window:  reduced along x, then y, then z (three 1-D reductions); per output vector:
//            for tap z: [for tap y: [for tap x (unrolled in threes): L lanes] L lanes] L lanes
//            every partial result one vector, in registers. Padded values-only kernels step
//            down two output rows at a time: per step and output vector, the x stage of every
//            input row the two rows' windows read (4 for 3x3 stride 1, 5 for stride 2) once,
//            then per row for tap z: [for tap y: that row's x stage] (kPooledRowsPerStep).
//            MaxPool's unpadded kernels of f32, bf16 and f64 reduce the whole window in one
//            stage instead (whole_window): per output vector, for each pair of x taps (pairs
//            and y taps unrolled in threes, z taps in twos), two maxima and a NaN test of both
//            input values, in registers.
//   input:   each plane is copied once, encoded (MaxPool keys, f32 sums) and padded, into a
//            scratch buffer (see padded_input in generators/pool_window.h): taps load dense,
//            unmasked vectors even at the borders, and padding taps need no branch. Only the
//            margin the windows reach is filled with padding (slab by slab), not the whole
//            scratch (0.88x the time on ResNet's 112x112 planes on Zen 5).
//            Unpadded kernels (generator param padded=false, which the runtime calls where every
//            window lies inside the input and they are the faster: unpadded_kernel_pays in
//            pool_limits.h, e.g. 2x2/2 on rows of a vector or more (on AVX-512 half a vector),
//            3-D 2x2x2/2, AlexNet's 3x3/2 on 55x55) read the input in place, converting at each
//            tap (MaxPool of f32, bf16 and f64 compares values there, not keys): no copy (0.6x the
//            time on Zen 5).
//   Specialized: the whole output for 2x2 and 3x3 windows with stride_x 1 or 2 (2-D) and 2x2x2
//   windows with stride_x 2 (3-D), undilated (kernels that step two rows: each also with
//   stride_y 1 or 2), with constant tap loops over dense or
//   2-way-deinterleaved loads (the x taps unrolled in threes); in the unpadded MaxPool kernels
//   also windows one row high (1-D pooling), any width and stride; then stride_x 1 or 2 with any
//   kernel (dense loads, tap loops); everything else takes the general path (gathers for
//   runtime strides).
//
// Rows first (schedule_rows_first_pooling): MaxPool's and AvgPool's kernels that reduce each
// window's rows first, reading the input in place (no padded copy), then along x over a band of
// such rows.
//
// Flat plane (schedule_flat_plane_pooling): MaxPool's and AvgPool's kernels for stride-1 windows
// that keep the plane's size, which pool each plane as one flat row of positions: no loop, and no
// vector tail, per row; chunk by chunk, straight into the output.
//
// Global pooling (schedule_global_pooling): the runtime flattens each plane into one row and the
// window covers it; taps are reduced `L` lanes at a time into partial results (rfactor), kept in
// registers on 7x7 planes; each task sums at least 64K taps.
//
// Speed: measured against oneDNN and against the copy bandwidth at each shape's footprint in
// README.md's tables (Zen 4, AVX-512, c477fe5: 12-51% of that bandwidth at 1 thread, P8 80%; the
// rows-first kernels P1 29%, P9 43%, P10 39%).
#include "schedules/pooling_schedule.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "schedules/pool_limits.h"
#include "schedules/worker_threads.h"

namespace poolconv::schedules {

using namespace Halide;

namespace {
// What a task of the padded kernels may pass through L1 (and kMaxPlanesPerTask, pool_limits.h,
// planes per task at most). 32 KiB,
// within the L1 of every x86 host measured (Zen 4 32 KiB, Zen 5 and Sapphire Rapids 48 KiB).
// A task reads its planes' input and writes and reads their padded copies (about as large), so
// both count: on an Intel Xeon (Emerald Rapids, 48 KiB L1; medians of 9 interleaved turns) P3's
// 28x28 planes took 0.91x / 0.97x the time at 1 / 2 threads five to a task instead of eight
// (the copies alone within 32 KiB), P4's 35x35 planes 0.84x / 0.92x three to a task instead of
// six (the AVX2 kernels there: P4 0.91x at 1 thread, the rest level).
// Planes whose copies alone fit twice still go two to a task: P9's 56x56 planes (12.5 KB) took
// 0.79-0.89x the time at 2 threads two to a task on Zen 4 (the Xeon: one a task 0.91x at 1
// thread, level at 2).
constexpr int kPoolTaskBytes = 32 * 1024;

// Output vectors the flat-plane kernels pool per chunk of a plane (their window rows computed
// together): 256 positions at AVX-512's 16 lanes, 128 at AVX2's 8; each chunk's rows reach one
// vector more.
constexpr int kFlatChunkVectors = 16;

// Planes per task of the padded kernels: a plane's padded copy is `copy_bytes` (its input about
// as large); input and copy within kPoolTaskBytes, or two planes where two copies alone fit.
Expr padded_planes_per_task(const Expr &copy_bytes) {
    return clamp(max(kPoolTaskBytes / (2 * copy_bytes), min(kPoolTaskBytes / copy_bytes, 2)), 1, kMaxPlanesPerTask);
}

// Kernels that read their input in place (unpadded and rows-first) have no copy to keep in L1:
// their tasks only need to outweigh a task's own cost (the thread pool's hand-off, the rows-first
// band's allocation). Sized as the padded kernels, they made tasks of a few KB: an unpadded 2x2/2
// over 1x256x32x32 (256 tasks of 4 KB) took longer at 2 threads than at 1, and rows-first P9 (1024
// tasks of two 56x56 planes) ran 1.3x faster at 2 threads than at 1; with these tasks 0.15-0.37
// and 0.65-0.68 of the time at 2 threads (Zen 4, docs/PERFORMANCE_HISTORY.md, "tasks of the
// in-place pooling kernels"). Whole planes, about kInPlaceTaskBytes of input per task (counted in
// the type the kernel works in), but at least kInPlaceTasksPerThread tasks per worker thread where
// the planes allow: without that floor 64 planes of 56x56 made 4 tasks, and 5x5 windows took
// 1.2-1.3x the time at 2 threads. An image's channels are then shared out evenly among its tasks
// (P9's 64 at 20 a task: 16 each, not 20, 20, 20 and 4). Measured at 1 and 2 threads only.
constexpr int kInPlaceTaskBytes = 256 * 1024;
constexpr int kInPlaceTasksPerThread = 4;

// Planes per task of a kernel that reads its input in place, planes of `plane_elements` elements
// of `element_bytes` each.
Expr in_place_planes_per_task(const Func &output, const Expr &plane_elements, int element_bytes) {
    const OutputImageParam out = output.output_buffer();
    const Expr channels = out.dim(3).extent(), planes = channels * out.dim(4).extent();
    // Divided one factor at a time: a plane's bytes may pass int32.
    const Expr by_bytes = kInPlaceTaskBytes / element_bytes / max(plane_elements, 1);
    const Expr wanted = max(min(by_bytes, planes / (kInPlaceTasksPerThread * worker_threads())), 1);
    const Expr tasks_per_image = (channels + wanted - 1) / wanted;
    return (channels + tasks_per_image - 1) / tasks_per_image;
}

// Output rows a padded values-only kernel pools per step (kPooledRowsPerStep, pool_limits.h).
// The windows of neighbouring output rows share input rows (3x3 stride 1: two rows read 4 input
// rows, not 6; stride 2: 5, not 6), and the x stage of each shared row is computed once per step,
// in registers, where one row per step computed it again for every window that reads it. On Zen 4
// (AVX-512; fastest / median of 5-7 interleaved turns, 1 and 2 threads) P3 took 0.74-0.92x the
// time, P4 0.83-0.91x, P1 0.84-0.93x, P9 0.87-1.08x (level); the AVX2 kernels P1 0.84-0.89x, P3
// 0.77-0.97x, P4 0.81-0.84x, P9 level. Four rows per step: P3 as two, P9 1.19x the time at 2
// threads (9 vectors of x maxima). Not the argmax kernels: their x stage is a (key, offset) pair
// per row, and P7 took 1.4-1.65x the time.
}  // namespace

void schedule_pooling(PoolingStages &s, const TargetParams &target, const Type &work_type,
                      int accumulator_bytes) {
    if (target.gpu) return schedule_pooling_gpu(s);
    const int lanes = target.vector_bytes / std::max(work_type.bytes(), accumulator_bytes);
    if (lanes - 1 > kMaxPoolOvercompute) {
        throw CompileError(std::string("pooling vectors for ") + target.name +
                           " over-compute more than schedules/pool_limits.h allows");
    }

    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &n = args[4];
    Var xo("xo"), xi("xi"), co("co"), ci("ci"), yo("yo"), yi("yi");
    const int rows_per_step = s.padded && !s.second_output.defined() ? kPooledRowsPerStep : 1;

    // Output loop nest, shared by the indices output when there is one. A parallel task (co)
    // pools whole planes: padded kernels as many small ones as kPoolTaskBytes allows, so that the
    // costs per scratch buffer (its allocation, the set-up of the six margin fills, the task
    // itself) are shared: 28x28 and 35x35 planes (Inception) took 0.95x and 0.88x the time with
    // this on Zen 5, one plane per task 1.08-1.14x. Unpadded kernels: in_place_planes_per_task.
    const Var &task = co;
    const Expr planes = s.padded ? padded_planes_per_task(s.input_plane_elements * accumulator_bytes)
                                 : in_place_planes_per_task(s.output, s.input_plane_elements, work_type.bytes());
    auto output_loops = [&](Stage f, TailStrategy tail, int vector_lanes) {
        f.split(x, xo, xi, vector_lanes, tail).vectorize(xi);
        f.split(c, co, ci, planes, TailStrategy::GuardWithIf);
        if (rows_per_step > 1) {
            // The step's rows inside the vector loop, unrolled: the x stage (computed at xo,
            // below) serves them all. An odd last row is guarded.
            f.split(y, yo, yi, rows_per_step, TailStrategy::GuardWithIf).reorder(xi, yi, xo, yo, z, ci, co, n).unroll(yi);
        } else {
            f.reorder(xi, xo, y, z, ci, co, n);
        }
        f.parallel(task).parallel(n);
    };
    if (s.second_output.defined() && !s.padded) {
        throw CompileError("the unpadded pooling plan has no indices output (build it with padded=true)");
    }
    // The last vector of a row: shifted inwards (it recomputes a few outputs of the one before) in
    // rows of at least one vector, or guarded (its store masked). Unpadded kernels read the input
    // in place, so no lane may compute a window past the end of a row: they always shift. Padded
    // kernels shift too where the target has no cheap masked store (TargetParams::masked_stores),
    // except with the indices output fused in: a Func computed with another (the indices, with
    // the values) may have no specializations, so its rows could not shift only where they are
    // a vector wide.
    const bool shift_row_ends = !s.padded || (!target.masked_stores && !s.second_output.defined());
    // The row widths whose last vector shifts, widest first: (rows at least this wide, lanes).
    // Unpadded kernels that work in f32 on AVX-512 also pool rows of half a vector or more in half
    // vectors (unpadded_half_vector_rows, pool_limits.h; works_in_f32 is f32, bf16 and f16 data but
    // f16 MaxPool's keys, which unpadded_kernel_pays works out from the call).
    const Expr width = s.output.output_buffer().dim(0).extent();
    const bool works_in_f32 = work_type == Float(32) && accumulator_bytes == 4;
    std::vector<std::pair<Expr, int>> shifted_rows;
    if (shift_row_ends) shifted_rows.emplace_back(width >= lanes, lanes);
    if (!s.padded && unpadded_half_vector_rows(target.vector_bytes, works_in_f32)) {
        shifted_rows.emplace_back(width >= lanes / 2, lanes / 2);
    }
    // Where the hot windows are specialized (below): the whole output, or each of those paths.
    std::vector<Stage> hot_paths;
    for (const auto &[rows_wide_enough, vector_lanes] : shifted_rows) {
        Stage path = s.output.specialize(rows_wide_enough);
        output_loops(path, TailStrategy::ShiftInwards, vector_lanes);
        hot_paths.push_back(path);
    }
    if (hot_paths.empty()) hot_paths.push_back(s.output);
    output_loops(s.output, TailStrategy::GuardWithIf, lanes);
    if (s.second_output.defined()) {
        output_loops(s.second_output, TailStrategy::GuardWithIf, lanes);
        s.second_output.compute_with(s.output, xo);
    }

    for (Func table : s.axis_tables) table.compute_root();

    // The (encoded, padded) input of a plane, copied into a scratch buffer before the plane is
    // pooled: every element once, densely, however many windows share it; every tap then loads
    // a dense vector, also in the border vectors. (Copying per output row would need a sliding
    // window, which Halide cannot prove monotonic for a runtime stride.) The copy and the margin
    // fills run in vectors (guarded), each row of the scratch starting at a whole vector; the
    // margin columns (a pad wide, usually one element) too where masked stores are cheap,
    // element by element elsewhere: a vector guarded down to one lane is a masked store per row,
    // and AVX2's `vmaskmovps` store is slow on AMD cores (24% of AVX2 P4's samples on Zen 4).
    // Unpadded kernels have no copy: the conversion is inlined into the taps.
    if (s.padded) {
        s.padded_input.compute_at(s.output, task).align_storage(s.padded_input.args()[0], lanes);
        for (int slab = 0; slab < 6; slab++) {
            const bool margin_column = slab >= 4;
            if (margin_column && !target.masked_stores) {
                s.padded_input.update(slab).unscheduled();  // element by element, as written
                continue;
            }
            s.padded_input.update(slab).vectorize(s.padding_margins[slab].x, lanes, TailStrategy::GuardWithIf);
        }
        s.padded_input.update(kPaddedInputCopy).vectorize(s.input_elements.x, lanes);
    }

    // The stages, innermost first, each one vector of `lanes` outputs computed inside the tap
    // loop of the stage that consumes it: along_z per output vector, along_y per z tap, along_x
    // per y tap. Padded kernels: bound_extent keeps every stage a constant-size (register)
    // vector, also when the indices output is fused in: the last, guarded vector of a row
    // over-computes lanes, whose taps read scratch past the margin (allocated, never written),
    // into results no output keeps. Unpadded kernels: whole output vectors make every stage a
    // whole vector too (half vectors in the half-vector rows of AVX-512), except in narrower rows,
    // where the stages run lane by lane (no load past the input; below), which is why the runtime
    // sends such rows to the padded or rows-first kernels (unpadded_kernel_pays, pool_limits.h).
    // With rows_per_step rows per step, the x stage is computed once per step (below), and the
    // rest per output vector of each row.
    // One stage for the whole window (whole_window: unpadded kernels only): a vector computed per
    // output vector, its pairs of x taps and its y taps unrolled in threes and its z taps in twos
    // (the hot windows' constant tap loops disappear).
    if (s.whole_window && s.padded) throw CompileError("whole-window pooling stages are for unpadded kernels");
    const int stage_count = s.whole_window ? 1 : 3;
    // The argmax kernels' y taps are unrolled (below): their x stage is computed inside the
    // unrolled tap loop.
    const bool unroll_row_taps = s.second_output.defined();
    const RVar tap_y = unroll_row_taps ? RVar("taps_y_i") : s.taps[1], tap_z = s.taps[2];
    const LoopLevel sites[3] = {s.whole_window ? LoopLevel(s.output, xo) : LoopLevel(s.along[1], tap_y),
                                LoopLevel(s.along[2], tap_z), LoopLevel(s.output, rows_per_step > 1 ? yi : xo)};
    for (int a = 0; a < stage_count; a++) {
        const std::vector<Var> stage_args = s.along[a].args();
        const Var &sx = stage_args[0];
        if (a == 0 && rows_per_step > 1) {
            // The x stage of every input row (and z plane) the step's windows read, one vector
            // each: a constant count (so registers) in the specializations below, which fix the
            // window and both strides. Its storage is hoisted to the task, so the general path's
            // runtime-sized one is allocated once per task, not per vector.
            const Var &sy = stage_args[1], &sz = stage_args[2];
            const Expr rows_read = (rows_per_step - 1) * s.stride[1] + (s.kernel[1] - 1) * s.dilation[1] + 1;
            s.along[0].compute_at(s.output, xo).hoist_storage(s.output, task);
            s.along[0].bound_extent(sx, lanes).bound_extent(sy, rows_read);
            s.along[0].bound_extent(sz, (s.kernel[2] - 1) * s.dilation[2] + 1);
            for (int d = 3; d < 5; d++) s.along[0].bound_extent(stage_args[d], 1);
            // Rows unrolled, up to the 5 of the specialized windows (guarded beyond).
            s.along[0].vectorize(sx).unroll(sy, 8, TailStrategy::GuardWithIf);
            s.along[0].update().reorder(sx, s.taps[0]).vectorize(sx).unroll(sy, 8, TailStrategy::GuardWithIf);
            // The y taps unrolled, so each reads one of those vectors by a constant index.
            s.along[1].update().unroll(s.taps[1], 3, TailStrategy::GuardWithIf);
            continue;
        }
        s.along[a].compute_at(sites[a]);
        for (int d = 1; d < 5; d++) s.along[a].bound_extent(stage_args[d], 1);
        if (s.padded) {
            s.along[a].bound_extent(sx, lanes).vectorize(sx);
            s.along[a].update().reorder(sx, s.taps[a]).vectorize(sx);
        } else if (s.whole_window) {
            s.along[a].update().reorder(sx, s.taps[0], s.taps[1], s.taps[2]);
        } else {
            s.along[a].update().reorder(sx, s.taps[a]);
        }
    }
    // The taps along x in threes, unrolled (guarded beyond the window): Halide 21 leaves LLVM no
    // loop to unroll, where LLVM 14 unrolled the specialized windows' constant tap loops itself.
    // Not along y or z: the stage before is computed inside those tap loops, one row per tap
    // (except in the whole-window stage, which has no stage before it). Except along y in the
    // argmax kernels, in threes (each unrolled tap computing its own row): they take each stage's
    // first tap without a compare, which needs the tap's index a constant, as it is in windows of
    // at most 3 rows (larger windows test each group's first tap at run time). Without it the
    // runtime test cost P7 1.15x the time on Zen 4 with AVX-512, 1.16x with AVX2. Their z taps
    // stay a loop: in 2-D windows (one plane, a loop Halide removes) the index is a constant
    // anyway; unrolled in twos as well, they took P7 the same time and one argmax kernel 17.3 s
    // to generate instead of 10.5 (8.2 s before the y unroll).
    s.along[0].update().unroll(s.taps[0], 3, TailStrategy::GuardWithIf);
    if (unroll_row_taps) {
        s.along[1].update().split(s.taps[1], RVar("taps_y_o"), tap_y, 3, TailStrategy::GuardWithIf).unroll(tap_y);
    }
    if (s.whole_window) {
        s.along[0].update().unroll(s.taps[1], 3, TailStrategy::GuardWithIf).unroll(s.taps[2], 2, TailStrategy::GuardWithIf);
    }
    // The padded values-only kernels' x stage (several rows per step) is never loop-partitioned,
    // set here, before the specializations below, which copy the stage's schedule when made. In the
    // hot windows its loops have constant extents and no guard is left to partition: their code is
    // the same either way (checked in the LLVM IR). In the general path Halide peeled the guarded
    // tails (the step's rows in eights, the taps in threes) off each of those loops into copies of
    // its body. Without that, the general path's code is 36-37% smaller (in the f32 AVX2 kernels it
    // was 37-42% of the LLVM IR, in the 8-bit AVX-512 MaxPool 53%), the six kernels timed generate
    // in 0.69-0.87x the time (one level), and the four windows measured other than the hot ones
    // took 0.60-0.90x the time (Zen 3, AVX2, 1 thread; docs/PERFORMANCE_HISTORY.md, "2026-12-01,
    // deee0db..811376b"). Not the argmax kernels' x stage (a 1-D window took 1.12x the time without
    // its partitions), nor the y and z stages (bf16 AvgPool's 1-D window 1.42x).
    if (rows_per_step > 1) {
        s.along[0].never_partition_all();
        s.along[0].update().never_partition_all();
    }
    // Unpadded kernels: their stages are vectors only where the output's rows are at least one
    // vector wide (the output's shifted path), or half vectors where they are at least half a
    // vector wide (AVX-512; unpadded_kernel_pays sends narrower rows to the padded or rows-first
    // kernels). A narrower row that still comes here (a plane past the padded kernels' scratch
    // limit) runs its stages lane by lane, in scalar code. As guarded vectors they were predicated
    // loads, which Halide emits element by element behind branches: 714 KB of the f32 AVX-512
    // kernel's 837 KB of code, which took 227 s to generate on a Zen 3 (7.9 s since;
    // docs/PERFORMANCE_HISTORY.md, "2026-11-30, 43c7e92"). The other paths compile to the same
    // instructions either way.
    std::vector<Stage> x_stages = {s.along[0].update()};
    if (!s.padded) {
        x_stages.clear();
        for (const auto &[rows_wide_enough, vector_lanes] : shifted_rows) {
            for (int a = 0; a < stage_count; a++) {
                const Var sx = s.along[a].args()[0];
                s.along[a].specialize(rows_wide_enough).vectorize(sx, vector_lanes, TailStrategy::GuardWithIf);
                Stage update = s.along[a].update().specialize(rows_wide_enough);
                update.vectorize(sx, vector_lanes, TailStrategy::GuardWithIf);
                if (a == 0) x_stages.push_back(update);
            }
        }
    }

    // Hot cases: 2x2 and 3x3 windows (2-D pooling: a z window of 1 tap) with stride 1 or 2 along
    // x, and 2x2x2 windows with stride 2 (3-D), undilated. The whole output (unpadded kernels:
    // its rows of at least one vector, and on AVX-512 those of half a vector) is specialized, so
    // the branch is taken once per call and every tap loop inside has a constant extent, over shifted (stride 1) or deinterleaved
    // (stride 2) loads. Specializing the stages' tap loops as well multiplied the code paths, and
    // the build time with them. A constant stride alone still turns the general path's gathers
    // into dense loads.
    const Expr &kx = s.kernel[0], &ky = s.kernel[1], &kz = s.kernel[2];
    const Expr undilated = s.dilation[0] == 1 && s.dilation[1] == 1 && s.dilation[2] == 1;
    // Kernels that step several rows also fix the stride along y, 1 or 2 (the x stage's row
    // count): with a runtime count, strides (2, 1) (y, x) on a 3x3 window took 4x the time.
    const std::vector<Expr> stride_y_cases =
        rows_per_step > 1 ? std::vector<Expr>{s.stride[1] == 2, s.stride[1] == 1} : std::vector<Expr>{Internal::const_true()};
    for (Stage hot : hot_paths) {
        for (int k : {3, 2}) {
            for (int st : {2, 1}) {
                for (const Expr &stride_y : stride_y_cases) {
                    hot.specialize(kx == k && ky == k && kz == 1 && s.stride[0] == st && stride_y && undilated);
                }
            }
        }
        for (const Expr &stride_y : stride_y_cases) {
            hot.specialize(kx == 2 && ky == 2 && kz == 2 && s.stride[0] == 2 && stride_y && undilated);
        }
    }
    // The whole-window (unpadded MaxPool) kernels also specialize windows one row high (1-D
    // pooling, and 2-D windows of one row), any width and stride: their y and z tap loops are then
    // gone, where in the general path below each output vector ran them at run-time extents with
    // the loop's indices spilled. 1-D windows k3 s2 and k2 s2 on 64 channels of about 4096 took
    // 0.26-0.30x the time (Zen 3, AVX2, 1 thread; docs/PERFORMANCE_HISTORY.md, "2026-12-01,
    // deee0db..811376b").
    if (s.whole_window) {
        for (Stage hot : hot_paths) hot.specialize(ky == 1 && kz == 1);
    }
    for (Stage x_stage : x_stages) {
        for (int st : {1, 2}) x_stage.specialize(s.stride[0] == st);
    }
}

// Rows first (MaxPool's and AvgPool's rows_first kernels, RowsFirstStages):
//   output:  for n, for c (parallel; planes per task as the unpadded kernels') / for z / for bands
//            of kRowsFirstBandRows output rows: [the band's rows] / for y in the band / for x in
//            vectors of L lanes (the last guarded where masked stores are cheap, else shifted
//            inwards), the x taps unrolled in threes over the band's row.
//   rows:    per band, in a buffer allocated once per task: the two margins, then the input's
//            columns in vectors of L, each vector the window's rows reduced in registers (y taps
//            unrolled in threes, z taps outside); the last vector of a row loads only the
//            columns inside it (masked loads) and is computed whole, so it needs no spill.
//   A band, not a row at a time: a row's vectors, stored just before the x taps load them (at
//   offsets across two stored vectors), waited on store forwarding; the band's first rows are
//   long stored when read.
//   Specialized: windows that are never padding only: 2x2 and 3x3 windows at stride 2 along y and
//   1 or 2 along x, 2x2x2 at 2, undilated; then windows one row high (1-D pooling); then any
//   other such window.
void schedule_rows_first_pooling(RowsFirstStages &s, const TargetParams &target, const Type &work_type) {
    if (target.gpu) throw CompileError("the rows-first pooling plan is for CPUs only");
    const int lanes = target.vector_bytes / work_type.bytes();
    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &n = args[4];
    Var xo("xo"), xi("xi"), co("co"), ci("ci"), yo("yo"), yi("yi");

    const Expr planes = in_place_planes_per_task(s.output, s.input_plane_elements, work_type.bytes());
    auto output_loops = [&](Stage f, TailStrategy tail) {
        f.split(x, xo, xi, lanes, tail).vectorize(xi);
        f.split(c, co, ci, planes, TailStrategy::GuardWithIf);
        f.split(y, yo, yi, kRowsFirstBandRows, TailStrategy::GuardWithIf);
        f.reorder(xi, xo, yi, yo, z, ci, co, n).parallel(co).parallel(n);
    };
    // As in the padded kernels: the last vector of a row is shifted inwards where masked stores
    // are slow (rows of at least one vector), else guarded.
    Stage specialized = s.output;
    if (!target.masked_stores) {
        specialized = s.output.specialize(s.output.output_buffer().dim(0).extent() >= lanes);
        output_loops(specialized, TailStrategy::ShiftInwards);
    }
    output_loops(s.output, TailStrategy::GuardWithIf);
    for (Func table : s.axis_tables) table.compute_root();

    const Var rx = s.rows.args()[0];
    s.rows.compute_at(s.output, yo).hoist_storage(s.output, co).align_storage(rx, lanes);
    for (int m = 0; m < 2; m++) {
        if (target.masked_stores) {
            s.rows.update(m).vectorize(s.margins[m].x, lanes, TailStrategy::GuardWithIf);
        } else {
            s.rows.update(m).unscheduled();  // element by element (see the padded kernels' margins)
        }
    }
    RVar column_vector("column_vector"), column_lane("column_lane");
    s.rows.update(2).split(s.columns.x, column_vector, column_lane, lanes, TailStrategy::GuardWithIf).vectorize(column_lane);

    const std::vector<Var> across = s.across_rows.args();
    s.across_rows.compute_at(s.rows, column_vector);
    for (int d = 1; d < 5; d++) s.across_rows.bound_extent(across[d], 1);
    // One vector in registers; at a row's end its loads are masked (PredicateLoads), so the
    // vector is whole and never passes through memory (a guarded one was stored with a mask and
    // loaded whole: 20% of P3's samples waited on that store).
    s.across_rows.bound_storage(across[0], lanes)
        .store_in(MemoryType::Register)
        .vectorize(across[0], lanes, TailStrategy::PredicateLoads);
    s.across_rows.update()
        .reorder(across[0], s.row_taps.x, s.row_taps.y)
        .vectorize(across[0], lanes, TailStrategy::PredicateLoads)
        .unroll(s.row_taps.x, 3, TailStrategy::GuardWithIf);

    const std::vector<Var> along = s.along_x.args();
    s.along_x.compute_at(s.output, xo);
    for (int d = 1; d < 5; d++) s.along_x.bound_extent(along[d], 1);
    s.along_x.bound_extent(along[0], lanes).vectorize(along[0]);
    s.along_x.update().reorder(along[0], s.taps_x).vectorize(along[0]).unroll(s.taps_x, 3, TailStrategy::GuardWithIf);

    // The hot windows, at stride 2 along y: the runtime sends 2- and 3-row windows at stride 1 to
    // the padded kernels (rows_first_kernel_pays). Then windows one row high (1-D pooling, and 2-D
    // windows of one row), whose band rows are then plain copies of input rows: in the general path
    // below they were guarded (masked) loads under loops of run-time extent, and 1-D windows took
    // 0.41-0.53x the time with this (k3 s2 pad 1, k3 s1 pad 1, AvgPool k3 s1 pad 1, 64 channels of
    // about 4096; Zen 3, AVX2, 1 thread; docs/PERFORMANCE_HISTORY.md, "2026-12-01,
    // deee0db..811376b"). Then any window that is never padding only (MaxPool's output then tests
    // no window for padding only: P1 0.89x the time).
    const Expr &kx = s.kernel[0], &ky = s.kernel[1], &kz = s.kernel[2];
    const Expr undilated = s.dilation[0] == 1 && s.dilation[1] == 1 && s.dilation[2] == 1;
    for (int k : {3, 2}) {
        for (int stride_x : {2, 1}) {
            specialized.specialize(s.windows_never_empty && kx == k && ky == k && kz == 1 && s.stride[0] == stride_x &&
                                   s.stride[1] == 2 && undilated);
        }
    }
    specialized.specialize(s.windows_never_empty && kx == 2 && ky == 2 && kz == 2 && s.stride[0] == 2 &&
                           s.stride[1] == 2 && undilated);
    specialized.specialize(s.windows_never_empty && ky == 1 && kz == 1);
    specialized.specialize(s.windows_never_empty);
    for (int stride_x : {1, 2}) s.along_x.update().specialize(s.stride[0] == stride_x);
}

// Flat plane (MaxPool's and AvgPool's flat_plane kernels, FlatPlaneStages), where stages.applies:
//   output:  its update, which writes each position's pooled value: for n, for c (parallel;
//            planes per task as the padded kernels': input and flat copies within L1, at least
//            two planes a task up to 64x64, one from 65x65 on) / for z /
//            [plane] / for chunks of kFlatChunkVectors vectors of the plane's positions / [rows]
//            / for each vector of L positions (the plane's last one masked) / [along_x].
//   plane:   the margins (whole vectors), then the copy, in vectors.
//   rows:    a chunk's window rows (and the few beside it its x taps reach), vectors reduced in
//            registers; its buffer allocated once per task.
//   along_x: in registers, one vector at a time.
//   Taps unrolled in fives (y in rows, x in along_x); the tables (columns, AvgPool's divisors)
//   once per call.
//   Why chunks and an update: a chunk's pooled values go straight to the output, where pooling
//   whole planes into a buffer and copying that out cost a load and a store per vector. Bounds
//   inference needs the positions the output writes to be a range: with the output's x and y as
//   pure loops, even fused, it asks for whole rows of the Funcs it reads; an update over the
//   positions, writing (p % width, p / width), asks for exactly the chunk's (and Halide 21 turns
//   those stores into dense vectors on dense rows). Such an update cannot shift its last vector
//   inwards (Halide forbids it for updates), so on the AVX2 path too it is masked.
//   Measured (docs/PERFORMANCE_HISTORY.md, "2026-11-30"): against the whole-plane kernel this
//   replaced, on Zen 4, AVX-512, 1 and 2 threads, MaxPool 3x3 pad 1 on 35x35 0.89-0.90, 28x28
//   0.94-0.99, 14x14 0.89-1.00; AvgPool 0.85-0.87, 0.94-0.95, 0.84-0.87; 5x5 on 13x13 0.95-0.98;
//   9x9 pad 4 on 13x13 1.02-1.04 (the general path, before 9x9 was specialized). AVX2, whose last
//   vector the replaced kernel shifted inwards: 3x3 on 35x35 0.87-0.91, 28x28 0.95-0.97, 14x14
//   0.97-1.04; 5x5 on 13x13 1.03-1.06, 9x9 1.07-1.10. Chunks of 16 or 32 vectors measured alike.
//   The rows' buffer allocated per chunk cost up to 1.3x the time in the general path, where its
//   size is not a constant (an allocation on the heap); taps unrolled in threes, up to 1.6x for
//   5x5 windows (the last chunk's taps stayed a loop).
//   Specialized: the centred square windows of kFlatPlaneSquareWindows (pool_limits.h), whose
//   taps run straight-line; the general path's taps are loops.
void schedule_flat_plane_pooling(FlatPlaneStages &s, const TargetParams &target, const Type &work_type) {
    if (target.gpu) throw CompileError("the flat-plane pooling plan is for CPUs only");
    const int lanes = target.vector_bytes / work_type.bytes();
    const std::vector<Var> args = s.output.args();
    const Var &z = args[2], &c = args[3], &n = args[4];
    const Var &f = s.position;
    const RVar &p = s.output_positions.x;
    RVar po("po"), pi("pi"), chunk("chunk"), pv("pv");
    Var co("co"), ci("ci"), fo("fo"), fi("fi");

    const Expr positions = s.input_plane_elements;
    const Expr planes = padded_planes_per_task(positions * work_type.bytes());
    Stage write = s.output.update(0);
    Stage windows = write.specialize(s.applies);
    // What lets the positions be vectorized: they write distinct elements (p % width, p / width),
    // which Halide cannot prove.
    windows.allow_race_conditions();
    windows.split(p, po, pi, lanes, TailStrategy::GuardWithIf).vectorize(pi);
    windows.split(po, chunk, pv, kFlatChunkVectors, TailStrategy::GuardWithIf);
    windows.split(c, co, ci, planes, TailStrategy::GuardWithIf);
    windows.reorder(pi, pv, chunk, z, ci, co, n).parallel(co).parallel(n);
    write.specialize_fail("flat-plane pooling: called for a window other than stride 1, dilation 1, "
                          "one plane deep, with pads inside it, on a plane of 1 to 2^24 positions");
    for (Func table : s.tables) table.compute_root().vectorize(table.args()[0], lanes, TailStrategy::GuardWithIf);

    s.plane.compute_at(s.output, z).hoist_storage(s.output, co);
    // The margins' runs are whole vectors (the generator rounds them up), so the guard never masks
    // a store. P3 took 0.91x / 0.92x the time at 1 / 2 threads on Zen 3 (AVX2, where the margins
    // were filled element by element before; medians of 7 interleaved rounds, two runs), P4
    // (AvgPool, whose element-by-element zeros LLVM had made memset calls) 0.99-1.00x / 0.98-0.99x.
    for (int m = 0; m < 2; m++) s.plane.update(m).vectorize(s.margins[m].x, lanes, TailStrategy::GuardWithIf);
    s.plane.update(2).vectorize(s.positions.x, lanes, TailStrategy::GuardWithIf);

    s.rows.compute_at(s.output, chunk).hoist_storage(s.output, co);
    s.rows.split(f, fo, fi, lanes, TailStrategy::RoundUp).vectorize(fi);
    s.across_rows.compute_at(s.rows, fo).bound_extent(f, lanes).store_in(MemoryType::Register).vectorize(f);
    s.along_x.compute_at(s.output, pv).bound_extent(f, lanes).store_in(MemoryType::Register).vectorize(f);
    for (auto [func, taps] : {std::pair{s.across_rows, s.row_taps.x}, std::pair{s.along_x, s.taps_x}}) {
        func.update().reorder(f, taps).vectorize(f).unroll(taps, 5, TailStrategy::GuardWithIf);
    }

    const Expr &kx = s.kernel[0], &ky = s.kernel[1];
    for (int k : kFlatPlaneSquareWindows) {
        windows.specialize(centred_square_window(k, kx, ky, s.pad_begin[0], s.pad_begin[1]));
    }
}

void schedule_global_pooling(PoolingStages &s, const TargetParams &target, const Type &work_type) {
    if (target.gpu) return schedule_global_pooling_gpu(s);
    const int lanes = target.vector_bytes / work_type.bytes();
    const std::vector<Var> args = s.output.args();
    const Var &c = args[3], &n = args[4];
    Var plane("plane"), planes("planes"), lane("lane");

    // Output x, y, z are 1 (the runtime guarantees it); saying so keeps every intermediate at a
    // constant size, on the stack.
    for (int a = 0; a < 3; a++) s.output.bound(args[a], 0, 1);

    // Tasks of at least 64K taps (P8's 2048 7x7 planes: two tasks): summing a plane takes a
    // nanosecond or so, and with 64 planes per task 2 threads took 3x the time of one on P8 (the
    // thread pool's cost per task). Not one fused (c, n) loop: its per-plane division back into c
    // and n cost as much as summing a 7x7 plane. Not in_place_planes_per_task's tasks: P8 split
    // evenly, or in tasks of 16K taps, ran no faster (docs/PERFORMANCE_HISTORY.md, 2026-11-28).
    const Expr planes_per_task = max(64, (64 * 1024) / max(s.kernel[0], 1));
    s.output.split(c, planes, plane, planes_per_task, TailStrategy::GuardWithIf).parallel(planes).parallel(n);
    for (Func table : s.axis_tables) table.compute_root();

    // The runtime always passes one row (y and z windows of 1 tap) with dilation 1: saying so
    // for the whole output makes the row loads dense and leaves one loop per plane.
    const Expr one_row = s.kernel[1] == 1 && s.kernel[2] == 1 && s.dilation[0] == 1;
    // 7x7 planes (the head of ImageNet CNNs at 224x224: ResNet, MobileNet, EfficientNet; P8): a
    // constant tap count, specialized below.
    const Expr seven_by_seven = one_row && s.kernel[0] == 49;

    // The row (along x) is reduced `lanes` taps at a time into partial results (AvgPool's sums,
    // MaxPool's maxima of keys; "sums" below), combined at the end (rfactor).
    RVar tap_vectors("tap_vectors"), tap_lanes("tap_lanes");
    Func partial = s.along[0].update().split(s.taps[0], tap_vectors, tap_lanes, lanes).rfactor(tap_lanes, lane);
    s.along[2].compute_at(s.output, plane);
    s.along[1].compute_at(s.along[2], s.taps[2]);
    s.along[0].compute_at(s.along[1], s.taps[1]);
    partial.compute_at(s.along[1], s.taps[1]).vectorize(lane).store_in(MemoryType::Register);
    partial.update().vectorize(lane);
    // On 7x7 planes the vectors of taps are unrolled (the last one a single tap), so the partial
    // sums stay in registers. As a loop, the last vector's masked add went through the stack,
    // and the tree's wider loads of it then waited on store forwarding (P8, Zen 5 AVX-512:
    // 25 us -> 3.6 us).
    partial.update().specialize(seven_by_seven).unroll(tap_vectors);
    // The partial sums are then added as a tree: the upper half of the lanes onto the lower half,
    // until two are left (one rfactor per level, each a vector add). Not a chain of `lanes`
    // dependent scalar adds: that is what a horizontal reduction (vector_reduce_add) of floats
    // became with Halide 21 (LLVM adds floats in order), most of the time on 7x7 planes.
    RVar remaining = tap_lanes;
    for (int width = lanes; width > 2; width /= 2) {
        const std::string level = std::to_string(width / 2);
        RVar pair("pair_" + level), half("half_" + level);
        Var half_lane("half_lane_" + level);
        Func halves = s.along[0].update().split(remaining, pair, half, width / 2).rfactor(half, half_lane);
        halves.compute_at(s.along[1], s.taps[1]).vectorize(half_lane).store_in(MemoryType::Register);
        halves.update().unroll(pair).vectorize(half_lane);
        remaining = half;
    }
    s.along[0].update().unroll(remaining);
    // 7x7 planes: the last, partial vector of taps is a constant-size tail, where a run-time one
    // is a masked add through the stack.
    s.output.specialize(seven_by_seven);
    // Rows of at least one vector: the partial sums then fill every lane, and the tree above
    // adds them; with fewer taps the lanes used are a run-time count.
    s.output.specialize(one_row && s.kernel[0] >= lanes);
    s.output.specialize(one_row);
}

}  // namespace poolconv::schedules
