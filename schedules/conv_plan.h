// The convolution kernels' plans and the rule that picks one for a call, in one place: the runtime
// calls choose_conv_plan (runtime/convolution.cpp), the generator builds one kernel per plan, and
// the schedules' fast paths specialize on the same window predicates
// (schedules/convolution_schedule.cpp). Plain C++ with no Halide, so the runtime can include it;
// the predicates are templates that also build Halide conditions from Halide::Expr arguments.
#pragma once

#include <cstdint>
#include <string_view>

namespace poolconv {

// Which convolutions a kernel is built for (the convolution generator's `plan` parameter, and the
// kernel name's suffix after conv_<type>); each gets its TargetParams tile.
enum class ConvPlan {
    general,       // any convolution: tiles of output channels
    one_vector,    // the same, in tiles one vector wide, where the CPU halves its 512-bit FMAs (AVX-512 only)
    row_pairs,     // undilated 3x3(xk) kernels with equal x and y strides: tiles two rows high
    depthwise,     // one input and one output channel per group: tiles of rows
    depthwise_1d,  // the same, output one row high (1-D convolutions): tiles of one row
    pointwise,     // 1x1 kernel, stride 1, no padding: the runtime passes the spatial axes as one x axis
    channel_vectors,  // undilated 3x3 kernels, stride 1, 2-D: tiles of output-channel vectors by columns
    wide_window,   // GPUs only: any convolution, the taps reading the input from global memory, for
                   // windows whose staged input would not fit a block's shared memory
};

struct ConvPlanName {
    ConvPlan plan;
    const char *name;    // generator parameter value: plan=row_pairs
    const char *suffix;  // kernel name suffix: conv_f32_row_pairs ("" for general)
};
inline constexpr ConvPlanName kConvPlanNames[] = {
    {ConvPlan::general, "general", ""},
    {ConvPlan::one_vector, "one_vector", "_one_vector"},
    {ConvPlan::row_pairs, "row_pairs", "_row_pairs"},
    {ConvPlan::depthwise, "depthwise", "_depthwise"},
    {ConvPlan::depthwise_1d, "depthwise_1d", "_depthwise_1d"},
    {ConvPlan::pointwise, "pointwise", "_pointwise"},
    {ConvPlan::channel_vectors, "channel_vectors", "_channel_vectors"},
    {ConvPlan::wide_window, "wide_window", "_wide_window"},
};

// The general plan, in either tile (the schedules give both the same fast paths).
inline bool is_general_plan(ConvPlan plan) { return plan == ConvPlan::general || plan == ConvPlan::one_vector; }

inline std::string_view conv_plan_suffix(ConvPlan plan) {
    for (const ConvPlanName &p : kConvPlanNames) {
        if (p.plan == plan) return p.suffix;
    }
    return "";
}

// Why `plan` cannot take a parallel task of x_tiles x row_tiles accumulator tiles (the convolution
// generator's `task` parameter, which poolconv-tune varies), or nullptr where it can. 0 x 0 keeps the
// plan's own rule. The generator refuses these shapes (schedules/convolution_schedule.cpp) and
// poolconv-tune does not offer them (tune/candidates.cpp).
inline const char *conv_task_shape_refusal(ConvPlan plan, int x_tiles, int row_tiles) {
    if (x_tiles == 0 && row_tiles == 0) return nullptr;
    switch (plan) {
    case ConvPlan::depthwise:
    case ConvPlan::depthwise_1d: return "depthwise tasks are whole planes, so a task shape does not apply";
    case ConvPlan::channel_vectors:
        return x_tiles == 1 ? nullptr : "channel-vector tasks are whole rows, so x_tiles must be 1";
    case ConvPlan::pointwise:
        return row_tiles == 1 ? nullptr : "pointwise kernels see a plane as one row, so row_tiles must be 1";
    default: return nullptr;
    }
}

// The row-pair kernels' windows: undilated 3x3 with the same stride (1 or 2) along x and y, where
// the two rows of a tile share input rows. T is int64_t for the runtime's choice, Halide::Expr for
// the schedule's specializations.
template <typename T>
auto row_pair_window(const T &kernel_x, const T &kernel_y, const T &stride_x, const T &stride_y, const T &dilation_x,
                     const T &dilation_y) {
    return kernel_x == 3 && kernel_y == 3 && stride_x == stride_y && stride_x <= 2 && dilation_x == 1 &&
           dilation_y == 1;
}

// What choose_conv_plan needs to know about a call; window numbers in Halide axis order (0 = x =
// W, 1 = y = H, 2 = z = D), 1 for the axes a 1-D or 2-D convolution lacks.
struct ConvCallFacts {
    int spatial = 2;  // spatial axes of the tensors: 1, 2 or 3
    int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
    bool depthwise = false;     // one input and one output channel per group
    int64_t output_rows = 1;    // output extent along y (1 for 1-D convolutions)
    int64_t output_columns = 1;  // output extent along x
    int64_t output_channels = 1;  // output channels per group
    bool one_to_one = false;    // 1x1 kernel, stride 1 and no padding along every axis
    bool planes_dense = false;  // input and output planes are dense runs the pointwise kernels can take as one row
    // The CPU runs a 512-bit FMA as two 256-bit halves, one per cycle (AMD Zen 4: cpu_halves_512_bit_fmas
    // in runtime/dispatch.cpp), where cores with two 512-bit FMA pipes run two.
    bool halved_512_bit_fmas = false;
};

// The GPU plans' blocks (schedules/convolution_schedule_gpu.cpp): one warp's kGpuWarpLanes output
// columns by kGpuConvRows rows; per step of kGpuStagedChannels input channels the block copies
// their input window into shared memory, as f32 (the sums' type on GPUs).
inline constexpr int64_t kGpuWarpLanes = 32, kGpuConvRows = 4, kGpuStagedChannels = 4;
// The shared memory a block may take without opting in: CUDA's limit on every GPU (a larger
// launch fails with CUDA_ERROR_INVALID_VALUE); OpenCL GPUs offer 32-64 KiB.
inline constexpr int64_t kGpuSharedMemoryBytes = 48 * 1024;

// An upper bound of the shared memory one staging step takes (Halide sizes it per launch): the x
// window of 32 columns, all stride phases; kGpuConvRows rows; the whole z window (one output
// plane per launch); kGpuStagedChannels channels, one for depthwise convolutions (their kernels
// stage the group's one channel). Strides and dilations as the call gives them (the kernels may
// get 1 where an axis has one output or one tap: smaller).
// Each extent is capped just above the limit, so that the product cannot overflow: any capped one
// exceeds the limit alone.
inline int64_t gpu_staged_window_bytes(const ConvCallFacts &f) {
    auto capped = [](int64_t v) { return v > kGpuSharedMemoryBytes ? kGpuSharedMemoryBytes + 1 : v; };
    const int64_t x = capped((kGpuWarpLanes + 1) * f.stride[0] + (f.kernel[0] - 1) * f.dilation[0]);
    const int64_t y = capped((kGpuConvRows - 1) * f.stride[1] + (f.kernel[1] - 1) * f.dilation[1] + 1);
    const int64_t z = capped((f.kernel[2] - 1) * f.dilation[2] + 1);
    const int64_t channels = f.depthwise ? 1 : kGpuStagedChannels;
    return channels * x * y * z * int64_t(sizeof(float));
}

// The channel-vector kernels are built for AVX-512 and f32 only (generators/variants.cmake), where
// row-pair kernels compute rows in vectors of 16 columns: a 56-wide row (ResNet's) computes 64,
// a 14-wide one 16. Their time over the row-pair kernels' (interleaved; 1 / 2 threads on a 2-core
// Zen 4, 1 / 16 on a 16-core Sapphire Rapids-class Xeon; PERFORMANCE_HISTORY.md, 2026-11-27):
// C1 0.91 / 0.96 and 0.81 / 0.89, C4 1.03 / 0.81 and 1.00 / 0.45, C9 0.95 / 0.93 and 0.90 /
// 0.78, 7-wide rows 0.93 / 0.90 and 0.83 / 0.47, 28-wide 0.94 / 0.93 on Zen 4 but 1.37 / 1.28 on
// the Xeon. On 112-wide rows, which vectors cover exactly, 1.03-1.05 (1 thread), and at stride 2
// 1.5 (Zen 4): neither takes them.
inline constexpr int64_t kRowPairVectorLanes = 16;
inline constexpr int64_t kChannelVectorChannels = 32;  // the AVX-512 channel-vector tile's channels

// n rounded up to a multiple of `block`.
inline int64_t round_up(int64_t n, int64_t block) { return (n + block - 1) / block * block; }

// The plan for a call, given which plans have a kernel on the call's path (`built(plan)`: the CPU
// paths have all but wide_window, GPUs general, depthwise and wide_window). The first that takes
// the call:
//   wide_window   the staged window exceeds kGpuSharedMemoryBytes (any convolution);
//   depthwise_1d  depthwise with one output row (its tile is one row; depthwise's is several);
//   depthwise     one input and one output channel per group;
//   pointwise     1x1, stride 1, no padding, dense planes (a matrix product over the pixels);
//   channel_vectors  row_pair_window with stride 1, 2-D, two or more output rows, where its tiles
//                 compute fewer outputs past the end than row pairs' do: it rounds the output
//                 channels up to kChannelVectorChannels, row pairs round rows up to
//                 kRowPairVectorLanes columns (56 columns and 64 channels: 56 x 64 outputs
//                 against 64 x 64; 8 channels: 56 x 32 against 64 x 8);
//   row_pairs     row_pair_window and two or more output rows;
//   one_vector    anything, where the CPU halves its 512-bit FMAs (halved_512_bit_fmas);
//   general       anything.
// One vector by 16 channels (one_vector) against two vectors by 8 (general), on the AVX-512 path:
// per tap one input vector and 16 weight broadcasts for 16 FMAs, where the general tile has two
// and 8. On an Intel Xeon (Emerald Rapids: two 512-bit FMA pipes) the one-vector tile took 1.37x
// the time on C6 and 1.2-1.3x on C8 at 1 thread (bench/cases.h; docs/PERFORMANCE_HISTORY.md,
// df0a298; which difference costs was not isolated). On Zen 4 (one a cycle) it took 0.84-0.91x the
// time on C2, whose 112-wide rows it computes in 7 vectors where the general tile computes 8 (4
// tiles of 2), and was level on C6, C8 and C10 (0.94-1.02; 1 and 2 threads, 2026-11-30). So there
// rows 1-16 columns past a multiple of 32 should gain, and none measured lost.
template <typename Built>
ConvPlan choose_conv_plan(const ConvCallFacts &f, const Built &built) {
    const ConvPlan order[] = {ConvPlan::wide_window,     ConvPlan::depthwise_1d, ConvPlan::depthwise, ConvPlan::pointwise,
                              ConvPlan::channel_vectors, ConvPlan::row_pairs,    ConvPlan::one_vector};
    for (ConvPlan plan : order) {
        bool takes = false;
        switch (plan) {
        case ConvPlan::wide_window: takes = gpu_staged_window_bytes(f) > kGpuSharedMemoryBytes; break;
        case ConvPlan::depthwise_1d: takes = f.depthwise && f.output_rows == 1; break;
        case ConvPlan::depthwise: takes = f.depthwise; break;
        case ConvPlan::pointwise: takes = !f.depthwise && f.one_to_one && f.planes_dense; break;
        case ConvPlan::channel_vectors:
            takes = f.spatial == 2 && f.output_rows >= 2 && f.stride[0] == 1 &&
                    row_pair_window(f.kernel[0], f.kernel[1], f.stride[0], f.stride[1], f.dilation[0], f.dilation[1]) &&
                    round_up(f.output_channels, kChannelVectorChannels) * f.output_columns <
                        round_up(f.output_columns, kRowPairVectorLanes) * f.output_channels;
            break;
        case ConvPlan::row_pairs:
            takes = f.spatial >= 2 && f.output_rows >= 2 &&
                    row_pair_window(f.kernel[0], f.kernel[1], f.stride[0], f.stride[1], f.dilation[0], f.dilation[1]);
            break;
        case ConvPlan::one_vector: takes = f.halved_512_bit_fmas; break;
        case ConvPlan::general: break;
        }
        if (takes && built(plan)) return plan;
    }
    return ConvPlan::general;
}

}  // namespace poolconv
