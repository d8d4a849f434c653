// The `poolconv` tool, run as a separate process: the OpenVINO examples, AvgPool divisors,
// `shape` output, --help, and the error contract (one "poolconv: " line on stderr, exit status in
// [1, 127], no output file left behind).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/npy.h"
#include "reference/reference_convolution.h"
#include "reference/reference_pooling.h"

extern char **environ;

namespace {

namespace fs = std::filesystem;
namespace npy = poolconv::npy;
using poolconv::Activation;
using poolconv::ConvAttributes;
using poolconv::DType;
using poolconv::TensorView;
namespace reference = poolconv::reference;

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string data_file(const std::string &name) { return std::string(POOLCONV_TEST_DATA_DIR) + "/npy/" + name; }

// float <-> IEEE half for the exactly representable values these tests use (normal numbers, zero).
uint16_t to_half(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    if ((bits & 0x7FFFFFFFu) == 0) return static_cast<uint16_t>(sign);
    const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
    return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 10) | ((bits >> 13) & 0x3FFu));
}
float from_half(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FFu;
    uint32_t bits = sign;
    if (exponent != 0) bits |= ((exponent - 15 + 127) << 23) | (mantissa << 13);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

struct Result {
    int status = -1;  // exit status, or 128 + signal
    std::string out, err;
};

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "poolconv_cli_test.XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        base_ = pattern;
        work_ = base_ + "/work";
        fs::create_directory(work_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(base_, ec);
    }

    // A path in the per-test work directory, which holds only the tensors.
    std::string w(const std::string &name) const { return work_ + "/" + name; }

    std::set<std::string> listing() const {
        std::set<std::string> names;
        for (const auto &e : fs::directory_iterator(work_)) names.insert(e.path().filename().string());
        return names;
    }

    Result run(const std::vector<std::string> &args) const {
        // Cross builds run the CLI through the emulator (POOLCONV_CLI_LAUNCHER, space-separated).
        std::vector<std::string> all;
        std::istringstream launcher(POOLCONV_CLI_LAUNCHER);
        for (std::string word; launcher >> word;) all.push_back(word);
        all.push_back(POOLCONV_CLI_PATH);
        all.insert(all.end(), args.begin(), args.end());
        std::vector<char *> argv;
        for (std::string &a : all) argv.push_back(a.data());
        argv.push_back(nullptr);
        const std::string out_path = base_ + "/stdout", err_path = base_ + "/stderr";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        pid_t pid = 0;
        Result r;
        const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) {
            ADD_FAILURE() << "posix_spawn " << argv[0] << ": " << std::strerror(rc);
            return r;
        }
        int wstatus = 0;
        while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
        }
        r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        r.out = read_file(out_path);
        r.err = read_file(err_path);
        return r;
    }

    // Runs a command that must succeed quietly.
    void run_ok(const std::vector<std::string> &args) const {
        const Result r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
    }

    // Runs a command that must fail by the contract; returns its stderr line.
    std::string expect_failure(const std::vector<std::string> &args, int status, const std::string &needle) const {
        std::string joined;
        for (const std::string &a : args) joined += " " + a;
        SCOPED_TRACE("poolconv" + joined);
        const std::set<std::string> before = listing();
        const Result r = run(args);
        EXPECT_EQ(r.status, status) << r.err;
        EXPECT_GE(r.status, 1);
        EXPECT_LE(r.status, 127);
        EXPECT_EQ(r.err.rfind("poolconv: ", 0), 0u) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(r.err.empty() || r.err.back() != '\n') << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(listing(), before) << "files were created or removed";
        return r.err;
    }

    std::string save_f32(const std::string &name, const std::vector<int64_t> &shape, const std::vector<float> &v) const {
        npy::save(w(name), DType::f32, shape, v.data());
        return w(name);
    }

    std::vector<float> load_f32(const std::string &name, const std::vector<int64_t> &shape) const {
        const npy::Array a = npy::load(w(name));
        EXPECT_EQ(a.dtype, DType::f32);
        EXPECT_EQ(a.shape, shape);
        std::vector<float> v(a.bytes.size() / 4);
        if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
        return v;
    }

    std::vector<int64_t> load_indices(const std::string &name, const std::vector<int64_t> &shape, DType dtype) const {
        const npy::Array a = npy::load(w(name));
        EXPECT_EQ(a.dtype, dtype);
        EXPECT_EQ(a.shape, shape);
        std::vector<int64_t> v;
        for (std::size_t i = 0; i < a.bytes.size(); i += poolconv::dtype_size(dtype)) {
            if (dtype == DType::i64) {
                int64_t x;
                std::memcpy(&x, &a.bytes[i], 8);
                v.push_back(x);
            } else {
                int32_t x;
                std::memcpy(&x, &a.bytes[i], 4);
                v.push_back(x);
            }
        }
        return v;
    }

    std::string base_, work_;
};

// --- the OpenVINO MaxPool examples (openvino-pooling-shape-rules), erratum in example 1 applied ---

struct Example {
    const char *name;
    std::vector<int64_t> shape;
    std::vector<float> input;
    std::vector<std::string> args;
    std::vector<int64_t> out_shape;
    std::vector<float> values;
    std::vector<int64_t> indices;
};

const std::vector<float> kX3 = {-1, 2, 3, 4, 5, -6, -7, 8, 9};
const std::vector<float> k1to9 = {1, 2, 3, 4, 5, 6, 7, 8, 9};

const Example kExamples[] = {
    {"Ex1ExplicitPads", {1, 1, 3, 3}, kX3,
     {"--kernel", "2,2", "--strides", "1,1", "--pads-begin", "1,1", "--pads-end", "1,1", "--rounding", "floor",
      "--auto-pad", "explicit"},
     {1, 1, 4, 4},
     {-1, 2, 3, 3, 4, 5, 5, 3, 4, 8, 9, 9, -7, 8, 9, 9},  // [0,0,1,3] is 3 (the spec prints -6)
     {0, 1, 2, 2, 3, 4, 4, 2, 3, 7, 8, 8, 6, 7, 8, 8}},   // ... with index 2 (the spec prints 5)
    {"Ex2Valid1D", {1, 1, 7}, {-1, 2, 3, 5, -7, 9, 1}, {"--kernel", "3", "--strides", "1", "--auto-pad", "valid"},
     {1, 1, 5}, {3, 5, 5, 9, 9}, {2, 3, 3, 5, 5}},
    {"Ex3SameLower", {1, 1, 3, 3}, kX3, {"--kernel", "2,2", "--strides", "1,1", "--auto-pad", "same_lower"},
     {1, 1, 3, 3}, {-1, 2, 3, 4, 5, 5, 4, 8, 9}, {0, 1, 2, 3, 4, 4, 3, 7, 8}},
    {"Ex4SameUpper", {1, 2, 3, 3}, {-1, 2, 3, 4, 5, -6, -7, 8, 9, 2, -1, 5, 6, -7, 1, 8, 2, -3},
     {"--kernel", "2,2", "--strides", "1,1", "--auto-pad", "same_upper"},
     {1, 2, 3, 3},
     {5, 5, 3, 8, 9, 9, 8, 9, 9, 6, 5, 5, 8, 2, 1, 8, 2, -3},
     {4, 4, 2, 7, 8, 8, 7, 8, 8, 12, 11, 11, 15, 16, 14, 15, 16, 17}},
    {"Ex5CeilTorch", {1, 1, 3, 3}, k1to9,
     {"--kernel", "2,2", "--strides", "2,2", "--pads-begin", "1,1", "--pads-end", "1,1", "--rounding", "ceil_torch"},
     {1, 1, 2, 2}, {1, 3, 7, 9}, {0, 2, 6, 8}},
    {"Ex6ValidCeil", {1, 1, 3, 3}, kX3, {"--kernel", "2,2", "--strides", "2,2", "--rounding", "ceil", "--auto-pad", "valid"},
     {1, 1, 2, 2}, {5, 3, 8, 9}, {4, 2, 7, 8}},
    {"Ex7Dilated", {1, 1, 3, 3}, k1to9,
     {"--kernel", "2,2", "--strides", "1,1", "--dilations", "2,2", "--pads-begin", "1,1", "--pads-end", "1,1"},
     {1, 1, 3, 3}, {5, 6, 5, 8, 9, 8, 5, 6, 5}, {4, 5, 4, 7, 8, 7, 4, 5, 4}},
    {"Ex8Axis2", {1, 2, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18},
     {"--kernel", "2,2", "--strides", "1,1", "--dilations", "1,1", "--pads-begin", "0,0", "--pads-end", "0,0",
      "--axis", "2"},
     {1, 2, 2, 2}, {5, 6, 8, 9, 14, 15, 17, 18}, {4, 5, 7, 8, 4, 5, 7, 8}},
};

void PrintTo(const Example &e, std::ostream *os) { *os << e.name; }

class CliExampleTest : public CliTest, public ::testing::WithParamInterface<Example> {};

TEST_P(CliExampleTest, MaxPoolValuesAndIndices) {
    const Example &e = GetParam();
    for (const char *index_type : {"i64", "i32"}) {
        SCOPED_TRACE(index_type);
        std::vector<std::string> args = {"maxpool", "-i", save_f32("x.npy", e.shape, e.input), "-o", w("y.npy"),
                                         "--indices", w("i.npy"), "--index-type", index_type};
        args.insert(args.end(), e.args.begin(), e.args.end());
        run_ok(args);
        EXPECT_EQ(load_f32("y.npy", e.out_shape), e.values);
        EXPECT_EQ(load_indices("i.npy", e.out_shape, std::string(index_type) == "i64" ? DType::i64 : DType::i32),
                  e.indices);
        EXPECT_EQ(listing(), (std::set<std::string>{"x.npy", "y.npy", "i.npy"}));

        // Without --indices: the same values, and no indices file.
        fs::remove(w("y.npy"));
        fs::remove(w("i.npy"));
        std::vector<std::string> values_only = {"maxpool", "-i", w("x.npy"), "-o", w("y.npy")};
        values_only.insert(values_only.end(), e.args.begin(), e.args.end());
        run_ok(values_only);
        EXPECT_EQ(load_f32("y.npy", e.out_shape), e.values);
        EXPECT_EQ(listing(), (std::set<std::string>{"x.npy", "y.npy"}));
    }
}

INSTANTIATE_TEST_SUITE_P(OpenVino, CliExampleTest, ::testing::ValuesIn(kExamples),
                         [](const ::testing::TestParamInfo<Example> &param) { return std::string(param.param.name); });

TEST_F(CliTest, MaxPoolColumnMajorIndicesMatchOnnx) {
    std::vector<float> x(25);
    for (int i = 0; i < 25; i++) x[i] = static_cast<float>(i + 1);
    run_ok({"maxpool", "-i", save_f32("x.npy", {1, 1, 5, 5}, x), "-o", w("y.npy"), "--indices", w("i.npy"), "--kernel",
            "2,2", "--strides", "2,2", "--storage-order", "col"});
    EXPECT_EQ(load_f32("y.npy", {1, 1, 2, 2}), (std::vector<float>{7, 9, 17, 19}));
    EXPECT_EQ(load_indices("i.npy", {1, 1, 2, 2}, DType::i64), (std::vector<int64_t>{6, 16, 8, 18}));
}

TEST_F(CliTest, MaxPoolKeepsTheInputDType) {
    // Example 2 in int8, float16 and float64; uint8 with non-negative data.
    const std::vector<int8_t> i8 = {-1, 2, 3, 5, -7, 9, 1};
    npy::save(w("i8.npy"), DType::i8, {1, 1, 7}, i8.data());
    std::vector<uint16_t> f16;
    std::vector<double> f64;
    for (int8_t v : i8) {
        f16.push_back(to_half(v));
        f64.push_back(v);
    }
    npy::save(w("f16.npy"), DType::f16, {1, 1, 7}, f16.data());
    npy::save(w("f64.npy"), DType::f64, {1, 1, 7}, f64.data());
    const std::vector<uint8_t> u8 = {1, 2, 3, 5, 7, 9, 1};
    npy::save(w("u8.npy"), DType::u8, {1, 1, 7}, u8.data());

    for (const char *name : {"i8", "f16", "f64", "u8"}) {
        SCOPED_TRACE(name);
        run_ok({"maxpool", "-i", w(std::string(name) + ".npy"), "-o", w("y.npy"), "--indices", w("i.npy"), "--kernel",
                "3", "--auto-pad", "valid", "--threads", "1"});
        const npy::Array y = npy::load(w("y.npy"));
        EXPECT_EQ(std::string(poolconv::dtype_name(y.dtype)), name);
        EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 1, 5}));
        std::vector<double> got;
        for (std::size_t i = 0; i < 5; i++) {
            switch (y.dtype) {
            case DType::i8: got.push_back(static_cast<int8_t>(y.bytes[i])); break;
            case DType::u8: got.push_back(y.bytes[i]); break;
            case DType::f16: {
                uint16_t h;
                std::memcpy(&h, &y.bytes[2 * i], 2);
                got.push_back(from_half(h));
                break;
            }
            default: {
                double d;
                std::memcpy(&d, &y.bytes[8 * i], 8);
                got.push_back(d);
            }
            }
        }
        const bool unsigned_input = std::string(name) == "u8";
        EXPECT_EQ(got, unsigned_input ? (std::vector<double>{3, 5, 7, 9, 9}) : (std::vector<double>{3, 5, 5, 9, 9}));
        EXPECT_EQ(load_indices("i.npy", {1, 1, 5}, DType::i64),
                  unsigned_input ? (std::vector<int64_t>{2, 3, 4, 5, 5}) : (std::vector<int64_t>{2, 3, 3, 5, 5}));
    }
}

// --- AvgPool against hand-computed answers ---

TEST_F(CliTest, AvgPool2DExcludeAndIncludePad) {
    // x = 1..9 (3x3), kernel 2x2, stride 1, pads 1: windows clipped at every border.
    save_f32("x.npy", {1, 1, 3, 3}, k1to9);
    const std::vector<std::string> common = {"-i", w("x.npy"), "-o", w("y.npy"), "--kernel", "2,2",
                                             "--pads-begin", "1,1", "--pads-end", "1,1"};
    auto avgpool = [&](const std::vector<std::string> &extra) {
        std::vector<std::string> args = {"avgpool"};
        args.insert(args.end(), common.begin(), common.end());
        args.insert(args.end(), extra.begin(), extra.end());
        run_ok(args);
        return load_f32("y.npy", {1, 1, 4, 4});
    };
    const std::vector<float> exclude = {1, 1.5, 2.5, 3, 2.5, 3, 4, 4.5, 5.5, 6, 7, 7.5, 7, 7.5, 8.5, 9};
    const std::vector<float> include = {0.25, 0.75, 1.25, 0.75, 1.25, 3, 4, 2.25,
                                        2.75, 6,    7,    3.75, 1.75, 3.75, 4.25, 2.25};
    EXPECT_EQ(avgpool({}), exclude);  // the default
    EXPECT_EQ(avgpool({"--exclude-pad"}), exclude);
    EXPECT_EQ(avgpool({"--include-pad"}), include);
    EXPECT_EQ(avgpool({"--include-pad-openvino"}), include);  // pads non-zero: the whole kernel volume

    // The same in float16.
    std::vector<uint16_t> h;
    for (float v : k1to9) h.push_back(to_half(v));
    npy::save(w("h.npy"), DType::f16, {1, 1, 3, 3}, h.data());
    run_ok({"avgpool", "-i", w("h.npy"), "-o", w("hy.npy"), "--kernel", "2,2", "--pads-begin", "1,1", "--pads-end", "1,1"});
    const npy::Array hy = npy::load(w("hy.npy"));
    ASSERT_EQ(hy.dtype, DType::f16);
    ASSERT_EQ(hy.bytes.size(), 32u);
    for (std::size_t i = 0; i < 16; i++) {
        uint16_t bits;
        std::memcpy(&bits, &hy.bytes[2 * i], 2);
        EXPECT_EQ(from_half(bits), exclude[i]) << i;
    }
}

TEST_F(CliTest, AvgPoolDivisorsDifferWithCeilRounding) {
    // x = 1..6, kernel 2, stride 2, pads 1 + 0, ceil: windows [-1,0] [1,2] [3,4] [5,6]; the last one
    // reaches past the padded end (6), so the three divisors all differ there.
    save_f32("x.npy", {1, 1, 6}, {1, 2, 3, 4, 5, 6});
    auto avgpool = [&](const char *mode) {
        run_ok({"avgpool", "-i", w("x.npy"), "-o", w("y.npy"), "--kernel", "2", "--strides", "2", "--pads-begin", "1",
                "--pads-end", "0", "--rounding", "ceil", mode});
        return load_f32("y.npy", {1, 1, 4});
    };
    EXPECT_EQ(avgpool("--exclude-pad"), (std::vector<float>{1, 2.5, 4.5, 6}));
    EXPECT_EQ(avgpool("--include-pad"), (std::vector<float>{0.5, 2.5, 4.5, 6}));
    EXPECT_EQ(avgpool("--include-pad-openvino"), (std::vector<float>{0.5, 2.5, 4.5, 3}));
}

// --- shape ---

TEST_F(CliTest, ShapePrintsJson) {
    const std::pair<std::vector<std::string>, std::string> cases[] = {
        {{"maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "--pads-begin", "1,1", "--pads-end", "1,1"},
         R"({"output_shape":[1,1,4,4],"pads_begin":[1,1],"pads_end":[1,1]})"},
        {{"maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "--auto-pad", "same_lower"},
         R"({"output_shape":[1,1,3,3],"pads_begin":[1,1],"pads_end":[0,0]})"},
        {{"maxpool", "--input-shape", "1,2,3,3", "--kernel", "2,2", "--auto-pad", "same_upper", "--axis", "-1"},
         R"({"output_shape":[1,2,3,3],"pads_begin":[0,0],"pads_end":[1,1]})"},
        {{"maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "--strides", "2,2", "--auto-pad", "valid",
          "--rounding", "ceil"},
         R"({"output_shape":[1,1,2,2],"pads_begin":[0,0],"pads_end":[0,0]})"},
        {{"maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "--strides", "2,2", "--pads-begin", "1,1",
          "--pads-end", "1,1", "--rounding", "ceil_torch"},
         R"({"output_shape":[1,1,2,2],"pads_begin":[1,1],"pads_end":[1,1]})"},
        {{"maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "--strides", "2,2", "--pads-begin", "1,1",
          "--pads-end", "1,1", "--rounding", "ceil"},
         R"({"output_shape":[1,1,3,3],"pads_begin":[1,1],"pads_end":[1,1]})"},
        {{"avgpool", "--input-shape", "2,3,8,9,10", "--kernel", "3,3,3", "--strides", "2,2,2", "--rounding", "ceil",
          "--include-pad"},
         R"({"output_shape":[2,3,4,4,5],"pads_begin":[0,0,0],"pads_end":[0,0,0]})"},
        {{"avgpool", "--input-shape", "1,2,10", "--kernel", "3", "--dilations", "2", "--strides", "3"},
         R"({"output_shape":[1,2,2],"pads_begin":[0],"pads_end":[0]})"},
        {{"maxpool", "--input-shape=1,1,224,224", "--kernel=3,3", "--strides=2,2", "--auto-pad=same_upper"},
         R"({"output_shape":[1,1,112,112],"pads_begin":[0,0],"pads_end":[1,1]})"},
    };
    for (const auto &[args, json] : cases) {
        std::vector<std::string> full = {"shape"};
        full.insert(full.end(), args.begin(), args.end());
        SCOPED_TRACE(json);
        const Result r = run(full);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(r.out, json + "\n");
    }
}

// The three examples of OpenVINO Convolution-1 (openvino-convolution-1.ja.txt), then groups.
TEST_F(CliTest, ShapeConv) {
    const std::pair<std::vector<std::string>, std::string> cases[] = {
        {{"--input-shape", "1,5,128", "--weights-shape", "16,5,4", "--strides", "2", "--auto-pad", "valid"},
         R"({"output_shape":[1,16,63],"pads_begin":[0],"pads_end":[0]})"},
        {{"--input-shape", "1,3,224,224", "--weights-shape", "64,3,5,5", "--pads-begin", "2,2", "--pads-end", "2,2"},
         R"({"output_shape":[1,64,224,224],"pads_begin":[2,2],"pads_end":[2,2]})"},
        {{"--input-shape", "1,7,320,320,320", "--weights-shape", "32,7,3,3,3", "--dilations", "2,2,2", "--strides",
          "3,3,3"},
         R"({"output_shape":[1,32,106,106,106],"pads_begin":[0,0,0],"pads_end":[0,0,0]})"},
        // Depthwise, ONNX layout, and the same as OpenVINO GroupConvolution weights (G, O/G, I/G, k..).
        {{"--input-shape", "2,8,10,10", "--weights-shape", "8,1,3,3", "--group", "8", "--auto-pad", "same_upper",
          "--strides", "2,2"},
         R"({"output_shape":[2,8,5,5],"pads_begin":[0,0],"pads_end":[1,1]})"},
        {{"--input-shape", "2,8,10,10", "--weights-shape", "8,1,1,3,3", "--auto-pad", "same_lower", "--strides", "2,2"},
         R"({"output_shape":[2,8,5,5],"pads_begin":[1,1],"pads_end":[0,0]})"},
    };
    for (const auto &[args, json] : cases) {
        std::vector<std::string> full = {"shape", "conv"};
        full.insert(full.end(), args.begin(), args.end());
        SCOPED_TRACE(json);
        const Result r = run(full);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(r.out, json + "\n");
    }
    expect_failure({"shape", "conv", "--input-shape", "1,3,8,8", "--weights-shape", "4,x"}, 2, "--weights-shape");
    expect_failure({"shape", "conv", "--input-shape", "1,3,8,8"}, 2, "--weights-shape is required");
    expect_failure({"shape", "conv", "--input-shape", "1,3,8,8", "--weights-shape", "4,2,3,3"}, 2,
                   "input has 3 channels but weights [4,2,3,3] with group 1 expect 2");
    expect_failure({"shape", "conv", "--input-shape", "1,4,8,8", "--weights-shape", "6,1,3,3", "--group", "4"}, 2,
                   "do not divide by group 4");
    expect_failure({"shape", "conv", "--input-shape", "1,3,8,8", "--weights-shape", "4,3,3"}, 2,
                   "1 kernel dimensions but the input [1,3,8,8] has 2 spatial dimensions");
    expect_failure({"shape", "conv", "--input-shape", "1,3,8,8", "--weights-shape", "4,3,3,3", "--kernel", "3,3"}, 2,
                   "--kernel does not apply to shape conv");
}

// conv end to end: the CLI's output equals the reference convolution, with bias, groups and a
// fused activation; GroupConvolution weights give the same result; f16 keeps its dtype.
TEST_F(CliTest, ConvMatchesTheReference) {
    const std::vector<int64_t> x_shape = {2, 4, 7, 9}, w_shape = {6, 2, 3, 2}, y_shape = {2, 6, 3, 9};
    std::vector<float> x(2 * 4 * 7 * 9), wt(6 * 2 * 3 * 2), b(6);
    for (std::size_t i = 0; i < x.size(); i++) x[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 4.0f;
    for (std::size_t i = 0; i < wt.size(); i++) wt[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 4.0f;
    for (std::size_t i = 0; i < b.size(); i++) b[i] = static_cast<float>(i) - 2.5f;
    save_f32("x.npy", x_shape, x);
    save_f32("w.npy", w_shape, wt);
    save_f32("b.npy", {6}, b);
    save_f32("wg.npy", {2, 3, 2, 3, 2}, wt);  // the same memory as G, O/G, I/G, kH, kW
    run_ok({"conv", "-i", w("x.npy"), "-w", w("w.npy"), "-b", w("b.npy"), "-o", w("y.npy"), "--group", "2",
            "--strides", "2,1", "--pads-begin", "1,0", "--pads-end", "0,1", "--activation", "relu"});
    run_ok({"conv", "-i", w("x.npy"), "-w", w("wg.npy"), "-b", w("b.npy"), "-o", w("yg.npy"), "--strides=2,1",
            "--pads-begin=1,0", "--pads-end=0,1", "--activation=relu", "--threads=1"});

    ConvAttributes a;
    a.group = 2;
    a.strides = {2, 1};
    a.pads_begin = {1, 0};
    a.pads_end = {0, 1};
    a.activation = Activation::relu;
    std::vector<float> expected(2 * 6 * 3 * 9);
    const TensorView bias = TensorView::dense(DType::f32, {6}, b.data());
    reference::convolution(TensorView::dense(DType::f32, x_shape, x.data()), TensorView::dense(DType::f32, w_shape, wt.data()),
                           &bias, TensorView::dense(DType::f32, y_shape, expected.data()), a);
    EXPECT_EQ(load_f32("y.npy", y_shape), expected);
    EXPECT_EQ(load_f32("yg.npy", y_shape), expected);

    // f16 in, f16 out; the inputs are small dyadic numbers, so the results are exact.
    std::vector<uint16_t> xh(x.size()), wh(wt.size());
    for (std::size_t i = 0; i < x.size(); i++) xh[i] = to_half(x[i]);
    for (std::size_t i = 0; i < wt.size(); i++) wh[i] = to_half(wt[i]);
    npy::save(w("xh.npy"), DType::f16, x_shape, xh.data());
    npy::save(w("wh.npy"), DType::f16, w_shape, wh.data());
    run_ok({"conv", "-i", w("xh.npy"), "-w", w("wh.npy"), "-o", w("yh.npy"), "--group", "2", "--strides", "2,1",
            "--pads-begin", "1,0", "--pads-end", "0,1"});
    a.activation = Activation::none;
    reference::convolution(TensorView::dense(DType::f32, x_shape, x.data()), TensorView::dense(DType::f32, w_shape, wt.data()),
                           nullptr, TensorView::dense(DType::f32, y_shape, expected.data()), a);
    const npy::Array yh = npy::load(w("yh.npy"));
    ASSERT_EQ(yh.dtype, DType::f16);
    ASSERT_EQ(yh.shape, y_shape);
    for (std::size_t i = 0; i < expected.size(); i++) {
        uint16_t h;
        std::memcpy(&h, &yh.bytes[2 * i], 2);
        ASSERT_EQ(from_half(h), expected[i]) << "element " << i;
    }
}

// f64 avgpool and conv: float64 files in, float64 out, equal to the reference (which sums in double)
// to within double rounding; values with no short binary form, so sums in f32, or weights kept in
// f32, would differ by some 1e-7 and fail.
TEST_F(CliTest, F64AvgPoolAndConvMatchTheReference) {
    const std::vector<int64_t> x_shape = {1, 4, 6, 7}, w_shape = {4, 2, 3, 3};
    std::vector<double> x(1 * 4 * 6 * 7), wt(4 * 2 * 3 * 3), b(4);
    for (std::size_t i = 0; i < x.size(); i++) x[i] = std::sin(0.7 * static_cast<double>(i) + 0.1) * 3.0;
    for (std::size_t i = 0; i < wt.size(); i++) wt[i] = std::cos(1.3 * static_cast<double>(i)) / 3.0;
    for (std::size_t i = 0; i < b.size(); i++) b[i] = 0.1 * static_cast<double>(i) - 0.15;
    npy::save(w("x64.npy"), DType::f64, x_shape, x.data());
    npy::save(w("w64.npy"), DType::f64, w_shape, wt.data());
    npy::save(w("b64.npy"), DType::f64, {4}, b.data());
    auto load_f64 = [&](const std::string &name, const std::vector<int64_t> &shape) {
        const npy::Array a = npy::load(w(name));
        EXPECT_EQ(a.dtype, DType::f64);
        EXPECT_EQ(a.shape, shape);
        std::vector<double> v(a.bytes.size() / 8);
        if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
        return v;
    };
    auto expect_close = [](const std::vector<double> &got, const std::vector<double> &want) {
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < want.size(); i++) EXPECT_NEAR(got[i], want[i], 1e-13) << "element " << i;
    };

    run_ok({"avgpool", "-i", w("x64.npy"), "-o", w("ya.npy"), "--kernel", "3,2", "--strides", "2,2", "--pads-begin",
            "1,1", "--pads-end", "1,0", "--include-pad"});
    poolconv::AvgPoolAttributes pa;
    pa.kernel = {3, 2};
    pa.strides = {2, 2};
    pa.pads_begin = {1, 1};
    pa.pads_end = {1, 0};
    pa.pad_mode = poolconv::AvgPadMode::include_pad;
    const std::vector<int64_t> ya_shape = poolconv::infer_pool_shape(x_shape, pa).output_shape;
    std::vector<double> want_a(static_cast<std::size_t>(TensorView{DType::f64, ya_shape, {}, nullptr}.element_count()));
    reference::avg_pool(TensorView::dense(DType::f64, x_shape, x.data()), TensorView::dense(DType::f64, ya_shape, want_a.data()),
                        pa);
    expect_close(load_f64("ya.npy", ya_shape), want_a);

    run_ok({"conv", "-i", w("x64.npy"), "-w", w("w64.npy"), "-b", w("b64.npy"), "-o", w("yc.npy"), "--group", "2",
            "--pads-begin", "1,1", "--pads-end", "1,1", "--activation", "relu6"});
    ConvAttributes ca;
    ca.group = 2;
    ca.pads_begin = {1, 1};
    ca.pads_end = {1, 1};
    ca.activation = Activation::relu6;
    const std::vector<int64_t> yc_shape = {1, 4, 6, 7};
    std::vector<double> want_c(1 * 4 * 6 * 7);
    const TensorView bias = TensorView::dense(DType::f64, {4}, b.data());
    reference::convolution(TensorView::dense(DType::f64, x_shape, x.data()), TensorView::dense(DType::f64, w_shape, wt.data()),
                           &bias, TensorView::dense(DType::f64, yc_shape, want_c.data()), ca);
    expect_close(load_f64("yc.npy", yc_shape), want_c);
}

// --- help and version ---

TEST_F(CliTest, HelpDocumentsEverything) {
    for (const std::vector<std::string> &args : {std::vector<std::string>{"--help"}, {"-h"}, {"maxpool", "--help"},
                                                 {"avgpool", "--help"}, {"conv", "--help"}, {"shape", "--help"}}) {
        SCOPED_TRACE(args.front());
        const Result r = run(args);
        EXPECT_EQ(r.status, 0);
        EXPECT_EQ(r.err, "");
        for (const char *word :
             {"maxpool", "avgpool", "shape", "conv", "-i ", "-o ", "--indices", "--kernel", "--strides", "--dilations",
              "--pads-begin", "--pads-end", "--auto-pad", "explicit", "valid", "same_upper", "same_lower", "--rounding",
              "floor", "ceil", "ceil_torch", "--axis", "--storage-order", "row", "col", "--index-type", "i64", "i32",
              "--exclude-pad", "--include-pad", "--include-pad-openvino", "--input-shape", "--weights-shape",
              "--threads", "-w ", "-b ", "--group", "--activation", "relu6", "--clamp", "--help", "POOLCONV_NUM_THREADS", "POOLCONV_ISA", "Exit status", "  0 ", "  1 ", "  2 ",
              "output_shape", "pads_begin", "pads_end"}) {
            EXPECT_NE(r.out.find(word), std::string::npos) << "help does not mention " << word;
        }
    }
    const Result v = run({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_EQ(v.out.rfind("poolconv ", 0), 0u) << v.out;
}

// --- the error contract ---

class CliErrorTest : public CliTest {
protected:
    void SetUp() override {
        CliTest::SetUp();
        x_ = save_f32("x.npy", {1, 1, 3, 3}, kX3);
        y_ = w("y.npy");
    }
    // maxpool -i x.npy -o y.npy <args>
    std::vector<std::string> maxpool(std::vector<std::string> args) const {
        args.insert(args.begin(), {"maxpool", "-i", x_, "-o", y_});
        return args;
    }
    std::string x_, y_;
};

TEST_F(CliErrorTest, UsageErrors) {
    expect_failure({}, 2, "missing command");
    expect_failure({"minpool"}, 2, "unknown command 'minpool'");
    expect_failure({"--kernel", "2"}, 2, "unknown option '--kernel'");
    expect_failure(maxpool({"--kernel", "2,2", "--bogus"}), 2, "unknown option '--bogus'");
    expect_failure(maxpool({"--kernel", "2,2", "--bogus=1"}), 2, "unknown option '--bogus'");
    expect_failure(maxpool({"--kernel", "2,2", "extra"}), 2, "unexpected argument 'extra'");
    expect_failure({"maxpool", "-o", y_, "--kernel", "2,2"}, 2, "-i (input .npy) is required");
    expect_failure({"maxpool", "-i", x_, "--kernel", "2,2"}, 2, "-o (output .npy) is required");
    expect_failure(maxpool({}), 2, "--kernel is required");
    expect_failure(maxpool({"--kernel", "2,2", "--kernel", "2,2"}), 2, "--kernel is given more than once");
    expect_failure(maxpool({"--kernel"}), 2, "--kernel needs a value");
    expect_failure(maxpool({"--kernel", "2,0"}), 2, "--kernel: entry 1 is 0, must be >= 1");
    expect_failure(maxpool({"--kernel", "3x"}), 2, "--kernel: '3x' is not an integer");
    expect_failure(maxpool({"--kernel", ""}), 2, "--kernel: empty list");
    expect_failure(maxpool({"--kernel", "2,,2"}), 2, "--kernel: empty entry");
    expect_failure(maxpool({"--kernel", "2, 2"}), 2, "--kernel: ' 2' is not an integer");
    expect_failure(maxpool({"--kernel", "99999999999999999999"}), 2, "out of the int64 range");
    expect_failure(maxpool({"--kernel", "2,2", "--strides", "0,1"}), 2, "--strides: entry 0 is 0");
    expect_failure(maxpool({"--kernel", "2,2", "--dilations", "1,-1"}), 2, "--dilations: entry 1 is -1");
    expect_failure(maxpool({"--kernel", "2,2", "--pads-begin", "-1,0"}), 2, "--pads-begin: entry 0 is -1");
    expect_failure(maxpool({"--kernel", "2,2", "--strides", "1,1,1"}), 2, "--strides: 3 values, but --kernel has 2");
    expect_failure(maxpool({"--kernel", "2,2,2,2"}), 2, "operators take 1 to 3 spatial dimensions");
    expect_failure(maxpool({"--kernel", "2,2", "--auto-pad", "same"}), 2, "--auto-pad: unknown value 'same'");
    expect_failure(maxpool({"--kernel", "2,2", "--rounding", "round"}), 2, "--rounding: unknown value 'round'");
    expect_failure(maxpool({"--kernel", "2,2", "--index-type", "i16"}), 2, "--index-type: unknown value 'i16'");
    expect_failure(maxpool({"--kernel", "2,2", "--storage-order", "column"}), 2, "--storage-order: unknown value");
    expect_failure(maxpool({"--kernel", "2,2", "--axis", "1.5"}), 2, "--axis: '1.5' is not an integer");
    expect_failure(maxpool({"--kernel", "2,2", "--threads", "x"}), 2, "--threads: 'x' is not an integer");
    expect_failure(maxpool({"--kernel", "2,2", "--threads", "-1"}), 2, "--threads: -1 is outside");
    expect_failure(maxpool({"--kernel", "2,2", "--include-pad"}), 2, "--include-pad does not apply to maxpool");
    expect_failure(maxpool({"--kernel", "2,2", "--indices", y_}), 2, "-o and --indices name the same file");
    expect_failure(maxpool({"--kernel", "2,2", "--exclude-pad=1"}), 2, "--exclude-pad takes no value");
    expect_failure({"avgpool", "-i", x_, "-o", y_, "--kernel", "2,2", "--indices", w("i.npy")}, 2,
                   "--indices does not apply to avgpool");
    expect_failure({"avgpool", "-i", x_, "-o", y_, "--kernel", "2,2", "--axis", "2"}, 2,
                   "--axis does not apply to avgpool");
    expect_failure({"avgpool", "-i", x_, "-o", y_, "--kernel", "2,2", "--include-pad", "--exclude-pad"}, 2,
                   "at most one of");
    expect_failure({"shape", "--input-shape", "1,1,3,3", "--kernel", "2,2"}, 2, "missing the operator");
    expect_failure({"shape", "minpool", "--input-shape", "1,1,3,3"}, 2, "shape: unknown value 'minpool'");
    expect_failure({"shape", "maxpool", "--kernel", "2,2"}, 2, "--input-shape is required");
    expect_failure({"shape", "maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "-i", x_}, 2,
                   "-i does not apply to shape maxpool");
    expect_failure({"shape", "avgpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "--weights-shape", "1,1,2,2"}, 2,
                   "--weights-shape does not apply to shape avgpool");
}

TEST_F(CliErrorTest, ShapeErrorsAreUsageErrors) {
    expect_failure({"shape", "maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2,2"}, 2,
                   "kernel has 3 values but the input has 2 spatial dimensions");
    expect_failure({"shape", "maxpool", "--input-shape", "1,1", "--kernel", "2"}, 2, "rank 3, 4 or 5");
    expect_failure({"shape", "maxpool", "--input-shape", "1,1,3,3", "--kernel", "4,4"}, 2, "output size");
    expect_failure({"shape", "maxpool", "--input-shape", "1,1,9223372036854775807", "--kernel", "1", "--pads-end", "1"},
                   2, "overflows");
    expect_failure({"shape", "maxpool", "--input-shape", "1,1,3,3", "--kernel", "2,2", "--axis", "4"}, 2,
                   "--axis 4 is outside [-4, 3]");
    expect_failure({"shape", "maxpool", "--input-shape", "1,1,3,3,3", "--kernel", "2,2,2", "--axis", "3",
                    "--storage-order", "col"},
                   2, "needs --axis <= 2");
}

TEST_F(CliErrorTest, DataErrors) {
    expect_failure(maxpool({"--kernel", "2,2,2"}), 1, "kernel has 3 values but the input has 2 spatial dimensions");
    expect_failure(maxpool({"--kernel", "4,4"}), 1, "output size along spatial dimension 0 would be 0");
    expect_failure(maxpool({"--kernel", "2,2", "--axis", "-5"}), 1, "--axis -5 is outside [-4, 3]");
    expect_failure({"maxpool", "-i", w("missing.npy"), "-o", y_, "--kernel", "2,2"}, 1,
                   "missing.npy: cannot open: No such file or directory");
    expect_failure({"maxpool", "-i", work_, "-o", y_, "--kernel", "2,2"}, 1, "is a directory");
    expect_failure({"maxpool", "-i", data_file("fortran_f32_2x3.npy"), "-o", y_, "--kernel", "2"}, 1, "Fortran-order");
    expect_failure({"maxpool", "-i", data_file("bigendian_f32_2x3.npy"), "-o", y_, "--kernel", "2"}, 1, "big-endian");
    expect_failure({"maxpool", "-i", data_file("truncated_f32_2x3.npy"), "-o", y_, "--kernel", "2"}, 1, "truncated");
    expect_failure({"maxpool", "-i", data_file("object_3.npy"), "-o", y_, "--kernel", "2"}, 1, "object arrays");
    expect_failure({"maxpool", "-i", data_file("bool_3.npy"), "-o", y_, "--kernel", "2"}, 1, "bool arrays");
    expect_failure({"maxpool", "-i", data_file("f64_scalar.npy"), "-o", y_, "--kernel", "2"}, 1, "rank 3, 4 or 5");
    expect_failure({"maxpool", "-i", data_file("i4_1x2x3.npy"), "-o", y_, "--kernel", "2"}, 1,
                   "input dtype i32 is not supported");
    expect_failure({"avgpool", "-i", data_file("i1_2x2.npy"), "-o", y_, "--kernel", "2"}, 1, "rank 3, 4 or 5");
    std::vector<int8_t> i8(9, 1);
    npy::save(w("i8.npy"), DType::i8, {1, 1, 3, 3}, i8.data());
    expect_failure({"avgpool", "-i", w("i8.npy"), "-o", y_, "--kernel", "2,2"}, 1, "input dtype i8 is not supported");

    // Outputs too large for the kernels, or for int64.
    expect_failure(maxpool({"--kernel", "1,1", "--pads-end", "0,2000000000"}), 1,
                   "output shape [1,1,3,2000000003] has 6000000009 elements; the kernels take at most 2^31-1");
    expect_failure(maxpool({"--kernel", "1,1", "--pads-end", "0,3000000000"}), 1,
                   "window reach[1] = 3000000065 exceeds the kernels' 32-bit range");
    expect_failure(maxpool({"--kernel", "1,1", "--pads-end", "0,4611686018427387904"}), 1, "32-bit range");
    expect_failure(maxpool({"--kernel", "1,1", "--pads-end", "0,9223372036854775807"}), 1, "overflows");

    // A header claiming ~8 TB: refused without trying to allocate it.
    std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 1000, 1000, 1000), }";
    while ((10 + dict.size() + 1) % 64) dict += ' ';
    std::ofstream(w("huge.npy"), std::ios::binary)
        << std::string("\x93NUMPY\x01\x00", 8) << static_cast<char>(dict.size() + 1) << '\0' << dict << '\n';
    expect_failure({"maxpool", "-i", w("huge.npy"), "-o", y_, "--kernel", "2,2"}, 1, "truncated");
}

// Settings from the environment are checked like arguments, not ignored.
TEST_F(CliErrorTest, BadEnvironmentSettings) {
    ::setenv("POOLCONV_ISA", "avx9", 1);
    expect_failure(maxpool({"--kernel", "2,2"}), 1,
                   "POOLCONV_ISA='avx9' is not one of best, avx512, avx2, baseline, neon, cuda, opencl");
    ::unsetenv("POOLCONV_ISA");
    for (const char *bad : {"0", "2000", "four", "3x", ""}) {
        ::setenv("POOLCONV_NUM_THREADS", bad, 1);
        expect_failure(maxpool({"--kernel", "2,2"}), 1,
                       std::string("POOLCONV_NUM_THREADS='") + bad + "' is not an integer in [1, 1024]");
    }
    ::unsetenv("POOLCONV_NUM_THREADS");
    ::setenv("POOLCONV_ISA", "baseline", 1);
    ::setenv("POOLCONV_NUM_THREADS", "1", 1);
    run_ok(maxpool({"--kernel", "2,2"}));
    ::unsetenv("POOLCONV_ISA");
    ::unsetenv("POOLCONV_NUM_THREADS");
}

TEST_F(CliErrorTest, ConvErrors) {
    // Usage
    save_f32("w.npy", {2, 1, 2, 2}, std::vector<float>(8, 0.5f));
    const std::string wt = w("w.npy");
    expect_failure({"conv", "-i", x_, "-o", y_}, 2, "conv: -w (weights .npy) is required");
    expect_failure({"conv", "-w", wt, "-o", y_}, 2, "conv: -i (input .npy) is required");
    expect_failure({"conv", "-i", x_, "-w", wt}, 2, "conv: -o (output .npy) is required");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--group", "0"}, 2, "--group: 0 must be >= 1");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--activation", "gelu"}, 2, "--activation: unknown value");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--activation", "clamp"}, 2, "--clamp MIN,MAX goes with");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--clamp", "0,1"}, 2, "--clamp MIN,MAX goes with");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--activation", "clamp", "--clamp", "2,1"}, 2,
                   "MIN must be <= MAX");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--activation", "clamp", "--clamp", "a,1"}, 2,
                   "not a finite number");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--kernel", "2,2"}, 2, "--kernel does not apply to conv");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--rounding", "ceil"}, 2, "--rounding does not apply to conv");
    // Data: x is 1x1x3x3 f32.
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--group", "2"}, 1, "input has 1 channels");
    save_f32("w3.npy", {3, 2, 2, 2}, std::vector<float>(24, 0.5f));
    expect_failure({"conv", "-i", x_, "-w", w("w3.npy"), "-o", y_}, 1, "input has 1 channels but weights [3,2,2,2]");
    save_f32("w1d.npy", {2, 1, 2}, std::vector<float>(4, 0.5f));
    expect_failure({"conv", "-i", x_, "-w", w("w1d.npy"), "-o", y_}, 1, "1 kernel dimensions but the input");
    save_f32("b3.npy", {3}, {1, 2, 3});
    expect_failure({"conv", "-i", x_, "-w", wt, "-b", w("b3.npy"), "-o", y_}, 1, "bias has shape [3], expected [2]");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", y_, "--strides", "1"}, 1, "strides has 1 values but the input has 2");
    save_f32("big.npy", {2, 1, 4, 4}, std::vector<float>(32, 0.5f));
    expect_failure({"conv", "-i", x_, "-w", w("big.npy"), "-o", y_}, 1, "output size");
    std::vector<uint16_t> half(8, 0x3c00);
    npy::save(w("wh.npy"), DType::f16, {2, 1, 2, 2}, half.data());
    expect_failure({"conv", "-i", x_, "-w", w("wh.npy"), "-o", y_}, 1, "input has dtype f32 but the weights are f16");
    expect_failure({"conv", "-i", x_, "-w", data_file("truncated_f32_2x3.npy"), "-o", y_}, 1, "truncated");
    expect_failure({"conv", "-i", x_, "-w", wt, "-o", "/nonexistent/dir/y.npy"}, 1, "cannot write");
}

TEST_F(CliErrorTest, UnwritableOutputsLeaveNothing) {
    expect_failure({"maxpool", "-i", x_, "-o", "/nonexistent/dir/y.npy", "--kernel", "2,2"}, 1,
                   "/nonexistent/dir/y.npy: cannot write: No such file or directory");
    expect_failure({"maxpool", "-i", x_, "-o", w("no/dir/y.npy"), "--kernel", "2,2"}, 1, "cannot write");
    // The output is fine but the indices cannot be written: the output must not appear either.
    expect_failure(maxpool({"--kernel", "2,2", "--indices", "/nonexistent/dir/i.npy"}), 1, "/nonexistent/dir/i.npy");
    // The output path is a directory.
    fs::create_directory(w("sub"));
    expect_failure({"maxpool", "-i", x_, "-o", w("sub"), "--kernel", "2,2"}, 1, "directory");
    expect_failure({"avgpool", "-i", x_, "-o", w("sub"), "--kernel", "2,2"}, 1, "directory");
    EXPECT_TRUE(fs::is_empty(w("sub")));
    // Same file under two spellings.
    expect_failure(maxpool({"--kernel", "2,2", "--indices", work_ + "/./y.npy"}), 2, "-o and --indices name the same file");
    expect_failure(maxpool({"--kernel", "2,2", "--indices", work_ + "/sub/../y.npy"}), 2, "name the same file");
}

TEST_F(CliErrorTest, FailureLeavesAnExistingOutputUntouched) {
    const float old_value = 42.0f;
    npy::save(y_, DType::f32, {1}, &old_value);
    const std::string before = read_file(y_);
    expect_failure(maxpool({"--kernel", "2,2,2"}), 1, "kernel has 3 values");
    expect_failure({"maxpool", "-i", data_file("truncated_f32_2x3.npy"), "-o", y_, "--kernel", "2"}, 1, "truncated");
    EXPECT_EQ(read_file(y_), before);
}

TEST_F(CliErrorTest, InputMayBeOverwritten) {
    // -o naming the input replaces it only after it has been read.
    run_ok({"maxpool", "-i", x_, "-o", x_, "--kernel", "3,3"});
    EXPECT_EQ(load_f32("x.npy", {1, 1, 1, 1}), std::vector<float>{9});
    EXPECT_EQ(listing(), std::set<std::string>{"x.npy"});
}

}  // namespace
