// Two-phase .npy writing, for callers that must publish several files together (the CLI writes
// the output and the indices, and neither may appear unless both are complete).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "poolconv/tensor.h"

namespace poolconv::npy {

// A complete .npy file written under a temporary name in the directory of `path`. commit()
// renames it to `path`; if it is never committed, the destructor removes it. Throws Error (naming
// `path`) when the file cannot be written; nothing is left behind then.
class PendingFile {
public:
    PendingFile(const std::string &path, DType dtype, const std::vector<int64_t> &shape, const void *data);
    ~PendingFile();
    PendingFile(const PendingFile &) = delete;
    PendingFile &operator=(const PendingFile &) = delete;

    void commit();
    const std::string &path() const { return path_; }

private:
    std::string path_;
    std::string temp_path_;  // empty once committed
};

// The bytes of a .npy header (magic, version, length, dict, padding) for a C-order array.
std::string encode_header(DType dtype, const std::vector<int64_t> &shape);

}  // namespace poolconv::npy
