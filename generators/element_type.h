// Element types a generator can be instantiated for, and the conversions between them and the
// types kernels compute in. Halide 14's GeneratorParam<Type> knows no 16-bit floats, so generators
// take this enum and convert it with halide_type().
#pragma once

#include <map>
#include <string>

#include "Halide.h"

namespace poolconv::generators {

enum class ElementType { f32, f16, bf16, f64, i8, u8 };

// Spelled as on the generator command line: data_type=float16.
inline const std::map<std::string, ElementType> &element_type_names() {
    static const std::map<std::string, ElementType> names = {
        {"float32", ElementType::f32}, {"float16", ElementType::f16}, {"bfloat16", ElementType::bf16},
        {"float64", ElementType::f64}, {"int8", ElementType::i8},     {"uint8", ElementType::u8}};
    return names;
}

inline Halide::Type halide_type(ElementType t) {
    switch (t) {
    case ElementType::f32: return Halide::Float(32);
    case ElementType::f16: return Halide::Float(16);
    case ElementType::bf16: return Halide::BFloat(16);
    case ElementType::f64: return Halide::Float(64);
    case ElementType::i8: return Halide::Int(8);
    case ElementType::u8: return Halide::UInt(8);
    }
    return Halide::Float(32);
}

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
// IEEE semantics. Halide 14 converts an f32 NaN to f16 infinity, so NaNs get the canonical f16 NaN
// explicitly; every other value converts as usual.
inline Halide::Expr to_data_type(const Halide::Type &t, const Halide::Expr &e) {
    if (!e.type().is_float()) return Halide::cast(t, e);
    Halide::Expr converted = Halide::strict_float(Halide::cast(t, e));
    if (t != Halide::Float(16)) return converted;
    return Halide::select(nan_bits(e), Halide::reinterpret(Halide::Float(16), Halide::cast<uint16_t>(0x7e00)), converted);
}

}  // namespace poolconv::generators
