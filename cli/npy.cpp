// NumPy .npy reading and writing. Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//   "\x93NUMPY" major minor, header length (uint16 LE for 1.0, uint32 LE for 2.0/3.0), a Python
//   dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces
//   and ending in '\n', then the raw data.
#include "cli/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "cli/npy_pending.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, ".npy I/O assumes a little-endian host");

namespace poolconv::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

struct DescrInfo {
    DType dtype;
    const char *descr;  // what we write
};
constexpr DescrInfo kDescrs[] = {
    {DType::f32, "<f4"}, {DType::f16, "<f2"}, {DType::f64, "<f8"}, {DType::i8, "|i1"},
    {DType::u8, "|u1"},  {DType::i32, "<i4"}, {DType::i64, "<i8"},
};

[[noreturn]] void fail(const std::string &path, const std::string &problem) { throw Error(path + ": " + problem); }

std::string errno_text(int err) { return std::strerror(err); }

// Header text quoted in a message: control and non-ASCII bytes escaped, at most 40 characters, so
// that every message stays one printable line.
std::string printable(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size() && i < 40; i++) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
        } else {
            static const char hex[] = "0123456789abcdef";
            out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
        }
    }
    return text.size() > 40 ? out + "..." : out;
}

// The element type named by a 'descr' string, or an Error explaining why it is not supported.
DType dtype_from_descr(const std::string &path, const std::string &raw_descr) {
    const std::string descr = printable(raw_descr);
    const std::string supported = " (supported: <f4 <f2 <f8 |i1 |u1 <i4 <i8)";
    if (raw_descr.size() < 2) fail(path, "unsupported dtype '" + descr + "'" + supported);
    const char order = raw_descr[0];
    const std::string code = raw_descr.substr(1);
    if (code == "O") fail(path, "object arrays (dtype '" + descr + "') are not supported");
    if (code == "b1" || code == "?") fail(path, "bool arrays (dtype '" + descr + "') are not supported" + supported);
    const bool one_byte = code == "i1" || code == "u1";
    if (order == '>' && !one_byte) {
        fail(path, "big-endian data (dtype '" + descr + "') is not supported; save it as little-endian, e.g. "
                   "a.astype(a.dtype.newbyteorder('<'))");
    }
    const bool order_ok = order == '<' || (one_byte && (order == '|' || order == '>' || order == '='));
    for (const DescrInfo &d : kDescrs) {
        if (order_ok && code == d.descr + 1) return d.dtype;
    }
    fail(path, "unsupported dtype '" + descr + "'" + supported);
}

// `who` prefixes the message: the file's path, or "npy".
const char *descr_of(const std::string &who, DType dtype) {
    for (const DescrInfo &d : kDescrs) {
        if (d.dtype == dtype) return d.descr;
    }
    fail(who, std::string("dtype ") + dtype_name(dtype) + " cannot be stored in a .npy file" +
                  (dtype == DType::bf16 ? " (NumPy has no bfloat16)" : ""));
}

// A parser for the header's dict literal: the subset of Python that NumPy writes (and a little more:
// any key order, any spacing, double quotes, an optional trailing comma, Python 2 'L' suffixes).
class HeaderParser {
public:
    HeaderParser(const std::string &path, std::string_view text) : path_(path), s_(text) {}

    struct Header {
        std::string descr;
        bool fortran_order = false;
        std::vector<int64_t> shape;
    };

    Header parse() {
        Header h;
        bool have_descr = false, have_order = false, have_shape = false;
        skip_space();
        expect('{', "the header does not start with '{'");
        skip_space();
        while (peek() != '}') {
            const std::string key = parse_string("a quoted key");
            skip_space();
            expect(':', "expected ':' after key '" + printable(key) + "'");
            skip_space();
            if (key == "descr") {
                if (have_descr) bad("key 'descr' appears twice");
                have_descr = true;
                if (peek() == '[') bad("structured dtypes (a list 'descr') are not supported");
                h.descr = parse_string("a string value for 'descr'");
            } else if (key == "fortran_order") {
                if (have_order) bad("key 'fortran_order' appears twice");
                have_order = true;
                h.fortran_order = parse_bool("fortran_order");
            } else if (key == "shape") {
                if (have_shape) bad("key 'shape' appears twice");
                have_shape = true;
                h.shape = parse_shape();
            } else {
                bad("unexpected key '" + printable(key) + "' (expected 'descr', 'fortran_order' and 'shape')");
            }
            skip_space();
            if (peek() == ',') {
                pos_++;
                skip_space();
            } else if (peek() != '}') {
                bad("expected ',' or '}' after the value of '" + printable(key) + "'");
            }
        }
        pos_++;  // '}'
        skip_space();
        if (pos_ != s_.size()) bad("unexpected characters after the closing '}'");
        if (!have_descr) bad("key 'descr' is missing");
        if (!have_order) bad("key 'fortran_order' is missing");
        if (!have_shape) bad("key 'shape' is missing");
        return h;
    }

private:
    [[noreturn]] void bad(const std::string &what) { fail(path_, "malformed .npy header: " + what); }

    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }

    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
            pos_++;
        }
    }

    void expect(char c, const std::string &what) {
        if (peek() != c) bad(what);
        pos_++;
    }

    std::string parse_string(const std::string &what) {
        const char quote = peek();
        if (quote != '\'' && quote != '"') bad("expected " + what);
        const std::size_t end = s_.find(quote, pos_ + 1);
        if (end == std::string_view::npos) bad("unterminated string");
        std::string value(s_.substr(pos_ + 1, end - pos_ - 1));
        if (value.find('\\') != std::string::npos) bad("escape sequences in strings are not supported");
        pos_ = end + 1;
        return value;
    }

    bool parse_bool(const std::string &key) {
        if (s_.compare(pos_, 4, "True") == 0) {
            pos_ += 4;
            return true;
        }
        if (s_.compare(pos_, 5, "False") == 0) {
            pos_ += 5;
            return false;
        }
        bad("'" + key + "' must be True or False");
    }

    std::vector<int64_t> parse_shape() {
        expect('(', "'shape' must be a tuple of integers, e.g. (2, 3)");
        std::vector<int64_t> shape;
        bool trailing_comma = false;
        skip_space();
        while (peek() != ')') {
            shape.push_back(parse_dim());
            skip_space();
            trailing_comma = peek() == ',';
            if (trailing_comma) {
                pos_++;
                skip_space();
            } else if (peek() != ')') {
                bad("'shape' must be a tuple of integers, e.g. (2, 3)");
            }
        }
        pos_++;  // ')'
        // "(5)" is the integer 5 in Python, not a tuple.
        if (shape.size() == 1 && !trailing_comma) bad("'shape' (5) is not a tuple; a 1-d shape is written (5,)");
        return shape;
    }

    int64_t parse_dim() {
        if (peek() == '-') bad("'shape' has a negative dimension");
        if (peek() < '0' || peek() > '9') bad("'shape' must be a tuple of integers, e.g. (2, 3)");
        int64_t value = 0;
        while (peek() >= '0' && peek() <= '9') {
            if (__builtin_mul_overflow(value, int64_t{10}, &value) ||
                __builtin_add_overflow(value, int64_t{peek() - '0'}, &value)) {
                fail(path_, "a dimension in 'shape' does not fit in 64 bits");
            }
            pos_++;
        }
        if (peek() == 'L' || peek() == 'l') pos_++;  // Python 2 long
        return value;
    }

    const std::string &path_;
    std::string_view s_;
    std::size_t pos_ = 0;
};

// An open file descriptor, closed on scope exit.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// Reads exactly `size` bytes at the current offset; false on a short read (errno 0) or an error.
bool read_fully(int fd, void *buffer, std::size_t size) {
    auto *p = static_cast<uint8_t *>(buffer);
    while (size > 0) {
        const ssize_t n = ::read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = 0;
            return false;
        }
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

bool write_fully(int fd, const void *buffer, std::size_t size) {
    const auto *p = static_cast<const uint8_t *>(buffer);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

uint64_t data_size(const std::string &path, DType dtype, const std::vector<int64_t> &shape) {
    uint64_t count = 1;
    for (int64_t d : shape) {
        if (d < 0) fail(path, "shape " + shape_to_string(shape) + " has a negative dimension");
        if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count)) {
            fail(path, "shape " + shape_to_string(shape) + " is too large (the element count overflows)");
        }
    }
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(dtype_size(dtype)), &bytes) ||
        bytes > static_cast<uint64_t>(INT64_MAX)) {
        fail(path, "shape " + shape_to_string(shape) + " is too large (the byte size overflows)");
    }
    return bytes;
}

// A name for a temporary file next to `path`: same directory, hidden, unique to this process.
std::string temp_name_for(const std::string &path, unsigned attempt) {
    static std::atomic<unsigned> counter{0};
    const std::size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    return dir + "." + base + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
           std::to_string(attempt);
}

std::string make_header(const std::string &who, DType dtype, const std::vector<int64_t> &shape) {
    std::string dict = std::string("{'descr': '") + descr_of(who, dtype) + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); i++) {
        dict += std::to_string(shape[i]);
        if (shape.size() == 1 || i + 1 < shape.size()) dict += shape.size() == 1 ? "," : ", ";
    }
    dict += "), }";
    // NumPy pads with spaces and a final '\n' so that the data starts at a multiple of 64 bytes;
    // version 1.0 has a 16-bit header length, 2.0 a 32-bit one.
    for (int version = 1; version <= 2; version++) {
        const std::size_t prefix = kMagicSize + 2 + (version == 1 ? 2 : 4);
        const std::size_t unpadded = prefix + dict.size() + 1;
        const std::size_t padding = (64 - unpadded % 64) % 64;
        const std::size_t header_len = dict.size() + padding + 1;
        if (version == 1 && header_len > 0xFFFF) continue;
        if (header_len > 0xFFFFFFFFu) fail(who, "shape " + shape_to_string(shape) + " makes the header too long");
        std::string out(kMagic, kMagicSize);
        out += static_cast<char>(version);
        out += '\0';
        for (std::size_t b = 0; b < prefix - kMagicSize - 2; b++) out += static_cast<char>((header_len >> (8 * b)) & 0xFF);
        out += dict;
        out.append(padding, ' ');
        out += '\n';
        return out;
    }
    fail(who, "unreachable");  // version 2 always returns above
}

}  // namespace

std::string encode_header(DType dtype, const std::vector<int64_t> &shape) { return make_header("npy", dtype, shape); }

Array load(const std::string &path) {
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) fail(path, "cannot open: " + errno_text(errno));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) fail(path, "cannot stat: " + errno_text(errno));
    if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a .npy file");
    if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file");
    const uint64_t file_size = static_cast<uint64_t>(st.st_size);

    auto read_or_fail = [&](void *buffer, std::size_t size, const char *what) {
        if (!read_fully(f.fd, buffer, size)) {
            if (errno != 0) fail(path, std::string("cannot read ") + what + ": " + errno_text(errno));
            fail(path, std::string("truncated: the file ends inside the ") + what);
        }
    };

    uint8_t prefix[kMagicSize + 2];
    if (file_size < sizeof prefix) fail(path, "not a .npy file (only " + std::to_string(file_size) + " bytes)");
    read_or_fail(prefix, sizeof prefix, "magic string");
    if (std::memcmp(prefix, kMagic, kMagicSize) != 0) fail(path, "not a .npy file (bad magic string)");
    const int major = prefix[kMagicSize], minor = prefix[kMagicSize + 1];
    if ((major != 1 && major != 2 && major != 3) || minor != 0) {
        fail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                       " (supported: 1.0, 2.0, 3.0)");
    }
    const std::size_t len_size = major == 1 ? 2 : 4;
    uint8_t len_bytes[4] = {};
    if (file_size < sizeof prefix + len_size) fail(path, "truncated: the file ends inside the header length");
    read_or_fail(len_bytes, len_size, "header length");
    uint64_t header_len = 0;
    for (std::size_t b = 0; b < len_size; b++) header_len |= uint64_t{len_bytes[b]} << (8 * b);
    const uint64_t data_offset = sizeof prefix + len_size + header_len;
    if (data_offset > file_size) {
        fail(path, "truncated: the header claims " + std::to_string(header_len) + " bytes but the file has only " +
                       std::to_string(file_size - sizeof prefix - len_size) + " after the header length");
    }
    std::string header(header_len, '\0');
    read_or_fail(header.data(), header.size(), "header");
    if (header.find('\0') != std::string::npos) fail(path, "malformed .npy header: it contains a NUL byte");

    const HeaderParser::Header h = HeaderParser(path, header).parse();
    Array a;
    a.dtype = dtype_from_descr(path, h.descr);
    if (h.fortran_order) {
        fail(path, "Fortran-order arrays are not supported; save a C-order copy, e.g. np.save(f, np.ascontiguousarray(a))");
    }
    a.shape = h.shape;
    const uint64_t bytes = data_size(path, a.dtype, a.shape);
    const uint64_t available = file_size - data_offset;
    if (available < bytes) {
        fail(path, "truncated: shape " + shape_to_string(a.shape) + " of " + printable(h.descr) + " needs " +
                       std::to_string(bytes) + " data bytes, the file has " + std::to_string(available));
    }
    if (available > bytes) {
        fail(path, "has " + std::to_string(available - bytes) + " unexpected bytes after the " +
                       std::to_string(bytes) + " data bytes");
    }
    a.bytes.resize(static_cast<std::size_t>(bytes));
    read_or_fail(a.bytes.data(), a.bytes.size(), "data");
    return a;
}

PendingFile::PendingFile(const std::string &path, DType dtype, const std::vector<int64_t> &shape, const void *data)
    : path_(path) {
    if (path.empty()) throw Error("npy: empty output path");
    const std::string header = make_header(path, dtype, shape);
    const uint64_t bytes = data_size(path, dtype, shape);
    if (bytes > 0 && data == nullptr) fail(path, "no data to write (null pointer)");
    if (path.back() == '/') fail(path, "cannot write: the path names a directory");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(path, "cannot write: the path is a directory");

    Fd f;
    for (unsigned attempt = 0; f.fd < 0; attempt++) {
        std::string temp = temp_name_for(path, attempt);
        f.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (f.fd >= 0) {
            temp_path_ = std::move(temp);
        } else if (errno != EEXIST || attempt >= 100) {
            fail(path, "cannot write: " + errno_text(errno));
        }
    }
    const bool ok = write_fully(f.fd, header.data(), header.size()) &&
                    write_fully(f.fd, data, static_cast<std::size_t>(bytes)) && ::fsync(f.fd) == 0;
    const int write_errno = errno;
    const int fd = f.fd;
    f.fd = -1;
    const bool closed = ::close(fd) == 0;
    if (!ok || !closed) {
        const std::string reason = errno_text(ok ? errno : write_errno);
        ::unlink(temp_path_.c_str());
        temp_path_.clear();
        fail(path, "cannot write: " + reason);
    }
}

PendingFile::~PendingFile() {
    if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void PendingFile::commit() {
    if (temp_path_.empty()) return;
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp_path_.c_str());
        temp_path_.clear();
        fail(path_, "cannot write: " + errno_text(err));
    }
    temp_path_.clear();
}

void save(const std::string &path, DType dtype, const std::vector<int64_t> &shape, const void *data) {
    PendingFile file(path, dtype, shape, data);
    file.commit();
}

}  // namespace poolconv::npy
