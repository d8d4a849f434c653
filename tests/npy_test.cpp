// .npy reading and writing: round trips, files written by NumPy, and every kind of bad file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/npy.h"
#include "cli/npy_pending.h"

namespace {

namespace fs = std::filesystem;
namespace npy = poolconv::npy;
using poolconv::DType;
using poolconv::Error;

std::string data_file(const std::string &name) { return std::string(POOLCONV_TEST_DATA_DIR) + "/npy/" + name; }

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

template <typename T>
std::vector<T> elements(const npy::Array &a) {
    std::vector<T> v(a.bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
    return v;
}

// Runs `f` and returns the message of the poolconv::Error it must throw.
template <typename F>
std::string error_of(F &&f) {
    try {
        f();
    } catch (const Error &e) {
        return e.what();
    } catch (const std::exception &e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return "no exception";
}

class NpyTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "poolconv_npy_test.XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }
    void TearDown() override {
        ::chmod(dir_.c_str(), 0700);
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

    std::string path(const std::string &name) const { return dir_ + "/" + name; }

    std::set<std::string> entries(const std::string &dir) const {
        std::set<std::string> names;
        for (const auto &e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
        return names;
    }

    std::string write(const std::string &name, const std::string &bytes) const {
        std::ofstream(path(name), std::ios::binary) << bytes;
        return path(name);
    }

    // A version-1.0 file with the given header dict (padded like NumPy) and data bytes.
    std::string write_npy(const std::string &name, const std::string &dict, const std::string &data) const {
        std::string header = dict;
        while ((10 + header.size() + 1) % 64 != 0) header += ' ';
        header += '\n';
        std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
        bytes += static_cast<char>(header.size() & 0xFF);
        bytes += static_cast<char>(header.size() >> 8);
        return write(name, bytes + header + data);
    }

    // Expects load(file) to throw Error whose message names the file and contains `needle`.
    void expect_load_error(const std::string &file, const std::string &needle) const {
        SCOPED_TRACE(file);
        const std::string message = error_of([&] { npy::load(file); });
        EXPECT_NE(message.find(file), std::string::npos) << message;
        EXPECT_NE(message.find(needle), std::string::npos) << "expected '" << needle << "' in: " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }

    std::string dir_;
};

const std::string kF32Dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
const std::string kTwoFloats("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);  // 1.0f, 2.0f

// --- round trips ---

TEST_F(NpyTest, RoundTripEveryDTypeAndRank) {
    const std::vector<int64_t> dims = {2, 3, 1, 4, 2};
    for (DType dtype : {DType::f32, DType::f16, DType::f64, DType::i8, DType::u8, DType::i32, DType::i64}) {
        for (std::size_t rank = 0; rank <= 5; rank++) {
            SCOPED_TRACE(std::string(poolconv::dtype_name(dtype)) + " rank " + std::to_string(rank));
            const std::vector<int64_t> shape(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(rank));
            int64_t count = 1;
            for (int64_t d : shape) count *= d;
            std::vector<uint8_t> bytes(static_cast<std::size_t>(count) * poolconv::dtype_size(dtype));
            for (std::size_t i = 0; i < bytes.size(); i++) bytes[i] = static_cast<uint8_t>(i * 37 + 11 + rank);
            const std::string file = path("a.npy");
            npy::save(file, dtype, shape, bytes.data());

            const std::string raw = read_file(file);
            ASSERT_GE(raw.size(), bytes.size() + 64);
            const std::size_t header_end = raw.size() - bytes.size();
            EXPECT_EQ(header_end % 64, 0u);
            EXPECT_EQ(raw.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
            EXPECT_EQ(raw[header_end - 1], '\n');

            const npy::Array a = npy::load(file);
            EXPECT_EQ(a.dtype, dtype);
            EXPECT_EQ(a.shape, shape);
            EXPECT_EQ(a.bytes, bytes);
            EXPECT_EQ(entries(dir_), std::set<std::string>{"a.npy"});  // no temporary file left
        }
    }
}

TEST_F(NpyTest, RoundTripEmptyTensor) {
    npy::save(path("e.npy"), DType::f32, {0, 3}, nullptr);
    const npy::Array a = npy::load(path("e.npy"));
    EXPECT_EQ(a.shape, (std::vector<int64_t>{0, 3}));
    EXPECT_TRUE(a.bytes.empty());
}

TEST_F(NpyTest, HeaderMatchesNumPyLayout) {
    // The same layout as NumPy's: magic, version 1.0, 16-bit length, the dict, spaces, '\n'; the
    // data starts at a multiple of 64.
    const std::string h = npy::encode_header(DType::f32, {2, 3});
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    ASSERT_EQ(h.size(), 128u);
    EXPECT_EQ(h.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));  // header length 118
    EXPECT_EQ(h.substr(10, dict.size()), dict);
    EXPECT_EQ(h.substr(10 + dict.size()), std::string(128 - 11 - dict.size(), ' ') + "\n");
    // NumPy's own file for the same shape has the same header size.
    EXPECT_EQ(read_file(data_file("f32_2x3.npy")).size(), 128u + 24u);
    EXPECT_NE(npy::encode_header(DType::u8, {5}).find("'descr': '|u1', 'fortran_order': False, 'shape': (5,), }"),
              std::string::npos);
    EXPECT_NE(npy::encode_header(DType::f16, {}).find("'descr': '<f2', 'fortran_order': False, 'shape': (), }"),
              std::string::npos);
    EXPECT_NE(npy::encode_header(DType::i8, {1}).find("'|i1'"), std::string::npos);
    EXPECT_NE(npy::encode_header(DType::i64, {1}).find("'<i8'"), std::string::npos);
    EXPECT_NE(npy::encode_header(DType::i32, {1}).find("'<i4'"), std::string::npos);
    EXPECT_NE(npy::encode_header(DType::f64, {1}).find("'<f8'"), std::string::npos);
}

TEST_F(NpyTest, LongHeaderUsesVersion2) {
    const std::vector<int64_t> shape(30000, 1);  // "1, " x 30000: more than 65535 header bytes
    const uint8_t value = 42;
    npy::save(path("long.npy"), DType::u8, shape, &value);
    const std::string raw = read_file(path("long.npy"));
    EXPECT_EQ(raw[6], '\x02');
    EXPECT_EQ(raw[7], '\x00');
    EXPECT_EQ((raw.size() - 1) % 64, 0u);
    const npy::Array a = npy::load(path("long.npy"));
    EXPECT_EQ(a.shape, shape);
    ASSERT_EQ(a.bytes.size(), 1u);
    EXPECT_EQ(a.bytes[0], 42);
}

TEST_F(NpyTest, SaveReplacesExistingFile) {
    const float one = 1.0f, two = 2.0f;
    npy::save(path("x.npy"), DType::f32, {1}, &one);
    npy::save(path("x.npy"), DType::f32, {1}, &two);
    EXPECT_EQ(elements<float>(npy::load(path("x.npy"))), std::vector<float>{2.0f});
    EXPECT_EQ(entries(dir_), std::set<std::string>{"x.npy"});
}

// --- files written by NumPy 1.24 (tests/data/npy) ---

TEST_F(NpyTest, ReadsNumPyFloat32) {
    const npy::Array a = npy::load(data_file("f32_2x3.npy"));
    EXPECT_EQ(a.dtype, DType::f32);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(elements<float>(a), (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));
}

TEST_F(NpyTest, ReadsNumPyFloat16) {
    const npy::Array a = npy::load(data_file("f16_4.npy"));
    EXPECT_EQ(a.dtype, DType::f16);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{4}));
    EXPECT_EQ(elements<uint16_t>(a), (std::vector<uint16_t>{0x3E00, 0xC000, 0x3400, 0x6400}));  // 1.5 -2 0.25 1024
}

TEST_F(NpyTest, ReadsNumPyFloat64Scalar) {
    const npy::Array a = npy::load(data_file("f64_scalar.npy"));
    EXPECT_EQ(a.dtype, DType::f64);
    EXPECT_TRUE(a.shape.empty());
    EXPECT_EQ(elements<double>(a), std::vector<double>{3.25});
}

TEST_F(NpyTest, ReadsNumPyIntegers) {
    const npy::Array i1 = npy::load(data_file("i1_2x2.npy"));
    EXPECT_EQ(i1.dtype, DType::i8);
    EXPECT_EQ(i1.shape, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(elements<int8_t>(i1), (std::vector<int8_t>{-128, 127, 0, -1}));

    const npy::Array u1 = npy::load(data_file("u1_5.npy"));
    EXPECT_EQ(u1.dtype, DType::u8);
    EXPECT_EQ(elements<uint8_t>(u1), (std::vector<uint8_t>{0, 1, 2, 254, 255}));

    const npy::Array i4 = npy::load(data_file("i4_1x2x3.npy"));
    EXPECT_EQ(i4.dtype, DType::i32);
    EXPECT_EQ(i4.shape, (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(elements<int32_t>(i4), (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -1, 0, 1, 2,
                                                           std::numeric_limits<int32_t>::max()}));

    const npy::Array i8 = npy::load(data_file("i8_2x1x1x2.npy"));
    EXPECT_EQ(i8.dtype, DType::i64);
    EXPECT_EQ(i8.shape, (std::vector<int64_t>{2, 1, 1, 2}));
    EXPECT_EQ(elements<int64_t>(i8), (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -1, 1,
                                                           std::numeric_limits<int64_t>::max()}));
}

TEST_F(NpyTest, ReadsNumPyEmptyArray) {
    const npy::Array a = npy::load(data_file("f32_0x3.npy"));
    EXPECT_EQ(a.shape, (std::vector<int64_t>{0, 3}));
    EXPECT_TRUE(a.bytes.empty());
}

TEST_F(NpyTest, ReadsNumPyVersions2And3) {
    for (const char *name : {"v2_f32_1x1x2x3.npy", "v3_f32_1x1x2x3.npy"}) {
        SCOPED_TRACE(name);
        const std::string raw = read_file(data_file(name));
        ASSERT_GT(raw.size(), 8u);
        EXPECT_EQ(raw[6], name[1] - '0');  // really a version 2.0 / 3.0 header
        const npy::Array a = npy::load(data_file(name));
        EXPECT_EQ(a.dtype, DType::f32);
        EXPECT_EQ(a.shape, (std::vector<int64_t>{1, 1, 2, 3}));
        EXPECT_EQ(elements<float>(a), (std::vector<float>{0, 1, 2, 3, 4, 5}));
    }
}

TEST_F(NpyTest, RejectsUnsupportedNumPyFiles) {
    expect_load_error(data_file("fortran_f32_2x3.npy"), "Fortran-order");
    expect_load_error(data_file("bigendian_f32_2x3.npy"), "big-endian");
    expect_load_error(data_file("truncated_f32_2x3.npy"), "truncated: shape [2,3] of <f4 needs 24 data bytes, the file has 20");
    expect_load_error(data_file("object_3.npy"), "object arrays");
    expect_load_error(data_file("bool_3.npy"), "bool arrays");
    expect_load_error(data_file("u2_3.npy"), "unsupported dtype '<u2'");
}

// --- header parsing ---

TEST_F(NpyTest, AcceptsHeaderVariants) {
    const char *dicts[] = {
        "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",          // other order, no trailing comma
        "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}",  // double quotes
        "{ 'descr' : '<f4' ,'fortran_order':False,'shape':( 2 , ) , }",     // odd spacing
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }",       // Python 2 long
    };
    for (const char *dict : dicts) {
        SCOPED_TRACE(dict);
        const npy::Array a = npy::load(write_npy("v.npy", dict, kTwoFloats));
        EXPECT_EQ(a.shape, std::vector<int64_t>{2});
        EXPECT_EQ(elements<float>(a), (std::vector<float>{1.0f, 2.0f}));
    }
    // Headers that are not padded to 64 bytes (older writers aligned to 16).
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    std::string raw = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(dict.size() + 1) + '\0' + dict + "\n" + kTwoFloats;
    EXPECT_EQ(npy::load(write("unpadded.npy", raw)).shape, std::vector<int64_t>{2});
    // 1-byte types with any byte-order character.
    EXPECT_EQ(npy::load(write_npy("b.npy", "{'descr': '<u1', 'fortran_order': False, 'shape': (1,), }", "x")).dtype,
              DType::u8);
}

TEST_F(NpyTest, RejectsCorruptFiles) {
    expect_load_error(path("missing.npy"), "cannot open: No such file or directory");
    expect_load_error(dir_, "is a directory");
    expect_load_error(write("empty.npy", ""), "not a .npy file");
    expect_load_error(write("magic.npy", std::string("\x93NUMPX\x01\x00\x10\x00", 10) + std::string(16, ' ')),
                      "bad magic");
    expect_load_error(write("version.npy", std::string("\x93NUMPY\x04\x00\x10\x00", 10) + std::string(16, ' ')),
                      "unsupported .npy format version 4.0");
    expect_load_error(write("short_len.npy", std::string("\x93NUMPY\x02\x00\x10\x00", 10)),
                      "truncated: the file ends inside the header length");
    expect_load_error(write("header_len.npy", std::string("\x93NUMPY\x01\x00\xff\xff", 10) + kF32Dict),
                      "truncated: the header claims 65535 bytes");
    expect_load_error(write("header_len2.npy", std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12) + kF32Dict),
                      "truncated: the header claims 4294967295 bytes");
    expect_load_error(write_npy("trailing.npy", kF32Dict, kTwoFloats + "junk"),
                      "has 4 unexpected bytes after the 8 data bytes");
    expect_load_error(write_npy("short_data.npy", kF32Dict, "abc"), "truncated");
}

TEST_F(NpyTest, RejectsMalformedHeaders) {
    const std::pair<const char *, const char *> cases[] = {
        {"'descr': '<f4'", "does not start with '{'"},
        {"{'descr': '<f4', 'fortran_order': False}", "'shape' is missing"},
        {"{'shape': (2,), 'fortran_order': False}", "'descr' is missing"},
        {"{'descr': '<f4', 'shape': (2,)}", "'fortran_order' is missing"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "unexpected key 'extra'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "'descr' appears twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "not a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}", "must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", "negative dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "does not fit in 64 bits"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "must be True or False"},
        {"{'descr': 4, 'fortran_order': False, 'shape': (2,)}", "expected a string value for 'descr'"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", "structured dtypes"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "after the closing '}'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "expected ',' or '}'"},
        {"{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}", "expected ':'"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}", "unsupported dtype '<c8'"},
        {"{'descr': '|f4', 'fortran_order': False, 'shape': (2,)}", "unsupported dtype '|f4'"},
        {"{'descr': '>i4', 'fortran_order': False, 'shape': (2,)}", "big-endian"},
        {"{'descr': '|O', 'fortran_order': False, 'shape': (2,)}", "object arrays"},
        {"{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", "bool arrays"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", "Fortran-order"},
    };
    for (const auto &[dict, needle] : cases) {
        SCOPED_TRACE(dict);
        expect_load_error(write_npy("bad.npy", dict, kTwoFloats), needle);
    }
}

TEST_F(NpyTest, RefusesAbsurdSizesBeforeAllocating) {
    // 10^12 float64 (8 TB): must be reported as truncated, not attempted.
    expect_load_error(write_npy("huge.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", ""),
                      "needs 8000000000000 data bytes, the file has 0");
    // Element count or byte size beyond 64 bits.
    expect_load_error(
        write_npy("overflow.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
        "too large");
    expect_load_error(
        write_npy("overflow2.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", ""),
        "too large");
}

// --- saving failures ---

TEST_F(NpyTest, SaveIntoMissingDirectoryThrowsAndLeavesNothing) {
    const float v = 1.0f;
    const std::string target = path("no/such/dir/y.npy");
    const std::string message = error_of([&] { npy::save(target, DType::f32, {1}, &v); });
    EXPECT_NE(message.find(target), std::string::npos) << message;
    EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;
    EXPECT_TRUE(entries(dir_).empty());

    EXPECT_NE(error_of([&] { npy::save("/nonexistent-poolconv-dir/y.npy", DType::f32, {1}, &v); }).find("cannot write"),
              std::string::npos);
}

TEST_F(NpyTest, SaveIntoReadOnlyDirectoryThrowsAndLeavesNothing) {
    if (::geteuid() == 0) GTEST_SKIP() << "root can write into read-only directories";
    const float v = 1.0f;
    ASSERT_EQ(::chmod(dir_.c_str(), 0500), 0);
    const std::string message = error_of([&] { npy::save(path("y.npy"), DType::f32, {1}, &v); });
    ::chmod(dir_.c_str(), 0700);
    EXPECT_NE(message.find("Permission denied"), std::string::npos) << message;
    EXPECT_TRUE(entries(dir_).empty());
}

TEST_F(NpyTest, SaveOntoDirectoryThrowsAndLeavesNothing) {
    const float v = 1.0f;
    fs::create_directory(path("sub"));
    EXPECT_NE(error_of([&] { npy::save(path("sub"), DType::f32, {1}, &v); }).find("directory"), std::string::npos);
    EXPECT_NE(error_of([&] { npy::save(path("sub/"), DType::f32, {1}, &v); }).find("directory"), std::string::npos);
    EXPECT_EQ(entries(dir_), std::set<std::string>{"sub"});
    EXPECT_TRUE(entries(path("sub")).empty());
}

TEST_F(NpyTest, SaveRejectsBadArguments) {
    const uint16_t v = 0;
    const std::string bf16 = error_of([&] { npy::save(path("b.npy"), DType::bf16, {1}, &v); });
    EXPECT_NE(bf16.find("bf16 cannot be stored"), std::string::npos) << bf16;
    EXPECT_NE(error_of([&] { npy::save(path("n.npy"), DType::f32, {2}, nullptr); }).find("null"), std::string::npos);
    EXPECT_NE(error_of([&] { npy::save(path("m.npy"), DType::f32, {-1}, &v); }).find("negative"), std::string::npos);
    EXPECT_NE(error_of([&] { npy::save("", DType::f32, {1}, &v); }).find("empty"), std::string::npos);
    EXPECT_TRUE(entries(dir_).empty());
}

TEST_F(NpyTest, PendingFileAppearsOnlyOnCommit) {
    const float v = 3.0f;
    {
        npy::PendingFile discarded(path("a.npy"), DType::f32, {1}, &v);
        EXPECT_EQ(entries(dir_).count("a.npy"), 0u);
        EXPECT_EQ(entries(dir_).size(), 1u);  // the temporary file
    }
    EXPECT_TRUE(entries(dir_).empty());
    npy::PendingFile kept(path("b.npy"), DType::f32, {1}, &v);
    kept.commit();
    EXPECT_EQ(entries(dir_), std::set<std::string>{"b.npy"});
    EXPECT_EQ(elements<float>(npy::load(path("b.npy"))), std::vector<float>{3.0f});
}

}  // namespace
