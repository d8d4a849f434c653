// A kernel built for one layer (poolconv-tune): the extents of its buffers and the values of its
// scalar inputs become constants, so bounds, tile counts and tap loops are constants and the
// schedule's specializations for other shapes drop out. Given as the generator parameter
//
//   layer=input:56x56x1x64x1x1/weights:8x3x3x1x64x8x1/stride:1x1x1/...
//
// where each item names an Input or Output and lists a buffer's extents (Halide order, innermost
// first; every min is 0) or an array input's values. Inputs it does not name stay runtime values.
// Empty (the default): the kernel takes any shape.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "Halide.h"

namespace poolconv::generators {

class FixedLayer {
public:
    FixedLayer() = default;
    // Throws Halide::CompileError for a malformed spec.
    explicit FixedLayer(const std::string &spec) {
        std::size_t start = 0;
        while (start < spec.size()) {
            std::size_t end = spec.find('/', start);
            if (end == std::string::npos) end = spec.size();
            const std::string item = spec.substr(start, end - start);
            const std::size_t colon = item.find(':');
            if (colon == std::string::npos || colon == 0) malformed(spec, item);
            values_[item.substr(0, colon)] = parse_list(item.substr(colon + 1), "layer item \"" + item + "\"");
            start = end + 1;
        }
    }

    // "AxBx...": integers joined by x (also the tile and task parameters' form). Throws
    // Halide::CompileError naming `what` for anything else.
    static std::vector<int> parse_list(const std::string &text, const std::string &what) {
        std::vector<int> numbers;
        std::size_t at = 0;
        while (at <= text.size()) {
            std::size_t next = text.find('x', at);
            if (next == std::string::npos) next = text.size();
            const std::string number = text.substr(at, next - at);
            if (number.empty() || number.size() > 9 || number.find_first_not_of("-0123456789") != std::string::npos) {
                throw Halide::CompileError(what + ": expected integers joined by x, got \"" + text + "\"");
            }
            numbers.push_back(std::stoi(number));
            at = next + 1;
        }
        return numbers;
    }

    bool empty() const { return values_.empty(); }

    // Element i of input `name` as the kernel computes with it: the layer's constant, or `runtime`.
    Halide::Expr value(const std::string &name, int i, const Halide::Expr &runtime) const {
        const std::vector<int> *v = find(name);
        if (!v) return runtime;
        if (i >= static_cast<int>(v->size())) {
            throw Halide::CompileError("layer: " + name + " has " + std::to_string(v->size()) + " values, dimension " +
                                       std::to_string(i) + " asked for");
        }
        return Halide::Expr((*v)[i]);
    }

    // Fixes buffer input or output `b` named `name` to the layer's extents (mins 0), which are also
    // its estimates; leaves it alone when the layer does not name it.
    template<typename Buffer>
    void constrain(Buffer &b, const std::string &name) const {
        const std::vector<int> *v = find(name);
        if (!v) return;
        if (static_cast<int>(v->size()) != b.dimensions()) {
            throw Halide::CompileError("layer: " + name + " has " + std::to_string(v->size()) + " extents, the buffer " +
                                       std::to_string(b.dimensions()) + " dimensions");
        }
        Halide::Region region;
        for (int d = 0; d < b.dimensions(); d++) {
            b.dim(d).set_bounds(0, (*v)[d]);
            region.push_back({0, (*v)[d]});
        }
        b.set_estimates(region);
    }

    // The layer's values of array input `in` named `name` as its estimates.
    template<typename ArrayInput>
    void estimate(ArrayInput &in, const std::string &name) const {
        const std::vector<int> *v = find(name);
        if (!v) return;
        for (std::size_t i = 0; i < v->size() && i < in.size(); i++) in.set_estimate(i, (*v)[i]);
    }

private:
    const std::vector<int> *find(const std::string &name) const {
        const auto it = values_.find(name);
        return it == values_.end() ? nullptr : &it->second;
    }
    [[noreturn]] static void malformed(const std::string &spec, const std::string &item) {
        throw Halide::CompileError("layer: malformed item \"" + item + "\" in \"" + spec +
                                   "\" (expected name:AxBx..., items separated by /)");
    }

    std::map<std::string, std::vector<int>> values_;
};

}  // namespace poolconv::generators
