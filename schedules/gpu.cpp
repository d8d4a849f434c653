// GPUs through Halide's CUDA and OpenCL backends (the same plans for both): thread blocks of
// 32 x 8 output positions, one thread per output position (times `channels` for convolution).
#include "target_params.h"

namespace poolconv::schedules {

TargetParams gpu_params() {
    TargetParams p{"gpu", /*vector_bytes=*/4, /*vector_registers=*/0,
                   // 8 output channels per thread: each input value a thread loads feeds 8 FMAs,
                   // and a warp's threads load neighbouring x (coalesced); the weights are the
                   // same for the whole block (broadcast loads).
                   /*conv_tile=*/{1, 8, 1},
                   /*depthwise_tile=*/{1, 1, 1}};
    p.gpu = true;
    return p;
}

}  // namespace poolconv::schedules
