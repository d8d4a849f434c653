// fuzz_cli: the `poolconv` tool's command line, parsed, checked and run (cli/commands.h) on tiny
// tensors in a private temporary directory. Each input writes the files x.npy, w.npy and b.npy
// (dtype, shape and data from the fuzzer), then runs a command line of words drawn from the tool's
// vocabulary (commands, options, those file names, typical values) and arbitrary strings. Every run
// must end in success or in a UsageError or poolconv::Error (nothing else thrown, no crash, no
// sanitizer report); a failed run must leave no output file and no temporary file behind and change no file, and an
// output a successful run writes must load as a .npy file.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/npy.h"
#include "cli/options.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using namespace poolconv;
namespace fs = std::filesystem;

const char *const kWords[] = {
    "maxpool", "avgpool", "conv", "shape", "--help", "-h", "--version", "-i", "-o", "-w", "-b", "--indices",
    "--kernel", "--strides", "--dilations", "--pads-begin", "--pads-end", "--auto-pad", "--rounding", "--axis",
    "--storage-order", "--index-type", "--threads", "--group", "--activation", "--clamp", "--exclude-pad",
    "--include-pad", "--include-pad-openvino", "--input-shape", "--weights-shape", "--kernel=2,2", "--strides=2",
    "x.npy", "w.npy", "b.npy", "y.npy", "i.npy", "missing.npy", "1", "2", "3", "0", "-1", "1,1", "2,2", "3,3",
    "1,1,1", "2,1", "1,2", "0,0", "1,0", "explicit", "valid", "same_upper", "same_lower", "floor", "ceil",
    "ceil_torch", "row", "col", "i64", "i32", "none", "relu", "relu6", "clamp", "0,6", "-1,1", "1,4,5,5",
    "2,4,3,3", "", "=", ",", "99999999999999999999", "-9223372036854775808"};
constexpr DType kTypes[] = {DType::f32, DType::f16, DType::f64, DType::i8, DType::u8, DType::i32};

// The temporary directory every run works in (made once; file names in command lines are taken
// to be in it). The tool's printed output goes to /dev/null. (No chdir: libFuzzer's own paths
// may be relative.)
const std::string &work_directory() {
    static const std::string dir = [] {
        char name[] = "/tmp/poolconv_fuzz_cli.XXXXXX";
        if (!::mkdtemp(name)) fuzz::finding("cannot make the work directory");
        const int null = ::open("/dev/null", O_WRONLY);
        if (null < 0 || ::dup2(null, STDOUT_FILENO) < 0) fuzz::finding("cannot redirect stdout");
        ::close(null);
        return std::string(name);
    }();
    return dir;
}

// The work directory's files and their contents.
std::map<std::string, std::string> directory_files() {
    std::map<std::string, std::string> files;
    for (const fs::directory_entry &e : fs::directory_iterator(work_directory())) {
        std::ifstream f(e.path(), std::ios::binary);
        files[e.path().filename().string()] = std::string(std::istreambuf_iterator<char>(f), {});
    }
    return files;
}

void write_tensor(FuzzedDataProvider &in, const char *name) {
    const DType dtype = kTypes[in.ConsumeIntegralInRange<int>(0, 5)];
    std::vector<int64_t> shape(in.ConsumeIntegralInRange<std::size_t>(1, 5));
    for (int64_t &d : shape) d = in.ConsumeIntegralInRange<int64_t>(0, 5);
    test::Tensor t = test::Tensor::dense(dtype, shape);
    fuzz::fill(in, t, 10, 0, true);
    npy::save(work_directory() + "/" + name, dtype, shape, t.data());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    for (const fs::directory_entry &e : fs::directory_iterator(work_directory())) fs::remove_all(e.path());
    for (const char *name : {"x.npy", "w.npy", "b.npy"}) {
        if (in.ConsumeIntegralInRange<int>(0, 15) != 0) write_tensor(in, name);
    }
    const std::map<std::string, std::string> before = directory_files();

    std::vector<std::string> words = {"poolconv"};
    const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(0, 24);
    for (std::size_t i = 0; i < count && in.remaining_bytes() > 0; i++) {
        std::string word = in.ConsumeIntegralInRange<int>(0, 7) == 0
                               ? in.ConsumeRandomLengthString(24)
                               : kWords[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kWords) - 1)];
        // Stay inside the work directory, and spare the machine a thousand threads per run. A word
        // naming a file there (x.npy, y.npy, ...) becomes its path.
        if (word.find('/') != std::string::npos || word.find("..") != std::string::npos) word = "slash";
        if (word.size() > 4 && word.compare(word.size() - 4, 4, ".npy") == 0) word = work_directory() + "/" + word;
        words.push_back(word);
    }
    for (std::size_t i = 1; i < words.size(); i++) {
        if (words[i - 1] == "--threads" && words[i].size() > 1) words[i] = "2";
        if (words[i].rfind("--threads=", 0) == 0) words[i] = "--threads=1";
    }
    std::vector<const char *> argv;
    for (const std::string &w : words) argv.push_back(w.c_str());

    bool failed = false;
    try {
        cli::run_command_line(static_cast<int>(argv.size()), argv.data());
    } catch (const cli::UsageError &) {
        failed = true;
    } catch (const Error &) {
        failed = true;
    } catch (const std::bad_alloc &) {
        failed = true;
    }
    for (const auto &[name, contents] : directory_files()) {
        const auto old = before.find(name);
        if (old != before.end()) {
            if (failed && old->second != contents) fuzz::finding("a failed run changed the file " + name);
            continue;
        }
        if (failed) fuzz::finding("a failed run left the file " + name);
        if (name.find(".npy") != name.size() - 4 || name.size() < 5) fuzz::finding("a run left the file " + name);
        try {
            npy::load(work_directory() + "/" + name);
        } catch (const Error &e) {
            fuzz::finding("a run wrote " + name + ", which does not load: " + e.what());
        }
    }
    return 0;
}
