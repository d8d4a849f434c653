// Element types a generator can be instantiated for. Halide 14's GeneratorParam<Type> knows no
// 16-bit floats, so generators take this enum and convert it with halide_type().
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

}  // namespace poolconv::generators
