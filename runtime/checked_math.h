// Overflow-checked int64 arithmetic for shape computations: an overflow is an Error naming what
// was being computed, never undefined behaviour.
#pragma once

#include <cstdint>
#include <string>

#include "poolconv/tensor.h"

namespace poolconv {

inline int64_t checked_add(int64_t a, int64_t b, const char *what) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) throw Error(std::string(what) + " overflows int64");
    return r;
}

inline int64_t checked_mul(int64_t a, int64_t b, const char *what) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) throw Error(std::string(what) + " overflows int64");
    return r;
}

}  // namespace poolconv
