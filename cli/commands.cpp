// The `poolconv` tool's commands: help, version, shape inference, and MaxPool / AvgPool /
// Convolution on .npy files (main.cpp is the process around them).
#include "cli/commands.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <new>
#include <string>

#include "cli/npy.h"
#include "cli/npy_pending.h"
#include "cli/options.h"
#include "poolconv/poolconv.h"

#ifndef POOLCONV_VERSION
#define POOLCONV_VERSION "unknown"
#endif

namespace poolconv::cli {
namespace {

constexpr const char kHelp[] = R"(poolconv: MaxPool, AvgPool and Convolution (OpenVINO / ONNX semantics) on NumPy .npy files

Usage:
  poolconv maxpool -i X.npy -o Y.npy [--indices I.npy] --kernel K,.. [--strides S,..] [--dilations D,..]
                   [--pads-begin P,..] [--pads-end P,..] [--auto-pad explicit|valid|same_upper|same_lower]
                   [--rounding floor|ceil|ceil_torch] [--axis A] [--storage-order row|col]
                   [--index-type i64|i32] [--threads N]
  poolconv avgpool -i X.npy -o Y.npy --kernel K,.. [--strides ..] [--dilations ..] [--pads-begin ..]
                   [--pads-end ..] [--auto-pad ..] [--rounding ..]
                   [--exclude-pad | --include-pad | --include-pad-openvino] [--threads N]
  poolconv conv -i X.npy -w W.npy [-b B.npy] -o Y.npy [--strides ..] [--dilations ..] [--pads-begin ..]
                   [--pads-end ..] [--auto-pad ..] [--group G] [--activation none|relu|relu6|clamp]
                   [--clamp MIN,MAX] [--threads N]
  poolconv shape maxpool|avgpool --input-shape N,C,.. --kernel K,.. [the attributes above]
  poolconv shape conv --input-shape N,C,.. --weights-shape O,I,.. [--strides ..] [--dilations ..]
                   [--pads-begin ..] [--pads-end ..] [--auto-pad ..] [--group G]
  poolconv --help | -h          (also after a command: poolconv maxpool --help)
  poolconv --version

Tensors are .npy files (format 1.0, 2.0 or 3.0; little-endian, C order) of shape N,C,W / N,C,H,W /
N,C,D,H,W. The dtype comes from the input file and the output has the same dtype.
  maxpool: float32 (<f4), float16 (<f2), float64 (<f8), int8 (|i1), uint8 (|u1)
  avgpool: float32, float16 (accumulated in float32), float64 (accumulated in float64)
  conv:    float32, float16 (accumulated in float32), float64 (accumulated in float64); weights
           and bias have the input's dtype
`shape` prints one JSON line: {"output_shape":[..],"pads_begin":[..],"pads_end":[..]}, the pads
being those applied after --auto-pad is resolved.

Options (lists have one integer per spatial dimension, outermost first, comma-separated, no spaces;
an option's value is the next argument or follows '=': --kernel=3,3):
  -i PATH               input .npy
  -o PATH               output .npy (replaced atomically: written to a temporary file in the same
                        directory, renamed into place once every output is complete)
  --indices PATH        maxpool: also write the argmax indices (position in the input, padding not
                        counted), same shape as the output
  -w PATH               conv: weights .npy, C_out,C_in/G,k.. (ONNX), or G,C_out/G,C_in/G,k..
                        (OpenVINO GroupConvolution: one dimension more than the input)
  -b PATH               conv: bias .npy, shape C_out (default: no bias)
  --input-shape N,C,..  shape: the input shape
  --weights-shape O,I,..  shape conv: the weights shape, either layout as for -w
  --kernel K,..         window size, each >= 1 (required for maxpool and avgpool)
  --strides S,..        each >= 1 (default 1)
  --dilations D,..      each >= 1 (default 1)
  --pads-begin P,..     each >= 0 (default 0); used only with --auto-pad explicit
  --pads-end P,..       each >= 0 (default 0); used only with --auto-pad explicit
  --auto-pad MODE       explicit (default; the given pads, ONNX NOTSET), valid (no padding),
                        same_upper / same_lower (output = ceil(input / stride), the odd pad at the
                        end / at the beginning)
  --rounding MODE       output size rounding: floor (default), ceil (windows may start in the end
                        padding), ceil_torch (ceil, but a last window starting in the end padding is
                        dropped: PyTorch ceil_mode, ONNX ceil_mode=1)
  --axis A              maxpool indices count positions from dimension A on (OpenVINO MaxPool-8;
                        default 0: the whole tensor; 2: within each (n, c) plane; negative counts
                        from the end; must lie in [-rank, rank-1])
  --storage-order ORD   maxpool indices: row (default) or col (ONNX storage_order=1: the spatial
                        part column-major; needs --axis <= 2)
  --index-type T        maxpool indices dtype: i64 (default) or i32
  --exclude-pad         avgpool divisor: the window elements inside the input (default; ONNX
                        count_include_pad=0, OpenVINO exclude-pad=true)
  --include-pad         avgpool divisor: the window positions inside the padded input (ONNX
                        count_include_pad=1, PyTorch)
  --include-pad-openvino  avgpool divisor as OpenVINO exclude-pad=false: the whole kernel volume if
                        any pad is non-zero, else the elements inside the input
  --group G             conv: groups (default 1; C_in and C_out must divide by it; G = C_in is
                        depthwise). Grouped (OpenVINO) weights carry G; --group must then match
  --activation A        conv: applied after the bias: none (default), relu, relu6, or clamp
  --clamp MIN,MAX       conv: the bounds of --activation clamp (required with it)
  --threads N           worker threads (0..1024; 0 = default; no effect on `shape`)

Environment:
  POOLCONV_NUM_THREADS  default number of worker threads (1..1024; default: one per hardware
                        thread). --threads overrides it.
  POOLCONV_ISA          force a code path: avx512, avx2, baseline, neon, cuda or opencl (default:
                        the best this CPU has; a path the machine lacks falls back to the best it has)
  An invalid value of either is an error (exit status 1).

Exit status:
  0  success
  1  the data or the run failed: missing, unreadable, corrupt or unsupported .npy file (bad header,
     truncated, Fortran order, big-endian, unsupported dtype), attributes that do not fit the input
     tensor (list length vs rank, output size < 1, overflow; conv: channel counts that do not
     match the weights or divide by the group, a bias of the wrong length or dtype), an output
     that cannot be written,
     out of memory
  2  the command line is invalid: unknown, missing, repeated or misplaced option, malformed number
     or list, attribute out of range, unknown mode; for `shape`, attributes that do not fit
     --input-shape / --weights-shape
On an error, one line starting with "poolconv: " goes to stderr and no output file is written.
)";


// Writes to stdout; Error if that fails (e.g. a full disk or a closed pipe).
void print_stdout(const std::string &text) {
    if (std::fputs(text.c_str(), stdout) < 0 || std::fflush(stdout) != 0) throw Error("cannot write to stdout");
}

std::string json_list(const std::vector<int64_t> &values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); i++) s += (i ? "," : "") + std::to_string(values[i]);
    return s + "]";
}

// OpenVINO MaxPool-8's axis rule, checked whether or not indices are written.
void check_axis(const Options &o, std::size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    const int64_t axis = o.axis < 0 ? o.axis + r : o.axis;
    if (axis < 0 || axis >= r) {
        throw Error("--axis " + std::to_string(o.axis) + " is outside [" + std::to_string(-r) + ", " +
                    std::to_string(r - 1) + "] for a rank-" + std::to_string(r) + " input");
    }
    if (o.storage_order == StorageOrder::column_major && axis > 2) {
        throw Error("--storage-order col needs --axis <= 2, got " + std::to_string(o.axis));
    }
}

MaxPoolAttributes max_attributes(const Options &o) {
    MaxPoolAttributes a;
    static_cast<PoolAttributes &>(a) = o.pool;
    a.axis = o.axis;
    a.storage_order = o.storage_order;
    return a;
}

AvgPoolAttributes avg_attributes(const Options &o) {
    AvgPoolAttributes a;
    static_cast<PoolAttributes &>(a) = o.pool;
    a.pad_mode = o.pad_mode;
    return a;
}

// Convolution attributes from the command line. Weights with one dimension more than the input
// are OpenVINO GroupConvolution weights (G, C_out/G, C_in/G, k...).
ConvAttributes conv_attributes(const Options &o, std::size_t input_rank, std::size_t weights_rank) {
    ConvAttributes a;
    static_cast<WindowAttributes &>(a) = o.pool;  // the window options; --kernel is not one of conv's
    a.group = o.group;
    a.weights_layout = weights_rank == input_rank + 1 ? WeightsLayout::grouped : WeightsLayout::onnx;
    a.activation = o.activation;
    a.clamp_min = o.clamp_min;
    a.clamp_max = o.clamp_max;
    return a;
}

void run_shape(const Options &o) {
    PoolGeometry g;
    try {
        if (o.shape_op == ShapeOp::conv) {
            g = infer_conv_shape(o.input_shape, o.weights_shape,
                                 conv_attributes(o, o.input_shape.size(), o.weights_shape.size()));
        } else {
            g = infer_pool_shape(o.input_shape, o.pool);
        }
        if (o.shape_op == ShapeOp::maxpool) check_axis(o, o.input_shape.size());
    } catch (const Error &e) {
        throw UsageError(e.what());  // everything came from the command line
    }
    print_stdout("{\"output_shape\":" + json_list(g.output_shape) + ",\"pads_begin\":" + json_list(g.pads_begin) +
                 ",\"pads_end\":" + json_list(g.pads_end) + "}\n");
}

// Uninitialized: the kernels write every element.
std::unique_ptr<uint8_t[]> allocate(DType dtype, const std::vector<int64_t> &shape) {
    const int64_t count = TensorView{dtype, shape, {}, nullptr}.element_count();
    // The kernels' limit (see runtime/validation.cpp), checked before asking for the memory.
    if (count > INT32_MAX) {
        throw Error("output shape " + shape_to_string(shape) + " has " + std::to_string(count) +
                    " elements; the kernels take at most 2^31-1");
    }
    int64_t bytes = 0;
    if (__builtin_mul_overflow(count, static_cast<int64_t>(dtype_size(dtype)), &bytes)) {
        throw Error("output shape " + shape_to_string(shape) + " is too large");
    }
    try {
        return std::unique_ptr<uint8_t[]>(new uint8_t[static_cast<std::size_t>(bytes)]);
    } catch (const std::bad_alloc &) {
        throw Error("out of memory allocating " + std::to_string(bytes) + " bytes for output shape " +
                    shape_to_string(shape));
    }
}

// Whether two output paths name the same directory entry (symlinked directories resolved).
bool same_entry(const std::string &a, const std::string &b) {
    if (a == b) return true;
    std::error_code ec1, ec2;
    const std::filesystem::path pa = std::filesystem::absolute(a, ec1), pb = std::filesystem::absolute(b, ec2);
    if (ec1 || ec2) return false;
    const auto da = std::filesystem::weakly_canonical(pa.parent_path(), ec1);
    const auto db = std::filesystem::weakly_canonical(pb.parent_path(), ec2);
    return !ec1 && !ec2 && da == db && pa.filename() == pb.filename();
}

void run_pool(const Options &o) {
    if (!o.indices.empty() && same_entry(o.output, o.indices)) throw UsageError("-o and --indices name the same file");
    if (o.threads >= 0) set_num_threads(o.threads);
    npy::Array x = npy::load(o.input);
    const bool is_max = o.command == Command::maxpool;
    const MaxPoolAttributes max_attr = max_attributes(o);
    const AvgPoolAttributes avg_attr = avg_attributes(o);
    const PoolGeometry g = infer_pool_shape(x.shape, o.pool);
    if (is_max) check_axis(o, x.shape.size());

    const std::unique_ptr<uint8_t[]> y = allocate(x.dtype, g.output_shape);
    const TensorView y_view = TensorView::dense(x.dtype, g.output_shape, y.get());
    std::unique_ptr<uint8_t[]> indices;
    if (is_max && !o.indices.empty()) {
        indices = allocate(o.index_type, g.output_shape);
        const TensorView i_view = TensorView::dense(o.index_type, g.output_shape, indices.get());
        max_pool(x.view(), y_view, max_attr, &i_view);
    } else if (is_max) {
        max_pool(x.view(), y_view, max_attr);
    } else {
        avg_pool(x.view(), y_view, avg_attr);
    }

    // Both files complete under temporary names before either appears.
    npy::PendingFile y_file(o.output, x.dtype, g.output_shape, y.get());
    std::unique_ptr<npy::PendingFile> i_file;
    if (indices) i_file = std::make_unique<npy::PendingFile>(o.indices, o.index_type, g.output_shape, indices.get());
    y_file.commit();
    if (i_file) {
        try {
            i_file->commit();
        } catch (...) {
            ::unlink(o.output.c_str());  // only if renaming the second file fails: rare
            throw;
        }
    }
}

void run_conv(const Options &o) {
    if (o.threads >= 0) set_num_threads(o.threads);
    npy::Array x = npy::load(o.input);
    npy::Array w = npy::load(o.weights);
    std::unique_ptr<npy::Array> b;
    if (!o.bias.empty()) b = std::make_unique<npy::Array>(npy::load(o.bias));
    const ConvAttributes a = conv_attributes(o, x.shape.size(), w.shape.size());
    const ConvGeometry g = infer_conv_shape(x.shape, w.shape, a);
    const std::unique_ptr<uint8_t[]> y = allocate(x.dtype, g.output_shape);
    const TensorView b_view = b ? b->view() : TensorView{};
    convolution(x.view(), w.view(), b ? &b_view : nullptr, TensorView::dense(x.dtype, g.output_shape, y.get()), a);
    npy::PendingFile(o.output, x.dtype, g.output_shape, y.get()).commit();
}

}  // namespace

void print_line(const std::string &message) {
    std::string line = "poolconv: " + message;
    for (char &c : line) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    line += '\n';
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
}

int run_command_line(int argc, const char *const argv[]) {
    const Options o = parse_command_line(argc, argv);
    switch (o.command) {
    case Command::help: print_stdout(kHelp); break;
    case Command::version: print_stdout(std::string("poolconv ") + POOLCONV_VERSION + "\n"); break;
    case Command::shape: run_shape(o); break;
    case Command::maxpool:
    case Command::avgpool: run_pool(o); break;
    case Command::conv: run_conv(o); break;
    }
    return 0;
}

}  // namespace poolconv::cli

