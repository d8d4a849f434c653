#include "cli/options.h"

#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>

#include "cli/attribute_names.h"

namespace poolconv::cli {

namespace {

// Where an option may appear: one bit per command (and per operator of `shape`).
enum : unsigned {
    kMax = 1,
    kAvg = 2,
    kShapeMax = 4,
    kShapeAvg = 8,
    kShapeConv = 16,
    kConv = 32,
    kPools = kMax | kAvg | kShapeMax | kShapeAvg,
    kConvs = kConv | kShapeConv,
    kAll = kPools | kConvs,
};

struct Flag {
    const char *name;
    bool takes_value;
    unsigned where;
};

constexpr Flag kFlags[] = {
    {"-i", true, kMax | kAvg | kConv},
    {"-o", true, kMax | kAvg | kConv},
    {"-w", true, kConv},
    {"-b", true, kConv},
    {"--indices", true, kMax},
    {"--input-shape", true, kShapeMax | kShapeAvg | kShapeConv},
    {"--weights-shape", true, kShapeConv},
    {"--kernel", true, kPools},
    {"--strides", true, kAll},
    {"--dilations", true, kAll},
    {"--pads-begin", true, kAll},
    {"--pads-end", true, kAll},
    {"--auto-pad", true, kAll},
    {"--rounding", true, kPools},
    {"--axis", true, kMax | kShapeMax},
    {"--storage-order", true, kMax | kShapeMax},
    {"--index-type", true, kMax | kShapeMax},
    {"--exclude-pad", false, kAvg | kShapeAvg},
    {"--include-pad", false, kAvg | kShapeAvg},
    {"--include-pad-openvino", false, kAvg | kShapeAvg},
    {"--group", true, kConvs},
    {"--activation", true, kConv},
    {"--clamp", true, kConv},
    {"--threads", true, kMax | kAvg | kConv | kShapeMax | kShapeAvg | kShapeConv},
};

const Flag *find_flag(std::string_view name) {
    for (const Flag &f : kFlags) {
        if (name == f.name) return &f;
    }
    return nullptr;
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

int64_t parse_int(const std::string &flag, std::string_view text) {
    if (text.empty()) throw UsageError(flag + ": empty number");
    int64_t value = 0;
    const char *begin = text.data(), *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc::result_out_of_range) throw UsageError(flag + ": " + quoted(text) + " is out of the int64 range");
    if (ec != std::errc() || ptr != end) throw UsageError(flag + ": " + quoted(text) + " is not an integer");
    return value;
}

float parse_float(const std::string &flag, const std::string &text) {
    double value = 0;
    const char *begin = text.data(), *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(static_cast<float>(value))) {
        throw UsageError(flag + ": " + quoted(text) + " is not a finite number");
    }
    return static_cast<float>(value);
}

// "3,3" -> {3, 3}; every entry >= min_value.
std::vector<int64_t> parse_list(const std::string &flag, const std::string &text, int64_t min_value) {
    if (text.empty()) throw UsageError(flag + ": empty list (expected integers separated by commas, e.g. 3,3)");
    std::vector<int64_t> values;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item = std::string_view(text).substr(start, comma - start);
        if (item.empty()) throw UsageError(flag + ": empty entry in " + quoted(text));
        const int64_t v = parse_int(flag, item);
        if (v < min_value) {
            throw UsageError(flag + ": entry " + std::to_string(values.size()) + " is " + std::to_string(v) +
                             ", must be >= " + std::to_string(min_value));
        }
        values.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return values;
}

template <typename T>
T parse_choice(const std::string &flag, const std::string &text, const NamedValues<T> &choices) {
    std::string names;
    for (const auto &[name, value] : choices) {
        if (text == name) return value;
        names += std::string(names.empty() ? "" : ", ") + name;
    }
    throw UsageError(flag + ": unknown value " + quoted(text) + " (expected one of: " + names + ")");
}

// The arguments after the command that name a flag, with their values, in the order given.
using GivenFlags = std::vector<std::pair<const Flag *, std::string>>;

bool was_given(const GivenFlags &given, const Flag *flag) {
    for (const auto &g : given) {
        if (g.first == flag) return true;
    }
    return false;
}

unsigned where_bit(const Options &o) {
    switch (o.command) {
    case Command::maxpool: return kMax;
    case Command::avgpool: return kAvg;
    case Command::conv: return kConv;
    case Command::shape:
        return o.shape_op == ShapeOp::maxpool ? kShapeMax : o.shape_op == ShapeOp::avgpool ? kShapeAvg : kShapeConv;
    default: return 0;
    }
}

void check_spatial_lengths(const std::vector<std::pair<const char *, const std::vector<int64_t> *>> &lists) {
    // The reference length: the kernel's, or for conv the first list given.
    std::size_t expected = 0;
    const char *reference = nullptr;
    for (const auto &[name, values] : lists) {
        if (values->empty()) continue;
        if (!reference) {
            reference = name;
            expected = values->size();
            if (expected > 3) {
                throw UsageError(std::string(name) + ": " + std::to_string(expected) +
                                 " values, but operators take 1 to 3 spatial dimensions");
            }
        } else if (values->size() != expected) {
            throw UsageError(std::string(name) + ": " + std::to_string(values->size()) + " values, but " + reference +
                             " has " + std::to_string(expected));
        }
    }
}

// argv[1]. Help and version need no further parsing; everything after --version is an error, after help ignored.
Command find_command(int argc, const char *const argv[]) {
    if (argc < 2) throw UsageError("missing command (maxpool, avgpool, conv or shape); see poolconv --help");
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") return Command::help;
    if (command == "--version") {
        if (argc > 2) throw UsageError("unexpected argument " + quoted(argv[2]) + " after --version");
        return Command::version;
    }
    if (command == "maxpool") return Command::maxpool;
    if (command == "avgpool") return Command::avgpool;
    if (command == "conv") return Command::conv;
    if (command == "shape") return Command::shape;
    if (!command.empty() && command[0] == '-') {
        throw UsageError("unknown option " + quoted(command) +
                         " (the command comes first: maxpool, avgpool, conv or shape)");
    }
    throw UsageError("unknown command " + quoted(command) + " (expected maxpool, avgpool, conv or shape)");
}

// The flag in argv[i] ("--name=value", or the name with its value in the next argument, which i then moves past).
std::pair<const Flag *, std::string> read_flag(int argc, const char *const argv[], int &i, const GivenFlags &given) {
    const std::string arg = argv[i];
    const std::size_t eq = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string::npos;
    const std::string name = arg.substr(0, eq);
    const Flag *flag = find_flag(name);
    if (!flag) throw UsageError("unknown option " + quoted(name) + " (see poolconv --help)");
    if (was_given(given, flag)) throw UsageError(name + " is given more than once");
    std::string value;
    if (!flag->takes_value) {
        if (eq != std::string::npos) throw UsageError(name + " takes no value");
    } else if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
        value = argv[++i];
    } else {
        throw UsageError(name + " needs a value");
    }
    return {flag, std::move(value)};
}

// The flags after the command, their values still unchecked: whether a flag applies depends on the operator of
// `shape`, which may come after it. Reads that operator too; at --help or -h sets the command to help and stops.
GivenFlags collect_flags(int argc, const char *const argv[], Options &o) {
    GivenFlags given;
    for (int i = 2; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            o.command = Command::help;
            return given;
        }
        if (arg.size() > 1 && arg[0] == '-') {
            given.push_back(read_flag(argc, argv, i, given));
        } else if (o.command == Command::shape && o.shape_op == ShapeOp::none) {
            o.shape_op = parse_choice<ShapeOp>(
                "shape", arg, {{"maxpool", ShapeOp::maxpool}, {"avgpool", ShapeOp::avgpool}, {"conv", ShapeOp::conv}});
        } else {
            throw UsageError("unexpected argument " + quoted(arg));
        }
    }
    if (o.command == Command::shape && o.shape_op == ShapeOp::none) {
        throw UsageError("shape: missing the operator (maxpool, avgpool or conv)");
    }
    return given;
}

// The field a path flag fills; nullptr when name is no path flag.
std::string *path_field(const std::string &name, Options &o) {
    if (name == "-i") return &o.input;
    if (name == "-o") return &o.output;
    if (name == "-w") return &o.weights;
    if (name == "-b") return &o.bias;
    if (name == "--indices") return &o.indices;
    return nullptr;
}

struct ListField {
    std::vector<int64_t> *values;  // nullptr when the flag is no list flag
    int64_t min_value;             // sizes and pads may be 0, window lengths may not
};

ListField list_field(const std::string &name, Options &o) {
    if (name == "--input-shape") return {&o.input_shape, 0};
    if (name == "--weights-shape") return {&o.weights_shape, 0};
    if (name == "--kernel") return {&o.pool.kernel, 1};
    if (name == "--strides") return {&o.pool.strides, 1};
    if (name == "--dilations") return {&o.pool.dilations, 1};
    if (name == "--pads-begin") return {&o.pool.pads_begin, 0};
    if (name == "--pads-end") return {&o.pool.pads_end, 0};
    return {nullptr, 0};
}

// The flags whose value is one of a few names.
void apply_choice_flag(const std::string &name, const std::string &value, Options &o) {
    if (name == "--activation") {
        o.activation = parse_choice<Activation>(name, value, activation_names());
    } else if (name == "--auto-pad") {
        o.pool.auto_pad = parse_choice<AutoPad>(name, value, auto_pad_names());
    } else if (name == "--rounding") {
        o.pool.rounding = parse_choice<Rounding>(name, value, rounding_names());
    } else if (name == "--storage-order") {
        o.storage_order = parse_choice<StorageOrder>(
            name, value, {{"row", StorageOrder::row_major}, {"col", StorageOrder::column_major}});
    } else if (name == "--index-type") {
        o.index_type = parse_choice<DType>(name, value, index_type_names());
    }
}

// Checks one flag's value and stores it in o. have_pad_mode: whether an earlier flag chose the AvgPool pad mode.
void apply_flag(const std::string &name, const std::string &value, Options &o, bool &have_pad_mode) {
    if (std::string *path = path_field(name, o)) {
        if (value.empty()) throw UsageError(name + ": empty path");
        *path = value;
    } else if (const ListField list = list_field(name, o); list.values) {
        *list.values = parse_list(name, value, list.min_value);
    } else if (name == "--group") {
        o.group = parse_int(name, value);
        if (o.group < 1) throw UsageError("--group: " + std::to_string(o.group) + " must be >= 1");
    } else if (name == "--clamp") {
        const std::size_t comma = value.find(',');
        if (comma == std::string::npos) throw UsageError("--clamp: expected MIN,MAX, got " + quoted(value));
        o.clamp_min = parse_float(name, value.substr(0, comma));
        o.clamp_max = parse_float(name, value.substr(comma + 1));
        if (!(o.clamp_min <= o.clamp_max)) throw UsageError("--clamp: MIN must be <= MAX, got " + quoted(value));
    } else if (name == "--axis") {
        o.axis = parse_int(name, value);
    } else if (name == "--exclude-pad" || name == "--include-pad" || name == "--include-pad-openvino") {
        if (have_pad_mode) {
            throw UsageError("give at most one of --exclude-pad, --include-pad and --include-pad-openvino");
        }
        have_pad_mode = true;
        o.pad_mode = name == "--exclude-pad"   ? AvgPadMode::exclude_pad
                     : name == "--include-pad" ? AvgPadMode::include_pad
                                               : AvgPadMode::include_pad_openvino;
    } else if (name == "--threads") {
        const int64_t n = parse_int(name, value);
        if (n < 0 || n > 1024) throw UsageError("--threads: " + std::to_string(n) + " is outside [0, 1024]");
        o.threads = static_cast<int>(n);
    } else {
        apply_choice_flag(name, value, o);
    }
}

// In the order given, so that the first bad flag on the line is the one reported, whatever is wrong with it.
void apply_flags(const GivenFlags &given, Options &o) {
    const unsigned where = where_bit(o);
    bool have_pad_mode = false;
    for (const auto &[flag, value] : given) {
        const std::string name = flag->name;
        if (!(flag->where & where)) throw UsageError(name + " does not apply to " + command_name(o));
        apply_flag(name, value, o, have_pad_mode);
    }
}

// What each command requires (the flag table says only what it accepts), and which values must agree.
void check_flag_combination(const Options &o, const GivenFlags &given) {
    if (o.command == Command::shape) {
        if (o.input_shape.empty()) throw UsageError(command_name(o) + ": --input-shape is required");
        if (o.shape_op == ShapeOp::conv && o.weights_shape.empty()) {
            throw UsageError("shape conv: --weights-shape is required");
        }
    } else {
        if (o.command == Command::conv && o.weights.empty()) throw UsageError("conv: -w (weights .npy) is required");
        if (o.input.empty()) throw UsageError(command_name(o) + ": -i (input .npy) is required");
        if (o.output.empty()) throw UsageError(command_name(o) + ": -o (output .npy) is required");
        if (!o.indices.empty() && o.indices == o.output) throw UsageError("-o and --indices name the same file");
    }
    if ((o.activation == Activation::clamp) != was_given(given, find_flag("--clamp"))) {
        throw UsageError("--clamp MIN,MAX goes with --activation clamp, and only with it");
    }
    const bool is_conv = o.command == Command::conv || o.shape_op == ShapeOp::conv;
    if (!is_conv && o.pool.kernel.empty()) throw UsageError(command_name(o) + ": --kernel is required");
    check_spatial_lengths({{"--kernel", &o.pool.kernel},
                              {"--strides", &o.pool.strides},
                              {"--dilations", &o.pool.dilations},
                              {"--pads-begin", &o.pool.pads_begin},
                              {"--pads-end", &o.pool.pads_end}});
}

}  // namespace

std::string command_name(const Options &o) {
    switch (o.command) {
    case Command::maxpool: return "maxpool";
    case Command::avgpool: return "avgpool";
    case Command::conv: return "conv";
    case Command::shape:
        return o.shape_op == ShapeOp::maxpool   ? "shape maxpool"
               : o.shape_op == ShapeOp::avgpool ? "shape avgpool"
                                                : "shape conv";
    default: return "poolconv";
    }
}

Options parse_command_line(int argc, const char *const argv[]) {
    Options o;
    o.command = find_command(argc, argv);
    if (o.command == Command::help || o.command == Command::version) return o;
    const GivenFlags given = collect_flags(argc, argv, o);
    if (o.command == Command::help) return o;  // --help or -h after the command
    apply_flags(given, o);
    check_flag_combination(o, given);
    return o;
}

}  // namespace poolconv::cli
