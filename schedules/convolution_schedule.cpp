// Convolution schedule: one plan for every target, sized by TargetParams and a ConvTile.
//
// Plan (NCDHW, x = W is unit-stride; the tile is x_vectors x channels x rows, see ConvTile):
//   output:  for z / for n, g, row tiles, x chunk (one parallel task each; a chunk is up to 8
//            tiles wide, and a task one row of tiles or, on planes of many chunks, a few;
//            depthwise: one task per channel plane)
//              the zero-padded input the task reads, in the arithmetic type (every input channel
//              of the group, the rows its windows cover), is copied into a scratch buffer, so taps are plain loads
//              with no border tests; the copy stores each row's columns by stride phase
//              (`phased` in the generator), so a row of outputs reads dense vectors at any stride
//              (depthwise: the margin's zeros, then the whole plane; channel vectors: the
//              margin's zeros, then whole rows; both dense for strides 1 and 2, other strides
//              copy element by element)
//              for channel tile / for row / for x tile (pointwise: for x tile / for channel tile):
//                sum: for ci, kz, ky, kx: tile FMAs, in registers (fully unrolled tile); where
//                     TargetParams::conv_skips_padding_rows, each ky (kz) tap's FMAs behind a
//                     test that its input row (plane) is inside the input (the generator's)
//                output: the tile, activated and converted, stored (the last tile of a row or of
//                the channels is guarded)
//   One vector (one_vector: the general plan where the CPU halves its 512-bit FMAs, chosen by the
//   runtime) is the general plan with its own tile, one_vector_tile.
//   Depthwise 1-D (depthwise, output one row high, chosen by the runtime) tiles a row only
//   (depthwise_1d_tile): the depthwise tile's other rows would be discarded.
//   Row pairs (undilated 3x3 and 3x3xk kernels, equal x and y strides, chosen by the runtime)
//   tile one vector by two rows (row_pair_tile), so the rows' windows share input rows.
//   Channel vectors (undilated 3x3, stride 1, 2-D; AVX-512 f32 only, chosen by the runtime where
//   they over-compute less than row pairs' x vectors would past a row's end) vectorize the other way, as oneDNN's and
//   ONNX Runtime's direct kernels do: the tile is vectors of output channels by columns
//   (channel_vector_tile: x_vectors counts columns), each tap one broadcast input value per
//   column and one weight vector per channel vector; the output tile is stored channel vector by
//   channel vector (scattered along x's planes). The task copies the input once more per kx tap
//   (`tapped` in the generator, from `phased`): with one copy the taps of neighbouring columns
//   read the same addresses, LLVM kept those broadcasts in registers, and the tile spilled.
//   Tasks are 4 whole rows each, and also split the output channels in parallel chunks
//   where the rows make fewer than 16 tasks.
//   Pointwise (1x1, stride 1, no padding) is a matrix product: its x is every pixel of a plane,
//   its tile the target's pointwise_tile, its chunk up to 2 tiles, and its copy stores the input
//   in panels one tile wide (`panel` in the generator), so each tile's inputs are contiguous.
//   Tiles are computed whole even at the edges (over-computing into padding channels and
//   columns), which keeps every accumulator a register.
//   Specialized: stride_x 1 and 2 (dense loads; the copy deinterleaves stride 2 once, where
//   before every tap did), each with 3x3, 3x3xk, 3 and 1x1 kernels (tap loops unrolled or gone)
//   and kernel_x 3 or 7, and at stride 1 3x3 kernels with dilation 2 (constant tap offsets); the
//   general kernels also stride 4 (patchify stems), with 4x4 kernels unrolled. Other strides load
//   dense vectors too (the generator divides by the stride per tap), through tap loops, and copy
//   element by element.
//   Row pairs are specialized only for what the runtime sends them: undilated 3x3 and
//   3x3xk kernels with stride 1 or 2 along both x and y; depthwise kernels also for undilated 3x3
//   kernels with stride 1 along both (constant tap offsets from rows the tile's rows share);
//   1-D depthwise kernels only for strides 1 and 2, with 3-tap 1-D windows unrolled; pointwise
//   kernels only for their one case, 1x1 at stride 1 (with the other strides' paths, which no
//   call reaches, the 14 pointwise kernels took 35 s to generate instead of 12).
//
// On Zen 5 (AVX-512): 71-102% of the FMA peak on C1-C9, depthwise C5 18%, C11 29% (README.md's table,
// before the channel-vector plan).
#include "schedules/convolution_schedule.h"

#include <algorithm>
#include <string>

#include "schedules/conv_packing.h"
#include "schedules/worker_threads.h"

namespace poolconv::schedules {

using namespace Halide;

ConvTile &conv_plan_tile(TargetParams &target, ConvPlan plan) {
    return plan == ConvPlan::depthwise      ? target.depthwise_tile
           : plan == ConvPlan::depthwise_1d ? target.depthwise_1d_tile
           : plan == ConvPlan::pointwise    ? target.pointwise_tile
           : plan == ConvPlan::row_pairs    ? target.row_pair_tile
           : plan == ConvPlan::channel_vectors ? target.channel_vector_tile
           : plan == ConvPlan::one_vector      ? target.one_vector_tile
                                            : target.conv_tile;
}

namespace {

// The plan's accumulator tile, checked against the packed weights' contract.
ConvTile plan_tile(const TargetParams &target, ConvPlan plan) {
    TargetParams copy = target;
    const ConvTile tile = conv_plan_tile(copy, plan);
    // Every plan, GPU ones included, reads whole runs of packed channels.
    if (kOutputChannelBlock % tile.channels != 0 || (tile.channels != 1 && tile.channels % kPackedChannels != 0)) {
        throw CompileError(std::string("convolution tile for ") + target.name +
                           " breaks the packing contract of schedules/conv_packing.h");
    }
    // Channel vectors: whole vectors of channels, each inside one run of the weights.
    const int lanes = target.lanes(Float(32));
    if (plan == ConvPlan::channel_vectors && (tile.channels % lanes != 0 || kChannelVectorRun % lanes != 0)) {
        throw CompileError(std::string("channel-vector tile for ") + target.name + " is not whole vectors within a run");
    }
    return tile;
}

// Output columns of one accumulator tile: x_vectors vectors, or for channel vectors (whose vectors
// are output channels) x_vectors columns.
int tile_columns(const TargetParams &target, const ConvTile &tile, ConvPlan plan, const Halide::Type &sum_type) {
    return plan == ConvPlan::channel_vectors ? tile.x_vectors : target.lanes(sum_type) * tile.x_vectors;
}

// Whether the accumulator tile is declared registers (Halide's MemoryType::Register), with the
// output's tile loops unrolled to read it. Left in a stack buffer, LLVM kept the tile in registers
// for the FMAs but stored it there after them and loaded it back for the activation and the stores:
// with registers declared, the 1-D depthwise C11 took 0.93-0.97x the time, C10 (general plan,
// stride 4) 0.94-0.98x, C3 (pointwise) 0.95-0.99x on the AVX2 path, the rest level (Zen 4,
// AVX-512 and AVX2, fastest / median of 4-6 interleaved turns; channel-vector kernels compile to
// the same bytes either way). Not the 2-D depthwise plan: C5 took 1.10-1.18x the time with it.
bool tile_in_registers(ConvPlan plan) { return plan != ConvPlan::depthwise; }

// Output rows per parallel task of the channel-vector plan.
constexpr int kChannelVectorTaskRows = 4;

// Parallel tasks the channel-vector plan makes, where its rows alone make fewer: 4 per worker
// thread, up to 16. Each extra chunk of channels copies its tasks' input again, so a fixed 16 tasks
// cost copies on small thread counts: C4 (14x14: 4 row tasks) took 0.87x / 0.92x the time at
// 1 / 2 threads with 4 / 8 tasks instead of 16 (Zen 4, AVX-512, 5 interleaved turns); 4 tasks at 2
// threads ran no faster than 16 (the row tasks are uneven: 4, 4, 4 and 2 rows). From 4 threads on
// it is 16 tasks as before, measured on 16 threads of a Xeon (docs/PERFORMANCE_HISTORY.md).
constexpr int kChannelVectorTasksPerThread = 4;
constexpr int kChannelVectorTasksMax = 16;

// The loops a kernel's output runs in.
struct OutputLoops {
    Halide::Var task;        // parallel: a chunk of rows (or of a plane's pixels, or a plane)
    Halide::Var tile_inner;  // the inner tile loop, where the accumulator tile is computed
};

// A task shape (the generator's `task`) the plan cannot take is an error, not silently ignored
// (conv_task_shape_refusal says which).
void check_task_shape(const ConvTaskShape &task, ConvPlan plan) {
    if (const char *why = conv_task_shape_refusal(plan, task.x_tiles, task.row_tiles)) {
        throw CompileError(std::string("convolution generator parameter task: ") + why);
    }
}

// The output down to its tiles: parallel tasks, each a chunk of a few rows (pointwise: of a plane's
// pixels; depthwise: a whole plane), then tiles of `tile` (x vectors x channels x rows).
OutputLoops schedule_output(ConvolutionStages &s, const TargetParams &target, const ConvTile &tile, ConvPlan plan,
                            const ConvTaskShape &task_shape) {
    const bool pointwise = plan == ConvPlan::pointwise;
    const bool channel_vectors = plan == ConvPlan::channel_vectors;
    const int lanes = target.lanes(s.sum.type());
    const int tile_x = tile_columns(target, tile, plan, s.sum.type());
    // Up to 8 tiles per task, fewer on narrow rows: the padded input a task copies spans its chunk
    // (bounds inference cannot see that the guarded tiles of a short row stop early). Pointwise
    // rows are whole planes, copied in panels contiguous whatever the chunk: 2 tiles per task ran
    // no slower than 4, and faster with 2 threads (8 were slower), and make twice the tasks for
    // many threads (C3: 66, where 33 leave 16 threads a last round with one task). With tiles of
    // output channels (tasks per chunk, not per plane), fewer again where a plane has few tiles,
    // so that it still makes 16 tasks where it can (C4, 14x14 in row pairs: 14 tasks of one tile,
    // where 7 tasks of two left one of 2 threads idle an eighth of the time). Channel-vector
    // tasks are whole rows: their copy is of whole rows (schedule_input_copy).
    const Expr tiles_per_row = (s.output_width + tile_x - 1) / tile_x;
    const Expr row_tiles = (s.output_height + tile.rows - 1) / tile.rows;
    const Expr tiles_per_plane = tiles_per_row * row_tiles;
    Expr chunk_tiles = channel_vectors ? tiles_per_row : Halide::min(tiles_per_row, pointwise ? 2 : 8);
    if (tile.channels > 1 && !channel_vectors) chunk_tiles = Halide::min(chunk_tiles, Halide::max(tiles_per_plane / 16, 1));
    if (task_shape.x_tiles > 0 && !channel_vectors) chunk_tiles = Halide::min(tiles_per_row, task_shape.x_tiles);
    const Expr chunk_x = chunk_tiles * tile_x;
    if (tile_x > kMaxTileOvercompute || tile.rows > kMaxTileOvercompute) {
        throw CompileError(std::string("convolution tile for ") + target.name +
                           " over-computes more than schedules/conv_packing.h allows");
    }

    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &g = args[4], &n = args[5];
    Var xc("xc"), xo("xo"), xi("xi"), yo("yo"), yi("yi"), co("co"), ci("ci"), task("task");

    // Pointwise: each x tile's input (one vector per channel) is read by every channel tile in
    // turn, so the x tile is the outer loop and its input stays in L1.
    // Elsewhere a channel tile's weights (every tap) are the larger reuse.
    const Var &tile_outer = pointwise ? xo : co, &tile_inner = pointwise ? co : xo;
    s.output.split(x, xc, x, chunk_x, TailStrategy::GuardWithIf)
        .split(x, xo, xi, tile_x, TailStrategy::GuardWithIf)
        .split(y, yo, yi, tile.rows, TailStrategy::GuardWithIf)
        .split(c, co, ci, tile.channels, TailStrategy::GuardWithIf);
    if (!channel_vectors) s.output.vectorize(xi, lanes);
    if (pointwise) {
        // A task per chunk of a plane's pixels: its panels hold every input channel of the group.
        s.output.reorder(xi, ci, yi, tile_inner, tile_outer, xc, yo, g, n, z)
            .fuse(xc, yo, task)
            .fuse(task, g, task)
            .fuse(task, n, task);
    } else if (tile.channels > 1) {
        // A task per chunk of a few rows: its padded input has every input channel of the group.
        // Where the planes (counted over the batch and the groups, up to 4 of them) have 32 or
        // more chunks, each task gets several rows, as many as still leave 16 tasks: their input
        // rows overlap, so the task copies fewer rows per output row, and a channel tile's
        // weights serve all its rows. C9 (batch 8 of C1's 56x56 layer, 7 row pairs per task
        // where it had 1) took 0.90x / 0.93x the time at 1 / 2 threads on Zen 5 (AVX-512; AVX2
        // unchanged); counting up to 8 images (14 row pairs) took 1.04x / 1.00x of that.
        Var yt("yt");
        const Expr images = Halide::min(s.output_images, 4);
        // Channel vectors: whole rows and kChannelVectorTaskRows rows per task:
        // their per-tap input copies cost as much per task as a row's sums, so fewer rows per task
        // ran slower (C1 and C9 on Zen 4: 1 or 2 rows 0.57x the speed of 4; 8 no faster).
        const Expr rule_rows = channel_vectors ? Expr(std::max(kChannelVectorTaskRows / tile.rows, 1))
                                               : Halide::max(tiles_per_plane * images / (chunk_tiles * 16), 1);
        const Expr task_rows = task_shape.row_tiles > 0 ? Expr(task_shape.row_tiles) : rule_rows;
        s.output.split(yo, yt, yo, task_rows, TailStrategy::GuardWithIf)
            .reorder(channel_vectors ? std::vector<VarOrRVar>{ci, xi, yi, xo, yo, co, xc, yt, g, n, z}
                                     : std::vector<VarOrRVar>{xi, ci, yi, xo, yo, co, xc, yt, g, n, z})
            .fuse(xc, yt, task)
            .fuse(task, g, task)
            .fuse(task, n, task);
        if (channel_vectors) {
            // Where the rows make fewer tasks than wanted (C4's 14 rows make 4), the channel tiles
            // are split too, in as many parallel chunks as make up that many (each chunk's tasks
            // copy the input again). A loop of its own around the tasks: fused into them, the chunk
            // count (a runtime value) left bounds inference unable to bound the group index.
            const Expr channel_tiles = Halide::max((s.output_channels + tile.channels - 1) / tile.channels, 1);
            const Expr row_tasks = Halide::max((row_tiles + task_rows - 1) / task_rows * s.output_images, 1);
            const Expr tasks_wanted = Halide::min(kChannelVectorTasksPerThread * worker_threads(), kChannelVectorTasksMax);
            const Expr chunks = Halide::clamp(tasks_wanted / row_tasks, 1, channel_tiles);
            Var cot("cot");
            s.output.split(co, cot, co, (channel_tiles + chunks - 1) / chunks, TailStrategy::GuardWithIf)
                .reorder(co, task, cot)
                .parallel(cot);
        }
    } else {
        // Depthwise: a task per channel plane; its padded input is that one plane.
        s.output.reorder(xi, ci, yi, tile_inner, tile_outer, xc, yo, g, n, z).fuse(g, n, task);
    }
    // Vectors of output channels: split after the reorder, so that the vector stays innermost.
    if (channel_vectors) s.output.vectorize(ci, lanes).unroll(ci).unroll(xi);
    // The tile's stores unrolled too, so each reads its accumulator by a constant index: the tile
    // can then be registers from the first FMA to the store (schedule_accumulators).
    if (tile_in_registers(plan) && !channel_vectors) s.output.unroll(xi).unroll(ci).unroll(yi);
    s.output.parallel(task);
    return {task, tile_inner};
}

// The zero-padded input a task reads, in the sum's type, copied per task: by stride phase
// (general, row pairs), in panels (pointwise), or as the margin's zeros and then the plane
// (depthwise).
void schedule_input_copy(ConvolutionStages &s, const TargetParams &target, ConvPlan plan, const Halide::Var &task) {
    const int lanes = target.lanes(s.sum.type());
    const bool pointwise = plan == ConvPlan::pointwise;
    const std::vector<Var> copy_args = s.input_copy.args();
    s.input_copy.compute_at(s.output, task);  // vectorized per branch below
    if (s.shifted_copy.defined()) s.shifted_copy.compute_at(s.output, task).vectorize(s.shifted_copy.args()[0], lanes);
    if (pointwise) {
        // Panels (panel_x, ci, panel): each channel's row is read once, across the panels, in
        // order: long runs the prefetchers follow.
        s.input_copy.vectorize(copy_args[0], lanes).reorder(copy_args[0], copy_args[2], copy_args[1]);
        // No software prefetch: Halide's `prefetch` is a `prefetchnta`, and on an Intel Xeon
        // (Emerald Rapids, AVX-512) the copy's prefetch of the channel 4 ahead cost C3 1.6x the
        // time at 1 thread (AVX2 kernel 1.27x; 2 threads within noise), 27% of the samples on the
        // prefetch loop itself. It had gained up to 14% on a Zen 3 host (9260449); the history
        // (docs/PERFORMANCE_HISTORY.md, "2026-11-28") has both.
    } else if (s.copied_input.empty()) {
        // The copy reads x with the stride: dense for stride 1, two loads and a deinterleave for 2
        // (general kernels: four for 4). At stride 1 a row's first and last vectors cross the
        // padding and are gathers of clamped columns: the target's table says how many lanes the
        // copy of narrow rows takes so that those stay short, and from which row width whole
        // vectors pay (TargetParams::narrow_row_copy_lanes, whole_vector_copy_columns). Strides 2
        // and 4 keep whole vectors: C10 (stride 4) took 1.06x the time with 4 lanes.
        const int narrow_lanes =
            target.narrow_row_copy_lanes > 0 ? std::min(lanes, target.narrow_row_copy_lanes) : lanes;
        if (narrow_lanes < lanes) {
            s.input_copy.specialize(s.stride_x == 1 && s.output_width >= target.whole_vector_copy_columns)
                .vectorize(copy_args[0], lanes);
        }
        s.input_copy.specialize(s.stride_x == 1).vectorize(copy_args[0], narrow_lanes);
        s.input_copy.specialize(s.stride_x == 2).vectorize(copy_args[0], lanes);
        if (is_general_plan(plan)) s.input_copy.specialize(s.stride_x == 4).vectorize(copy_args[0], lanes);
        s.input_copy.vectorize(copy_args[0], lanes);
    } else {
        // The margins' zeros, whatever the stride. Depthwise: the rows above and below the plane
        // in (guarded) vectors along the row; the columns left and right of it, a pad wide, down
        // each column (with the row loop inside, LLVM made each row's few zeros a memset call:
        // 12% of a 56x56 3x3 layer's time on Zen 4, as much as zeroing the whole scratch).
        // Channel vectors: the columns left and right of the rows, down each column too (with
        // the row loop outside: memset calls, 1.5% of C1's samples on an Intel Xeon).
        // Then the input, whose columns x go to distinct (x / stride, x % stride): Halide cannot
        // see that for a runtime stride, hence allow_race_conditions. Stride 2 copies column
        // pairs: strided loads, dense stores.
        s.input_copy.vectorize(copy_args[0], lanes);
        const RDom &left = s.copy_margins[0], &right = s.copy_margins[1];
        if (s.copied_input.size() == 2) {
            s.input_copy.update(0).reorder(left.y, left.x);
            s.input_copy.update(1).reorder(right.y, right.x);
            for (int m : {2, 3}) {  // above, below
                s.input_copy.update(m).vectorize(s.copy_margins[m].x, lanes, TailStrategy::GuardWithIf);
            }
        } else {
            const Var &row = copy_args[2];
            s.input_copy.update(0).reorder(row, left.x);
            s.input_copy.update(1).reorder(row, right.x);
        }
        Stage copy = s.input_copy.update(int(s.copy_margins.size()));
        const RVar &copy_x = s.copied_input[0];
        RVar pair("pair"), phase("phase");
        copy.allow_race_conditions();
        copy.specialize(s.stride_x == 1).vectorize(copy_x, lanes);
        copy.specialize(s.stride_x == 2).split(copy_x, pair, phase, 2).unroll(phase).vectorize(pair, lanes);
    }
}

// The accumulator tile at the inner tile loop: constant-size and fully unrolled, so it lives in
// registers. Returns the update over the taps.
Stage schedule_accumulators(ConvolutionStages &s, const TargetParams &target, const ConvTile &tile, ConvPlan plan,
                            const Halide::Var &tile_inner) {
    const bool channel_vectors = plan == ConvPlan::channel_vectors;
    const int lanes = target.lanes(s.sum.type());
    const int tile_x = tile_columns(target, tile, plan, s.sum.type());
    const std::vector<Var> args = s.output.args();
    const Var &x = args[0], &y = args[1], &z = args[2], &c = args[3], &g = args[4], &n = args[5];
    const Var &vector_axis = channel_vectors ? c : x;
    s.sum.compute_at(s.output, tile_inner)
        .bound_extent(x, tile_x)
        .bound_extent(y, tile.rows)
        .bound_extent(c, tile.channels)
        .bound_extent(z, 1)
        .bound_extent(g, 1)
        .bound_extent(n, 1)
        .vectorize(vector_axis, lanes)
        .unroll(x)
        .unroll(c)
        .unroll(y);
    if (tile_in_registers(plan)) s.sum.store_in(MemoryType::Register);
    // Channel vectors: stored channel-innermost, so each accumulator is one dense vector.
    if (channel_vectors) s.sum.reorder_storage(c, x, y, z, g, n);
    const RVar &kx = s.taps[0], &ky = s.taps[1], &kz = s.taps[2], &tap_ci = s.taps[3];
    Stage taps = s.sum.update();
    if (channel_vectors) {
        taps.reorder(c, x, y, kx, ky, kz, tap_ci);
    } else {
        taps.reorder(x, c, y, kx, ky, kz, tap_ci);
    }
    taps.vectorize(vector_axis, lanes).unroll(x).unroll(c).unroll(y);
    return taps;
}

// The fast paths: each a loop nest of its own (the output and the taps specialized together), with
// constant tap counts where the plan's windows allow.
void specialize_fast_paths(ConvolutionStages &s, ConvPlan plan, Stage taps) {
    const RVar &kx = s.taps[0], &ky = s.taps[1], &kz = s.taps[2], &tap_ci = s.taps[3];
    // Constant tap counts let the tap loops unroll, leaving the input-channel loop innermost: LLVM
    // keeps the accumulators in registers across a loop, but stores them after every iteration of
    // the loop around it.
    // Each case is a loop nest of its own from the tasks down (the output is specialized too), not
    // a branch inside the tile loop: with every case's branch in one loop, LLVM kept all their
    // address increments live across the tile loops and spilled them (the cost: longer compiles).
    auto specialize = [&](const Expr &when) -> Stage {
        s.output.specialize(when);
        return taps.specialize(when);
    };
    if (is_general_plan(plan)) {
        // Stride 4 (patchify stems: ConvNeXt's and Swin's 4x4 windows, AlexNet's 11x11): constant
        // tap phases, where a runtime stride costs a division per tap.
        specialize(s.stride_x == 4 && s.kernel_x == 4).unroll(kx);
        specialize(s.stride_x == 4);
    }
    for (int stride : {1, 2}) {
        const Expr dense = s.stride_x == stride;
        const Expr planar = s.kernel_z == 1, row = s.kernel_y == 1 && s.kernel_z == 1;
        // Undilated 3x3 windows with stride_y == stride_x: every tap is a constant offset from
        // one of a few input rows, which the tile's output rows share (with runtime dilations
        // and strides each tap had an address of its own, which LLVM spilled, and nothing was
        // shared).
        // (stride_y == stride stated as well: Halide substitutes a parameter's constant from a
        // condition `param == constant`, not from `stride_x == stride_y`, and the taps' offsets
        // must be constants.)
        const Expr unit_taps = dense && s.stride_y == stride &&
                               row_pair_window(s.kernel_x, s.kernel_y, s.stride_x, s.stride_y, s.dilation_x, s.dilation_y);
        if (plan == ConvPlan::depthwise_1d) {
            // One output row: the windows that matter are 1-D, and only the 3-tap one unrolls
            // (longer ones, up to Conformer's 31 taps, loop over kx; 2-D windows over kx and ky).
            specialize(dense && s.kernel_x == 3 && row).unroll(kx);
            specialize(dense);
            continue;
        }
        if (plan == ConvPlan::pointwise) {
            // The runtime sends only 1x1 kernels at stride 1 here (ConvCallFacts::one_to_one).
            if (stride == 1) specialize(dense && s.kernel_x == 1 && row);
            continue;
        }
        if (plan == ConvPlan::channel_vectors) {
            // The runtime sends only undilated 3x3 kernels at stride 1 on 2-D planes.
            if (stride == 1) specialize(unit_taps && planar).unroll(kx).unroll(ky);
            continue;
        }
        if (plan == ConvPlan::row_pairs) {
            // The runtime sends only these here (3x3 or 3x3xk).
            specialize(unit_taps && planar).unroll(kx).unroll(ky);
            specialize(unit_taps).unroll(kx).unroll(ky).reorder(kx, ky, tap_ci, kz);
            continue;
        }
        if (plan == ConvPlan::depthwise && stride == 1) {
            // The depthwise tile's rows share input rows: 4 output rows read 6 input rows, 7 read
            // 9 (no gain at stride 2, or for 5x5 kernels).
            specialize(unit_taps && planar).unroll(kx).unroll(ky);
        }
        if (stride == 1) {
            // Dilation 2 (DeepLab-style atrous layers) with constant tap offsets: with runtime
            // dilations each of the 9 taps has an address of its own, which LLVM spills.
            specialize(dense && s.kernel_x == 3 && s.kernel_y == 3 && planar && s.dilation_x == 2 && s.dilation_y == 2)
                .unroll(kx)
                .unroll(ky);
        }
        specialize(dense && s.kernel_x == 3 && s.kernel_y == 3 && planar).unroll(kx).unroll(ky);
        specialize(dense && s.kernel_x == 3 && s.kernel_y == 3).unroll(kx).unroll(ky).reorder(kx, ky, tap_ci, kz);
        specialize(dense && s.kernel_x == 3 && row).unroll(kx);
        specialize(dense && s.kernel_x == 1 && row);
        specialize(dense && s.kernel_x == 3).unroll(kx);
        // 7 wide: the ResNet/Inception stem (C2), faster with kx unrolled than in a loop.
        specialize(dense && s.kernel_x == 7).unroll(kx);
        specialize(dense);
    }
}

}  // namespace

void schedule_convolution(ConvolutionStages &s, const TargetParams &target, ConvPlan plan, const ConvTaskShape &task) {
    const ConvTile tile = plan_tile(target, plan);
    if (target.gpu) return schedule_convolution_gpu(s, target, plan, tile);
    if (plan == ConvPlan::wide_window) throw CompileError("the wide_window convolution plan is for GPUs only");
    check_task_shape(task, plan);
    const OutputLoops loops = schedule_output(s, target, tile, plan, task);
    // The activation bounds in memory, loaded per tile after its sums. Inlined, they were
    // broadcasts that LLVM 21 hoists out of every loop and keeps in registers across the tap
    // loops, where the accumulator tile needs them all: AVX2's 3 x 4 pointwise tile spilled four
    // accumulators.
    for (Func bounds : s.activation_bounds) bounds.compute_root();
    schedule_input_copy(s, target, plan, loops.task);
    Stage taps = schedule_accumulators(s, target, tile, plan, loops.tile_inner);
    specialize_fast_paths(s, plan, taps);
}

}  // namespace poolconv::schedules
