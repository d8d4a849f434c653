#include "runtime/validation.h"

#include <cstdint>
#include <limits>

namespace poolconv::detail {

void check_rank(const char *op, const char *what, const std::vector<int64_t> &shape) {
    if (shape.size() < 3 || shape.size() > 5) {
        throw Error(std::string(op) + ": " + what + " must have rank 3, 4 or 5 (N, C, 1-3 spatial dims), got shape " +
                    shape_to_string(shape));
    }
}

SpatialValues spatial_list(const char *op, const char *name, const std::vector<int64_t> &values, std::size_t spatial,
                           int64_t default_value, int64_t min_value) {
    SpatialValues list;
    list.fill(default_value);
    if (values.empty()) {
        if (default_value < 0) throw Error(std::string(op) + ": " + name + " is required");
        return list;
    }
    if (values.size() != spatial) {
        throw Error(std::string(op) + ": " + name + " has " + std::to_string(values.size()) +
                    " values but the input has " + std::to_string(spatial) + " spatial dimensions");
    }
    for (std::size_t i = 0; i < values.size(); i++) {
        if (values[i] < min_value) {
            throw Error(std::string(op) + ": " + name + "[" + std::to_string(i) + "] must be >= " +
                        std::to_string(min_value) + ", got " + std::to_string(values[i]));
        }
        list[i] = values[i];
    }
    return list;
}

void check_tensor(const char *op, const char *what, const TensorView &t, DType dtype,
                  const std::vector<int64_t> &expected_shape) {
    // Built only for an error: this check runs on every call.
    const auto prefix = [&] { return std::string(op) + ": " + what; };
    if (t.dtype != dtype) {
        throw Error(prefix() + " has dtype " + dtype_name(t.dtype) + ", expected " + dtype_name(dtype));
    }
    if (t.shape != expected_shape) {
        throw Error(prefix() + " has shape " + shape_to_string(t.shape) + ", expected " + shape_to_string(expected_shape));
    }
    const int64_t count = t.element_count();
    if (count > std::numeric_limits<int32_t>::max()) {
        throw Error(prefix() + " has " + std::to_string(count) + " elements; kernels take at most 2^31-1");
    }
    if (!t.strides.empty()) {
        if (t.strides.size() != t.shape.size()) {
            throw Error(prefix() + " has " + std::to_string(t.strides.size()) + " strides for rank " +
                        std::to_string(t.shape.size()));
        }
        for (std::size_t i = 0; i < t.strides.size(); i++) {
            if (t.strides[i] < 1 || t.strides[i] > std::numeric_limits<int32_t>::max()) {
                throw Error(prefix() + " stride[" + std::to_string(i) + "] = " + std::to_string(t.strides[i]) +
                            " is outside [1, 2^31-1]");
            }
        }
        if (t.strides.back() != 1) throw Error(prefix() + ": the last dimension must be contiguous (stride 1)");
    }
    if (count > 0 && t.data == nullptr) throw Error(prefix() + " has null data");
}

int32_t to_int32(const char *op, const char *name, std::size_t i, int64_t v) {
    if (v > std::numeric_limits<int32_t>::max()) {
        throw Error(std::string(op) + ": " + name + "[" + std::to_string(i) + "] = " + std::to_string(v) +
                    " exceeds the kernels' 32-bit range");
    }
    return static_cast<int32_t>(v);
}

}  // namespace poolconv::detail
