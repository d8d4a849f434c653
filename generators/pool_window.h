// What every pooling generator shares: the data layout, the runtime window attributes, the taps of
// one window, and the stages both operators' padded copy, rows-first and flat-plane kernels build
// with their own reduction. The mathematics of each operator lives in pooling_generator.cpp.
//
// Layout: every tensor is 5-D in Halide's innermost-first order (x = W, y = H, z = D, c, n), i.e.
// an NCDHW tensor. The runtime views 1-D and 2-D pooling as 3-D with extent-1 axes and size-1
// windows, and resolves auto_pad and rounding to explicit numbers, so a generator only knows this:
// output coordinate o along spatial axis a reads the input taps
//
//     i = o * stride[a] - pad_begin[a] + k * dilation[a],     k = 0 .. kernel[a] - 1
//
// and a tap with i outside [0, extent) is padding. Array index a: 0 = x (W), 1 = y (H), 2 = z (D).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "Halide.h"

#include "generators/element_type.h"
#include "generators/margin_box.h"
#include "generators/scheduled_generator.h"
#include "schedules/pooling_schedule.h"
#include "schedules/prefetch_ahead.h"
#include "schedules/target_params.h"

namespace poolconv::generators {

constexpr int kSpatialAxes = 3;

// The shape the estimates describe (autoscheduler input): MaxPool 3x3 stride 2 pad 1 on a
// ResNet stem activation, 1x64x112x112 -> 1x64x56x56. One table for inputs and outputs alike.
// Unpadded kernels (padded=false) get the same window without its padding: 112x112 -> 55x55.
struct EstimateShape {
    static constexpr int in[kSpatialAxes] = {112, 112, 1};
    static constexpr int out[kSpatialAxes] = {56, 56, 1};
    static constexpr int out_unpadded[kSpatialAxes] = {55, 55, 1};
    static constexpr int kernel[kSpatialAxes] = {3, 3, 1};
    static constexpr int stride[kSpatialAxes] = {2, 2, 1};
    static constexpr int pad[kSpatialAxes] = {1, 1, 0};
    static constexpr int channels = 64;
    static constexpr int batch = 1;
    // Global pooling (global=true): a ResNet-50 head, 1x2048x7x7, as the runtime passes it: each
    // plane one row of 49 taps, covered by the window; output 1x1x1 per plane.
    static constexpr int global_plane = 7 * 7;
    static constexpr int global_channels = 2048;
    // Flat-plane kernels (flat_plane=true): a stride-1 window that keeps the plane's size,
    // GoogLeNet's 3x3/1 pad 1 max pool over 1x192x28x28 (the kernel, stride and pads above but
    // stride 1).
    static constexpr int flat_plane[kSpatialAxes] = {28, 28, 1};
    static constexpr int flat_plane_channels = 192;
};

template<typename Derived>
class PoolGenerator : public ScheduledGenerator<Derived> {
protected:
    template<typename T>
    using Input = Halide::GeneratorInput<T>;
    template<typename T>
    using Output = Halide::GeneratorOutput<T>;
    template<typename T>
    using GeneratorParam = Halide::GeneratorParam<T>;
    using Expr = Halide::Expr;
    using Func = Halide::Func;
    using Var = Halide::Var;

public:
    // Element type of the data (and of the pooled values).
    GeneratorParam<Halide::Type> data_type_param{"data_type", Halide::Float(32)};

    // false: a kernel only for calls whose windows all lie inside the input (no padding tap, none
    // past its end), which the runtime routes here. Its taps read the input in place, with no
    // padded copy of each plane (see window_input).
    GeneratorParam<bool> padded{"padded", true};

    // true: a kernel for global pooling, which the runtime calls with each plane flattened into
    // one row that the window covers (output 1x1x1 per plane, no padding): its taps read the
    // input in place, summed (or compared) along the row in vector lanes.
    GeneratorParam<bool> global{"global", false};

    // true: a kernel for stride-1 windows whose output plane has the input's size, which pools
    // each plane as one flat row (see flat_plane_stages). The runtime picks it where it pays
    // (flat_plane_kernel_pays, schedules/pool_limits.h).
    GeneratorParam<bool> flat_plane{"flat_plane", false};

    // Data, NCDHW as (x, y, z, c, n). Its type is data_type, set in configure().
    Input<Halide::Buffer<void, 5>> input{"input"};

    // Window attributes per spatial axis (0 = x, 1 = y, 2 = z): all >= 1 except pad_begin >= 0.
    Input<int[kSpatialAxes]> kernel{"kernel"};
    Input<int[kSpatialAxes]> stride{"stride"};
    Input<int[kSpatialAxes]> dilation{"dilation"};
    Input<int[kSpatialAxes]> pad_begin{"pad_begin"};

protected:
    Halide::Type data_type() const { return data_type_param; }

    // Window attributes as the kernel computes with them: the runtime's values, or the constants
    // of the layer the kernel is built for (generators/fixed_layer.h).
    Expr window_kernel(int a) const { return this->fixed_layer().value("kernel", a, kernel[a]); }
    Expr window_stride(int a) const { return this->fixed_layer().value("stride", a, stride[a]); }
    Expr window_dilation(int a) const { return this->fixed_layer().value("dilation", a, dilation[a]); }
    Expr window_pad(int a) const { return this->fixed_layer().value("pad_begin", a, pad_begin[a]); }
    Expr input_extent(int d) const { return this->fixed_layer().value("input", d, input.dim(d).extent()); }

    // A kernel built for one layer: the input's extents and the window's values are constants,
    // and its estimates. (Each generator fixes its outputs and other inputs the same way.)
    void fix_window_layer() {
        const FixedLayer &layer_shape = this->fixed_layer();
        layer_shape.constrain(input, "input");
        layer_shape.estimate(kernel, "kernel");
        layer_shape.estimate(stride, "stride");
        layer_shape.estimate(dilation, "dilation");
        layer_shape.estimate(pad_begin, "pad_begin");
    }

    Var x{"x"}, y{"y"}, z{"z"}, c{"c"}, n{"n"};

    // The window is reduced one axis at a time (it is a box): first along x, within each input
    // row; then those row results along y; then along z. Each stage has a 1-D RDom, so no
    // schedule (hand-written or an autoscheduler's) can reorder the taps of one stage against
    // another, and scan order (z, then y, then x) is what "ties go to the first element" means.
    // `first`: the first tap the RDom holds (1 for a reduction whose pure definition is tap 0).
    Halide::RDom taps_along(int a, int first = 0) {
        static const char *names[kSpatialAxes] = {"taps_x", "taps_y", "taps_z"};
        return Halide::RDom(first, window_kernel(a) - first, names[a]);
    }

    // Input coordinate of tap k of the window at output coordinate o, along axis a.
    Expr tap(int a, const Expr &o, const Expr &k) {
        return o * window_stride(a) - window_pad(a) + k * window_dilation(a);
    }

    // For each output coordinate o along axis a (a 1-D table), how many window taps lie in
    // [begin, end): k counts when begin <= o*stride - pad_begin + k*dilation < end.
    Func counted_taps(int a, const Expr &begin, const Expr &end) {
        static const char *names[kSpatialAxes] = {"taps_counted_x", "taps_counted_y", "taps_counted_z"};
        Func f(names[a]);
        Var o("o");
        Expr first = o * window_stride(a) - window_pad(a);
        Expr k_begin = Halide::max(0, ceil_div(begin - first, window_dilation(a)));
        Expr k_end = Halide::min(window_kernel(a), ceil_div(end - first, window_dilation(a)));
        f(o) = Halide::max(k_end - k_begin, 0);
        return f;
    }

    // The input as the window stages read it, each element passed through `encode`: a padded copy
    // (padded_input below), or in unpadded kernels the input itself (in_place_input). `name` is
    // the in-place Func's name; `output` the pipeline's output, whose extents tell how far the
    // windows reach.
    template<typename Out>
    Func window_input(const char *name, const std::function<Expr(const Expr &)> &encode, const Expr &padding,
                      Out &output) {
        if (!padded || global) return in_place_input(name, encode);
        return padded_input(encode, padding, {output.dim(0).extent(), output.dim(1).extent(), output.dim(2).extent()});
    }

    // The input itself, encoded at each tap: for windows that never leave it (global pooling, and
    // the unpadded kernels, which the runtime calls where that costs less than a copy of the
    // plane).
    Func in_place_input(const char *name, const std::function<Expr(const Expr &)> &encode) {
        Func f(name);
        f(x, y, z, c, n) = encode(input(x, y, z, c, n));
        return f;
    }

    // The padded copy: each element passed through `encode` (into the type the reduction works
    // in), inside a margin of padding that holds `padding`, a value the reduction ignores (0 for a
    // sum, the lowest key for a max). So no tap needs a mask or a branch: a padding tap simply
    // reads `padding`. The schedule stores this in a scratch buffer, so the encoding runs once per
    // input element, not once per tap, and every tap loads a dense vector, also in the border
    // vectors of a row.
    // Each position is written once: six updates fill the margin the windows reach around the
    // input (before it by the pad, past its end as far as the last window reads), one slab per
    // side, then the last copies the input's own elements (densely: no clamped, gathered border
    // vectors). A side without padding writes one element at (0, 0, 0) instead, inside the input,
    // which the copy overwrites (an empty update would stop Adams2019). The pure definition writes
    // nothing: a schedule that over-computes (whole vectors past a row's end) reads scratch that
    // no output's window reads, into results it discards.
    // The fill: 4 slabs of whole rows (z before and after, then y), then 2 of columns (x).
    std::array<Halide::RDom, 6> padding_margins;
    Halide::RDom input_elements;                  // the copy: the input's own (x, y, z)
    Func padded_input(const std::function<Expr(const Expr &)> &encode, const Expr &padding,
                      const std::array<Expr, kSpatialAxes> &output_extent) {
        Func f("padded_input");
        // Per axis: the input [0, end), and [first, last) what the windows read.
        Expr end[kSpatialAxes], first[kSpatialAxes], last[kSpatialAxes];
        for (int a = 0; a < kSpatialAxes; a++) {
            end[a] = input_extent(a);
            first[a] = Halide::min(0, -window_pad(a));
            last[a] = Halide::max(end[a], tap(a, output_extent[a] - 1, window_kernel(a) - 1) + 1);
        }
        auto slab = [](const std::array<Expr, kSpatialAxes> &from, const std::array<Expr, kSpatialAxes> &to,
                       const char *name) {
            return box_or_origin({from.begin(), from.end()}, {to.begin(), to.end()}, name);
        };
        padding_margins = {slab({first[0], first[1], first[2]}, {last[0], last[1], 0}, "margin_z_before"),
                           slab({first[0], first[1], end[2]}, {last[0], last[1], last[2]}, "margin_z_after"),
                           slab({first[0], first[1], 0}, {last[0], 0, end[2]}, "margin_y_before"),
                           slab({first[0], end[1], 0}, {last[0], last[1], end[2]}, "margin_y_after"),
                           slab({first[0], 0, 0}, {0, end[1], end[2]}, "margin_x_before"),
                           slab({end[0], 0, 0}, {last[0], end[1], end[2]}, "margin_x_after")};
        input_elements = Halide::RDom({{0, end[0]}, {0, end[1]}, {0, end[2]}}, "input_elements");
        const Halide::RDom &e = input_elements;
        Expr value = encode(input(e.x, e.y, e.z, c, n));
        f(x, y, z, c, n) = Halide::undef(value.type());
        for (const Halide::RDom &m : padding_margins) f(m.x, m.y, m.z, c, n) = Halide::cast(value.type(), padding);
        f(e.x, e.y, e.z, c, n) = value;
        return f;
    }

    // What the schedule plan needs to know about a pipeline built from three `along` stages.
    schedules::PoolingStages pooling_stages(Func output, Func padded_input, const Func along[kSpatialAxes],
                                            const Halide::RDom taps[kSpatialAxes]) {
        schedules::PoolingStages s;
        s.output = output;
        s.padded_input = padded_input;
        s.padded = this->padded;
        s.input_elements = input_elements;
        s.padding_margins = padding_margins;
        describe_window(s);
        for (int a = 0; a < kSpatialAxes; a++) {
            s.along[a] = along[a];
            s.taps[a] = taps[a].x;
        }
        return s;
    }

    // The rows-first pipeline (MaxPool's and AvgPool's generate_rows_first), up to the output:
    // for each output row, the window's rows (its y and z taps) reduced column by column, reading
    // the input in place (a row outside the input holds `none`: the vector blends it into the
    // load; or, for an idempotent combine and windows undilated along y and z, is the nearest row
    // inside: below), into a row of such results inside the margin the windows reach along x
    // (which holds `none`), each position written once: the two margins, then the input's
    // columns; then each output reduced along x over its row. Input elements are cast to `work`;
    // `combine` folds a value into a running result (a max, a sum), which starts as the first
    // tap's value for an idempotent combine, else as `none`. The caller defines the output from
    // along_x and fills in output and axis_tables; `output_extent` is the output's (x, y, z)
    // extents; `op` names the two reductions' Funcs ("max", "sum": "max_across_rows", which
    // MaxPool's checked-in autoscheduler results name). `idempotent`: combine(a, a) is a (a max).
    schedules::RowsFirstStages rows_first_stages(const std::string &op, const Halide::Type &work, const Expr &none,
                                                 const std::function<Expr(const Expr &, const Expr &)> &combine,
                                                 bool idempotent, const std::array<Expr, kSpatialAxes> &output_extent) {
        schedules::RowsFirstStages s;
        Expr end[kSpatialAxes];
        for (int a = 0; a < kSpatialAxes; a++) end[a] = input_extent(a);

        // For an idempotent combine (MaxPool's NaN-propagating max) each reduction starts as its
        // first tap, not as `none`: that saves a NaN test and a blend per vector (the first two
        // taps take one test of both). A window of a single tap would then pass a NaN on as it
        // is, not as the canonical NaN: the runtime sends those windows to the padded kernels
        // (rows_first_kernel_pays). Sums start at `none` (0): a first tap of -0 would leave a sum
        // of -0 where the padded kernels give +0.
        s.row_taps = Halide::RDom({{0, window_kernel(1)}, {0, window_kernel(2)}}, "row_taps");
        if (idempotent) s.row_taps.where(s.row_taps.x > 0 || s.row_taps.y > 0);
        auto row_tap = [&](const Expr &ky, const Expr &kz) {
            Expr iy = tap(1, y, ky), iz = tap(2, z, kz);
            Expr row_counts = iy >= 0 && iy < end[1] && iz >= 0 && iz < end[2];
            // An undilated window is a run of rows, so where it reaches past the input and still
            // holds one of its rows, it also holds the input's first or last row: the clamped
            // row. For an idempotent combine, reading that row again changes nothing, and the
            // load needs no blend with `none` (our schedule's specialization on undilated windows
            // makes this select the load itself; an autoscheduler's keeps the select). A window with no row inside the input gets
            // whatever it reads: the caller tests those windows (MaxPool's output takes the
            // lowest value for them).
            if (idempotent) row_counts = row_counts || (window_dilation(1) == 1 && window_dilation(2) == 1);
            Expr v = Halide::cast(work, input(x, Halide::clamp(iy, 0, end[1] - 1), Halide::clamp(iz, 0, end[2] - 1), c, n));
            return Halide::select(row_counts, v, Halide::cast(work, none));
        };
        s.across_rows = Func(op + "_across_rows");
        s.across_rows(x, y, z, c, n) = idempotent ? row_tap(0, 0) : Halide::cast(work, none);
        s.across_rows(x, y, z, c, n) = combine(s.across_rows(x, y, z, c, n), row_tap(s.row_taps.x, s.row_taps.y));

        s.rows = Func("window_rows");
        const Expr first_x = Halide::min(0, -window_pad(0));
        const Expr last_x = Halide::max(end[0], tap(0, output_extent[0] - 1, window_kernel(0) - 1) + 1);
        s.margins = {box_or_origin({first_x}, {Expr(0)}, "margin_x_before"),
                     box_or_origin({end[0]}, {last_x}, "margin_x_after")};
        s.columns = Halide::RDom(0, end[0], "input_columns");
        s.rows(x, y, z, c, n) = Halide::undef(work);
        for (const Halide::RDom &m : s.margins) s.rows(m.x, y, z, c, n) = Halide::cast(work, none);
        s.rows(s.columns.x, y, z, c, n) = s.across_rows(s.columns.x, y, z, c, n);

        const int first_tap = idempotent ? 1 : 0;  // the taps the update folds in: all, or after the first
        const Halide::RDom taps_x = taps_along(0, first_tap);
        s.taps_x = taps_x.x;
        s.along_x = Func(op + "_along_x");
        s.along_x(x, y, z, c, n) = idempotent ? s.rows(tap(0, x, 0), y, z, c, n) : Halide::cast(work, none);
        s.along_x(x, y, z, c, n) = combine(s.along_x(x, y, z, c, n), s.rows(tap(0, x, taps_x), y, z, c, n));

        // No window is padding only where, along every axis, it is undilated and starts before
        // the input's end and ends after its start: the schedule specializes on that.
        s.windows_never_empty = Halide::Internal::const_true();
        for (int a = 0; a < kSpatialAxes; a++) {
            s.windows_never_empty = s.windows_never_empty && window_dilation(a) == 1 && window_pad(a) < window_kernel(a) &&
                                    tap(a, output_extent[a] - 1, 0) < end[a];
        }
        describe_window(s);
        return s;
    }

    // Input and `output` dense from 0; whether our schedule applies (not an autoscheduler's or a
    // checked-in one).
    template<typename Out>
    bool dense_and_ours(Out &output) {
        require_dense_from_zero(input);
        require_dense_from_zero(output);
        return !this->scheduled_elsewhere();
    }

    // The rows-first kernels' schedule section: dense tensors, then the rows-first plan over
    // `stages` with the output and the taps-per-axis tables it reads (`counted`), unless an
    // autoscheduler's or a checked-in schedule applies instead.
    template<typename Out>
    void schedule_rows_first(schedules::RowsFirstStages &stages, Out &output,
                             const std::array<Func, kSpatialAxes> &counted, const Halide::Type &work) {
        if (!dense_and_ours(output)) return;
        stages.output = output;
        stages.axis_tables.assign(counted.begin(), counted.end());
        schedules::schedule_rows_first_pooling(stages, target_params(), work);
    }

    // The flat-plane pipeline (MaxPool's and AvgPool's generate_flat_plane), up to the finished
    // values: for windows at stride 1 and dilation 1 along x and y, one plane deep, whose output
    // plane has the input's size (pads adding up to the window less one along x and y: the calls
    // of PreparedPool::flat_plane in runtime/pooling.cpp, where flat_plane_kernel_pays in
    // pool_limits.h says they pay). Each plane is pooled as one flat
    // row of positions f = y * width + x, so no loop runs per row (a 35-wide row is not 16 + 16 +
    // 3 vector lanes, with a tail, but 35 of a plane's 1225): the plane copied flat into a scratch
    // whose margins hold `none` as far as the windows reach above and below it; the window's
    // rows reduced at each position (taps f + dy * width: a row above or below the plane lands
    // in a margin); then along x (taps f + dx), where a row's ends wrap into the rows beside it:
    // a tap left of the window's centre counts only where the position's column is at least its
    // offset, one right of it only where the column ends before the row does. `combine` and
    // `none` are as in rows_first_stages. The caller defines `pooled` (the finished value at
    // each position, in the work type) from along_x, then calls define_flat_plane_output.
    schedules::FlatPlaneStages flat_plane_stages(const std::string &op, const Halide::Type &work, const Expr &none,
                                                 const std::function<Expr(const Expr &, const Expr &)> &combine,
                                                 bool idempotent) {
        schedules::FlatPlaneStages s;
        const Var f = s.position;
        const Expr width = input_extent(0), positions = input_extent(0) * input_extent(1);
        const Expr pad_x = window_pad(0), pad_y = window_pad(1);
        const Expr reach_before = pad_y * width + pad_x;
        const Expr reach_after = (window_kernel(1) - 1 - pad_y) * width + window_kernel(0) - 1 - pad_x;
        s.plane = Func("flat_plane");
        // Each margin is filled in whole vectors: its run rounded up to a multiple of
        // kFlatMarginLanes, the extra elements lying over the plane's own positions, which the
        // copy (the last update) then overwrites. Over a plane smaller than that, a fill runs on
        // over the other margin (which holds `none` as well) and past it, into a few elements of
        // scratch that bounds inference adds and nothing reads. So no fill ends in a partial
        // vector: a masked store on the AVX-512 path, and on AVX2, whose `vmaskmovps` stores are
        // slow on AMD cores, the margins were filled element by element, about 5% of P3's
        // samples on Zen 3.
        const Expr past_end = Halide::max(reach_after, 0);  // how far the windows reach past the plane's end
        const Expr margin_before = round_up_to_fill(Halide::max(reach_before, 0));
        const Expr margin_after = round_up_to_fill(past_end);
        s.margins = {Halide::RDom(-reach_before, margin_before, "margin_before"),
                     Halide::RDom(positions + past_end - margin_after, margin_after, "margin_after")};
        s.positions = Halide::RDom(0, positions, "positions");
        const Expr p = s.positions.x;
        s.plane(f, z, c, n) = Halide::undef(work);
        for (const Halide::RDom &m : s.margins) s.plane(m.x, z, c, n) = Halide::cast(work, none);
        // Rows are dense (the schedule's specialization turns this address into p itself).
        s.plane(p, z, c, n) = Halide::cast(work, input(p % width, p / width, z, c, n));

        // For an idempotent combine each reduction starts as its first tap (as in
        // rows_first_stages; the runtime sends this kernel windows of at least 3x3).
        const int first = idempotent ? 1 : 0;
        s.row_taps = taps_along(1, first);
        s.across_rows = Func(op + "_across_rows");
        s.across_rows(f, z, c, n) = idempotent ? s.plane(f - pad_y * width, z, c, n) : Halide::cast(work, none);
        s.across_rows(f, z, c, n) =
            combine(s.across_rows(f, z, c, n), s.plane(f + (s.row_taps.x - pad_y) * width, z, c, n));
        s.rows = Func("window_rows");
        s.rows(f, z, c, n) = s.across_rows(f, z, c, n);

        s.columns = Func("columns");
        s.columns(f) = f - flat_row(f, width) * width;
        const Halide::RDom taps_x = taps_along(0, first);
        s.taps_x = taps_x.x;
        // One compare per tap (none at the centre, constant offsets fold): testing both ends of
        // the row at every tap cost MaxPool up to 1.2x the time (docs/PERFORMANCE_HISTORY.md).
        auto column_tap = [&](const Expr &k) {
            const Expr offset = k - pad_x, column = s.columns(f);
            const Expr counts = Halide::select(offset < 0, column >= -offset,
                                               Halide::select(offset > 0, column < width - offset, Halide::Internal::const_true()));
            return Halide::select(counts, s.rows(f + offset, z, c, n), Halide::cast(work, none));
        };
        s.along_x = Func(op + "_along_x");
        s.along_x(f, z, c, n) = idempotent ? column_tap(0) : Halide::cast(work, none);
        s.along_x(f, z, c, n) = combine(s.along_x(f, z, c, n), column_tap(taps_x.x));
        s.pooled = Func("pooled");

        s.width = width;
        s.applies = width > 0 && positions < (1 << 24) && window_kernel(2) == 1 && window_pad(2) == 0 &&
                    window_stride(2) == 1;
        for (int a = 0; a < 2; a++) {
            s.applies = s.applies && window_stride(a) == 1 && window_dilation(a) == 1 && window_pad(a) < window_kernel(a);
        }
        describe_window(s);
        s.input_plane_elements = positions;  // one plane (z planes are pooled one by one)
        for (int a = 0; a < kSpatialAxes; a++) s.pad_begin[a] = window_pad(a);
        return s;
    }

    // The flat-plane kernels' output: each position's pooled value, converted, written by an
    // update over the plane's positions p at (p % width, p / width) (the pure definition writes
    // nothing), so that a chunk of positions needs just its own pooled values (the schedule's
    // comment says why not pure x and y). Input and output planes are dense and of one size.
    template<typename Out>
    void define_flat_plane_output(schedules::FlatPlaneStages &s, Out &output) {
        s.output_positions = Halide::RDom(0, input_extent(0) * input_extent(1), "output_positions");
        const Expr p = s.output_positions.x;
        output(x, y, z, c, n) = Halide::undef(data_type());
        output(p % s.width, p / s.width, z, c, n) = to_data_type(data_type(), s.pooled(p, z, c, n));
        input.dim(1).set_stride(input.dim(0).extent());
        output.dim(1).set_stride(output.dim(0).extent());
        for (int d = 0; d < 3; d++) output.dim(d).set_extent(input.dim(d).extent());
    }

    // The flat-plane margins' fills are whole vectors of any path's lanes (at most 16: f32 on
    // AVX-512), whose counts all divide this.
    static constexpr int kFlatMarginLanes = 16;
    static Expr round_up_to_fill(const Expr &elements) {
        return ceil_div(elements, Expr(kFlatMarginLanes)) * kFlatMarginLanes;
    }

    // num / den rounded up, for den > 0 and any num (Halide's division rounds down).
    static Expr ceil_div(const Expr &num, const Expr &den) { return (num + den - 1) / den; }

    // floor(f / width) for 0 <= f < 2^24: a float quotient corrected by one either way (a vector
    // integer division by a run-time width would be one scalar division per lane).
    static Expr flat_row(const Expr &f, const Expr &width) {
        const Expr estimate = Halide::cast<int>(Halide::floor((Halide::cast<float>(f) + 0.5f) / Halide::cast<float>(width)));
        return Halide::select(estimate * width > f, estimate - 1,
                              Halide::select((estimate + 1) * width <= f, estimate + 1, estimate));
    }

    // The flat-plane kernels' schedule section, as schedule_rows_first's: dense tensors, then the
    // plan with the per-call tables (`tables`: the columns, AvgPool's divisors).
    template<typename Out>
    void schedule_flat_plane(schedules::FlatPlaneStages &stages, Out &output, const std::vector<Func> &tables,
                             const Halide::Type &work) {
        if (!dense_and_ours(output)) return;
        stages.output = output;
        stages.tables = tables;
        schedules::schedule_flat_plane_pooling(stages, target_params(), work);
    }

    // The window numbers a schedule plan specializes on, and the input plane's size, into a plan's
    // stages (schedules::PoolingStages, RowsFirstStages, FlatPlaneStages).
    template<typename Stages>
    void describe_window(Stages &s) {
        s.input_plane_elements = input_extent(0) * input_extent(1) * input_extent(2);
        for (int a = 0; a < kSpatialAxes; a++) {
            s.kernel[a] = window_kernel(a);
            s.stride[a] = window_stride(a);
            s.dilation[a] = window_dilation(a);
        }
    }

    // Dense NCDHW: x is the unit-stride axis, and every tensor starts at coordinate 0.
    template<typename Buf>
    static void require_dense_from_zero(Buf &b) {
        b.dim(0).set_stride(1);
        for (int d = 0; d < 5; d++) b.dim(d).set_min(0);
    }

    // Estimates on the data input and the window attributes, for the autoschedulers.
    void set_input_estimates() {
        using E = EstimateShape;
        if (global) {
            input.set_estimates({{0, E::global_plane}, {0, 1}, {0, 1}, {0, E::global_channels}, {0, E::batch}});
        } else if (flat_plane) {
            const int *p = E::flat_plane;
            input.set_estimates({{0, p[0]}, {0, p[1]}, {0, p[2]}, {0, E::flat_plane_channels}, {0, E::batch}});
        } else {
            input.set_estimates({{0, E::in[0]}, {0, E::in[1]}, {0, E::in[2]}, {0, E::channels}, {0, E::batch}});
        }
        for (int a = 0; a < kSpatialAxes; a++) {
            kernel.set_estimate(a, global ? (a == 0 ? E::global_plane : 1) : E::kernel[a]);
            stride.set_estimate(a, global || flat_plane ? 1 : E::stride[a]);
            dilation.set_estimate(a, 1);
            pad_begin.set_estimate(a, padded && !global ? E::pad[a] : 0);
        }
    }

    template<typename Out>
    void set_output_estimates(Out &out) const {
        using E = EstimateShape;
        if (global) {
            out.set_estimates({{0, 1}, {0, 1}, {0, 1}, {0, E::global_channels}, {0, E::batch}});
            return;
        }
        if (flat_plane) {
            const int *p = E::flat_plane;
            out.set_estimates({{0, p[0]}, {0, p[1]}, {0, p[2]}, {0, E::flat_plane_channels}, {0, E::batch}});
            return;
        }
        const int *o = padded ? E::out : E::out_unpadded;
        out.set_estimates({{0, o[0]}, {0, o[1]}, {0, o[2]}, {0, E::channels}, {0, E::batch}});
    }

    schedules::TargetParams target_params() const {
        return schedules::target_params(this->get_target());
    }

    // The kernels that read their input in place (unpadded and rows first; not global pooling,
    // whose windows are whole planes) stream it: prefetched ahead where the target's table says
    // (TargetParams::in_place_prefetch_bytes). Called from schedule(). The table is read for our
    // own schedules only: a target that an autoscheduler schedules may have none.
    void prefetch_input_read_in_place(bool rows_first) {
        if (this->scheduled_elsewhere() || global || (padded && !rows_first)) return;
        const int prefetch_bytes = target_params().in_place_prefetch_bytes;
        if (prefetch_bytes > 0) schedules::prefetch_ahead(this->get_pipeline(), "input", prefetch_bytes);
    }
};

}  // namespace poolconv::generators
