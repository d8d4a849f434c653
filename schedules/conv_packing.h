// What the convolution runtime (which packs weights and checks sizes) and the convolution schedules
// (which read packed weights and over-compute whole tiles) agree on. Plain C++, no Halide.
#pragma once

namespace poolconv {

// Packed weights and bias hold each group's output channels padded with zeros to a multiple of
// this: a tile of ConvTile::channels output channels (a divisor of it) never reads past the end.
// (32: AVX-512's channel-vector tile, two vectors of 16.)
constexpr int kOutputChannelBlock = 32;

// Packed weights keep output channels in runs of this many: for each run, every (ci, kz, ky, kx)
// of it in turn, the run's channels innermost. A tile of 4 or 8 output channels then streams its
// weights from one or two sequential runs, using every byte of each cache line it loads (with
// all of a group's channels innermost, a 4-channel tile used a quarter of each line, and the
// lines sat a power-of-two stride apart, crowding a few L1 sets). Tiles are 1 channel
// (depthwise) or a multiple of this.
constexpr int kPackedChannels = 4;
static_assert(kOutputChannelBlock % kPackedChannels == 0, "runs must tile the padded channels");

// The channel-vector kernels (schedules/conv_plan.h) read the same weights in runs of this many
// channels instead, each tap's run one vector of 16 f32 lanes; the runtime makes that copy of the
// packed weights on their first call.
constexpr int kChannelVectorRun = 16;
static_assert(kOutputChannelBlock % kChannelVectorRun == 0, "runs must tile the padded channels");

// Tiles over-compute at most this many outputs past the end of a row or column (and their
// coordinates must still fit in int32).
constexpr int kMaxTileOvercompute = 1024;

}  // namespace poolconv
