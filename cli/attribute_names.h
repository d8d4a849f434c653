// The words for attribute values, as the `poolconv` command line and poolconv-tune's layer files
// spell them: one table per attribute.
#pragma once

#include <utility>
#include <vector>

#include "poolconv/convolution.h"
#include "poolconv/pooling.h"

namespace poolconv::cli {

template<typename T>
using NamedValues = std::vector<std::pair<const char *, T>>;

inline const NamedValues<AutoPad> &auto_pad_names() {
    static const NamedValues<AutoPad> names = {{"explicit", AutoPad::explicit_pads},
                                               {"valid", AutoPad::valid},
                                               {"same_upper", AutoPad::same_upper},
                                               {"same_lower", AutoPad::same_lower}};
    return names;
}

inline const NamedValues<Rounding> &rounding_names() {
    static const NamedValues<Rounding> names = {
        {"floor", Rounding::floor}, {"ceil", Rounding::ceil}, {"ceil_torch", Rounding::ceil_torch}};
    return names;
}

inline const NamedValues<Activation> &activation_names() {
    static const NamedValues<Activation> names = {
        {"none", Activation::none}, {"relu", Activation::relu}, {"relu6", Activation::relu6}, {"clamp", Activation::clamp}};
    return names;
}

inline const NamedValues<DType> &index_type_names() {
    static const NamedValues<DType> names = {{"i64", DType::i64}, {"i32", DType::i32}};
    return names;
}

}  // namespace poolconv::cli
