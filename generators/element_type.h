// Conversions between the element types a generator is instantiated for (its `data_type`
// GeneratorParam: float32, float16, bfloat16, float64, int8, uint8) and the types kernels compute
// in.
#pragma once

#include "Halide.h"

namespace poolconv::generators {

// NaN test on the bits of an f32 or f64 value: unlike is_nan, LLVM's fast-math flags (which Halide
// sets by default) cannot fold it away.
inline Halide::Expr nan_bits(const Halide::Expr &v) {
    if (v.type().bits() == 64) {
        return (Halide::reinterpret<uint64_t>(v) & Halide::Expr(uint64_t(0x7fffffffffffffffULL))) >
               Halide::Expr(uint64_t(0x7ff0000000000000ULL));
    }
    return (Halide::reinterpret<uint32_t>(v) & Halide::Expr(uint32_t(0x7fffffff))) >
           Halide::Expr(uint32_t(0x7f800000));
}

// A value computed in a wider type (f32 for 16-bit floats), converted back to the data type t with
// IEEE semantics. Halide's software conversion (targets without F16C, e.g. baseline x86-64; Halide
// 21 as 14) turns an f32 NaN into f16 infinity, so NaNs get the canonical f16 NaN explicitly;
// every other value converts as usual.
inline Halide::Expr to_data_type(const Halide::Type &t, const Halide::Expr &e) {
    if (!e.type().is_float()) return Halide::cast(t, e);
    Halide::Expr converted = Halide::strict_float(Halide::cast(t, e));
    if (t != Halide::Float(16)) return converted;
    return Halide::select(nan_bits(e), Halide::reinterpret(Halide::Float(16), Halide::cast<uint16_t>(0x7e00)), converted);
}

}  // namespace poolconv::generators
