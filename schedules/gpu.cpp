// GPUs through Halide's CUDA and OpenCL backends (the same plans for both). Pooling: thread
// blocks of 32 x 8 output positions, one thread per output position. Convolution: one warp per
// block, each lane owning `channels` x `rows` results of one output column.
#include "target_params.h"

#include "schedules/conv_plan.h"

namespace poolconv::schedules {

TargetParams gpu_params(bool warp_lanes) {
    TargetParams p{"gpu", /*vector_bytes=*/4, /*vector_registers=*/0,
                   // 8 output channels x 4 rows per lane: 32 accumulators, and each input value
                   // a lane reads from shared memory feeds 8 FMAs; the weights are the same for
                   // the whole warp (broadcast loads).
                   // kGpuConvRows: the runtime sizes the staged window by it (conv_plan.h).
                   /*conv_tile=*/{1, 8, int(kGpuConvRows)},
                   // No row-pair kernels are built for GPUs (the general plan serves 3x3 too).
                   /*row_pair_tile=*/{1, 8, 4},
                   // Depthwise: one channel per group, so 4 rows of one channel per lane.
                   /*depthwise_tile=*/{1, 1, int(kGpuConvRows)},
                   // Unused: no 1-D depthwise kernels are built for GPUs (the depthwise plan
                   // serves them).
                   /*depthwise_1d_tile=*/{1, 1, 1},
                   // No pointwise kernels are built for GPUs (the general plan serves 1x1).
                   /*pointwise_tile=*/{1, 8, 4},
                   // Unused: channel-vector kernels are built for AVX-512 only.
                   /*channel_vector_tile=*/{1, 8, 4},
                   // Unused: one-vector kernels are built for AVX-512 only.
                   /*one_vector_tile=*/{1, 8, 4}};
    p.gpu = true;
    p.gpu_warp_lanes = warp_lanes;
    return p;
}

}  // namespace poolconv::schedules
