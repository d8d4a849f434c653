// The `poolconv` command line, parsed and checked as far as it can be without reading any file.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "poolconv/convolution.h"
#include "poolconv/pooling.h"
#include "poolconv/tensor.h"

namespace poolconv::cli {

// A bad command line (unknown, missing or repeated option, malformed value): exit status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Command { help, version, maxpool, avgpool, conv, shape };
enum class ShapeOp { none, maxpool, avgpool, conv };  // the operator of `shape`

struct Options {
    Command command = Command::help;
    ShapeOp shape_op = ShapeOp::none;
    std::string input, output, indices;                // -i, -o, --indices ("" when absent)
    std::string weights, bias;                         // conv: -w, -b ("" when absent)
    std::vector<int64_t> input_shape, weights_shape;  // shape only
    PoolAttributes pool;                               // --kernel ... --rounding (conv: the window part)
    int64_t group = 1;                                 // conv: --group
    Activation activation = Activation::none;          // conv: --activation
    float clamp_min = 0, clamp_max = 0;                // conv: --clamp (with --activation clamp)
    int64_t axis = 0;
    StorageOrder storage_order = StorageOrder::row_major;
    DType index_type = DType::i64;
    AvgPadMode pad_mode = AvgPadMode::exclude_pad;
    int threads = -1;  // --threads; -1 when absent
};

// Throws UsageError naming the offending option or argument.
Options parse_command_line(int argc, const char *const argv[]);

// "maxpool", "avgpool", "shape maxpool", ...: how messages name the command.
std::string command_name(const Options &options);

}  // namespace poolconv::cli
