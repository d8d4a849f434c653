// The margin of padding around a copied input, written box by box.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"

namespace poolconv::generators {

// An RDom over the box [from[i], to[i]) per dimension, or over the single point 0 (every
// dimension) where the box is empty. Pipelines that copy their input into a scratch buffer write
// the margin of padding around it as updates over such boxes, then copy the input over the
// rest: each element is written once (no fill of the whole buffer first), and a side without
// padding writes one element inside the input, which the copy overwrites. (An update over an
// empty RDom would stop Adams2019.)
inline Halide::RDom box_or_origin(const std::vector<Halide::Expr> &from, const std::vector<Halide::Expr> &to,
                                  const std::string &name) {
    Halide::Expr nonempty = to[0] > from[0];
    for (size_t i = 1; i < from.size(); i++) nonempty = nonempty && to[i] > from[i];
    Halide::Region box;
    for (size_t i = 0; i < from.size(); i++) {
        box.emplace_back(Halide::select(nonempty, from[i], 0), Halide::select(nonempty, to[i] - from[i], 1));
    }
    return Halide::RDom(box, name);
}

}  // namespace poolconv::generators
