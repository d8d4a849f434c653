// What the convolution runtime (which packs weights and checks sizes) and the convolution schedules
// (which read packed weights and over-compute whole tiles) agree on. Plain C++, no Halide.
#pragma once

namespace poolconv {

// Packed weights and bias hold each group's output channels padded with zeros to a multiple of
// this: a tile of ConvTile::channels output channels (a divisor of it) never reads past the end.
constexpr int kOutputChannelBlock = 16;

// Tiles over-compute at most this many outputs past the end of a row or column (and their
// coordinates must still fit in int32).
constexpr int kMaxTileOvercompute = 1024;

}  // namespace poolconv
