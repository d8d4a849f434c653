// fuzz_npy: the .npy reader on arbitrary bytes. Every input must either load or throw
// poolconv::Error (no other exception, no crash, no sanitizer report), and what loads must hold as
// many bytes as its shape and dtype say and read back the same once written out again.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/npy.h"
#include "cli/npy_pending.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// The bytes as a file the reader opens by path: an in-memory file (memfd) seen through /proc.
class MemoryFile {
public:
    MemoryFile() : fd_(::memfd_create("fuzz_npy", 0)) {
        if (fd_ < 0) poolconv::fuzz::finding("memfd_create failed");
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    const std::string &write(const void *data, std::size_t size) {
        if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size)) {
            poolconv::fuzz::finding("cannot write the memory file");
        }
        return path_;
    }

private:
    int fd_;
    std::string path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    using namespace poolconv;
    static MemoryFile file;
    npy::Array a;
    try {
        a = npy::load(file.write(data, size));
    } catch (const Error &) {
        return 0;  // the expected outcome for most inputs: a one-line error
    }
    const int64_t count = TensorView{a.dtype, a.shape, {}, nullptr}.element_count();
    if (a.bytes.size() != static_cast<std::size_t>(count) * dtype_size(a.dtype)) {
        fuzz::finding("loaded " + std::to_string(a.bytes.size()) + " bytes for shape " + shape_to_string(a.shape));
    }
    // Written out again (our header, the same data), it loads as the same array.
    std::string again = npy::encode_header(a.dtype, a.shape);
    again.append(reinterpret_cast<const char *>(a.bytes.data()), a.bytes.size());
    const npy::Array b = npy::load(file.write(again.data(), again.size()));
    if (b.dtype != a.dtype || b.shape != a.shape || b.bytes != a.bytes) fuzz::finding("the array does not round-trip");
    return 0;
}
