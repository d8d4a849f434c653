// Reference MaxPool / AvgPool: one output element at a time, one window tap at a time.
#include "reference/reference_pooling.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

// GCC 12 reports a false -Wfree-nonheap-object when it inlines the std::vector destructors of
// max_pool below; the vectors are ordinary heap allocations.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif

namespace poolconv::reference {

// ---- Element types ----

namespace {

// A small binary floating-point format: `exp_bits` exponent bits, `man_bits` stored mantissa bits.
struct SmallFloat {
    int exp_bits;
    int man_bits;
    int bias() const { return (1 << (exp_bits - 1)) - 1; }
    uint32_t exp_all_ones() const { return (1u << exp_bits) - 1; }
};
constexpr SmallFloat kF16{5, 10};
constexpr SmallFloat kBF16{8, 7};

double decode(SmallFloat f, uint16_t bits) {
    const bool negative = (bits >> (f.exp_bits + f.man_bits)) & 1u;
    const uint32_t e = (static_cast<uint32_t>(bits) >> f.man_bits) & f.exp_all_ones();
    const uint32_t m = bits & ((1u << f.man_bits) - 1);
    double magnitude;
    if (e == f.exp_all_ones()) {
        magnitude = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    } else if (e == 0) {
        // Subnormal: m * 2^(1 - bias - man_bits).
        magnitude = std::ldexp(static_cast<double>(m), 1 - f.bias() - f.man_bits);
    } else {
        magnitude = std::ldexp(static_cast<double>(m | (1u << f.man_bits)), static_cast<int>(e) - f.bias() - f.man_bits);
    }
    return negative ? -magnitude : magnitude;
}

// Round to nearest, ties to even, straight from double (no intermediate float, so no double rounding).
uint16_t encode(SmallFloat f, double value) {
    const uint32_t sign = std::signbit(value) ? 1u << (f.exp_bits + f.man_bits) : 0u;
    const uint32_t inf = f.exp_all_ones() << f.man_bits;
    if (std::isnan(value)) return static_cast<uint16_t>(sign | inf | (1u << (f.man_bits - 1)));
    const double a = std::fabs(value);
    if (std::isinf(a)) return static_cast<uint16_t>(sign | inf);
    if (a == 0.0) return static_cast<uint16_t>(sign);

    int e2 = 0;
    std::frexp(a, &e2);  // a = fraction * 2^e2 with fraction in [0.5, 1): a = 1.xxx * 2^(e2 - 1)
    int exponent = e2 - 1;
    const int min_exponent = 1 - f.bias();
    if (exponent < min_exponent) exponent = min_exponent;  // subnormal range: fixed quantum
    // The value in units of the last mantissa bit at this exponent; scaling by a power of two is exact.
    const double units = std::ldexp(a, f.man_bits - exponent);
    // Ties to even by hand (independent of the FPU rounding mode).
    double whole = std::floor(units);
    const double rest = units - whole;
    if (rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2.0) != 0.0)) whole += 1.0;
    uint64_t m = static_cast<uint64_t>(whole);  // <= 2^(man_bits + 1)
    if (m >= (uint64_t(1) << (f.man_bits + 1))) {  // rounded up to the next binade
        m >>= 1;
        exponent += 1;
    }
    uint32_t biased = 0;  // subnormal (or zero) unless the implicit bit is set
    if (m >= (uint64_t(1) << f.man_bits)) biased = static_cast<uint32_t>(exponent + f.bias());
    if (biased >= f.exp_all_ones()) return static_cast<uint16_t>(sign | inf);
    const uint32_t mantissa = static_cast<uint32_t>(m & ((uint64_t(1) << f.man_bits) - 1));
    return static_cast<uint16_t>(sign | (biased << f.man_bits) | mantissa);
}

template<typename T>
T load_raw(const void *p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template<typename T>
void store_raw(void *p, T v) {
    std::memcpy(p, &v, sizeof(T));
}

template<typename T>
T saturate_round(double v) {
    if (std::isnan(v)) return T(0);
    // Nearest, ties to even, regardless of the FPU rounding mode.
    const double fl = std::floor(v);
    const double diff = v - fl;
    double r = diff > 0.5 ? fl + 1 : diff < 0.5 ? fl : (std::fmod(fl, 2.0) == 0.0 ? fl : fl + 1);
    const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());  // may round up (i64)
    if (r <= lo) return std::numeric_limits<T>::lowest();
    if (r >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
}

}  // namespace

double f16_to_double(uint16_t bits) { return decode(kF16, bits); }
double bf16_to_double(uint16_t bits) { return decode(kBF16, bits); }
uint16_t double_to_f16(double value) { return encode(kF16, value); }
uint16_t double_to_bf16(double value) { return encode(kBF16, value); }

double load_as_double(DType dtype, const void *p) {
    switch (dtype) {
    case DType::f32: return static_cast<double>(load_raw<float>(p));
    case DType::f16: return f16_to_double(load_raw<uint16_t>(p));
    case DType::bf16: return bf16_to_double(load_raw<uint16_t>(p));
    case DType::f64: return load_raw<double>(p);
    case DType::i8: return static_cast<double>(load_raw<int8_t>(p));
    case DType::u8: return static_cast<double>(load_raw<uint8_t>(p));
    case DType::i32: return static_cast<double>(load_raw<int32_t>(p));
    case DType::i64: return static_cast<double>(load_raw<int64_t>(p));
    }
    throw Error("reference: unknown dtype");
}

void store_from_double(DType dtype, void *p, double value) {
    switch (dtype) {
    case DType::f32: store_raw(p, static_cast<float>(value)); return;  // IEEE conversion: nearest even
    case DType::f16: store_raw(p, double_to_f16(value)); return;
    case DType::bf16: store_raw(p, double_to_bf16(value)); return;
    case DType::f64: store_raw(p, value); return;
    case DType::i8: store_raw(p, saturate_round<int8_t>(value)); return;
    case DType::u8: store_raw(p, saturate_round<uint8_t>(value)); return;
    case DType::i32: store_raw(p, saturate_round<int32_t>(value)); return;
    case DType::i64: store_raw(p, saturate_round<int64_t>(value)); return;
    }
    throw Error("reference: unknown dtype");
}

double lowest_finite(DType dtype) {
    switch (dtype) {
    case DType::f32: return static_cast<double>(std::numeric_limits<float>::lowest());
    case DType::f16: return -65504.0;                   // -(2 - 2^-10) * 2^15
    case DType::bf16: return -3.3895313892515355e38;    // -(2 - 2^-7) * 2^127
    case DType::f64: return std::numeric_limits<double>::lowest();
    case DType::i8: return -128.0;
    case DType::u8: return 0.0;
    case DType::i32: return static_cast<double>(std::numeric_limits<int32_t>::lowest());
    case DType::i64: return static_cast<double>(std::numeric_limits<int64_t>::lowest());
    }
    throw Error("reference: unknown dtype");
}

// ---- Pooling ----

namespace {

bool pooled_type(DType t) {
    return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64 || t == DType::i8 ||
           t == DType::u8;
}

// A tensor view resolved for element access: byte address of an element from its coordinates.
struct Accessor {
    DType dtype;
    std::vector<int64_t> strides;
    uint8_t *base;
    std::size_t elem;

    Accessor(const char *op, const char *what, const TensorView &t) : dtype(t.dtype), base(static_cast<uint8_t *>(t.data)) {
        elem = dtype_size(t.dtype);
        strides = t.effective_strides();
        if (strides.size() != t.shape.size()) {
            throw Error(std::string(op) + ": " + what + " strides do not match its rank");
        }
        for (int64_t s : strides) {
            if (s < 1) throw Error(std::string(op) + ": " + what + " has a stride < 1");
        }
        if (t.element_count() > 0 && base == nullptr) throw Error(std::string(op) + ": " + what + " has null data");
    }

    void *at(const std::vector<int64_t> &coords) const {
        int64_t offset = 0;
        for (std::size_t d = 0; d < coords.size(); d++) offset += coords[d] * strides[d];
        return base + offset * static_cast<int64_t>(elem);
    }
    double load(const std::vector<int64_t> &coords) const { return load_as_double(dtype, at(coords)); }
    void store(const std::vector<int64_t> &coords, double v) const { store_from_double(dtype, at(coords), v); }
};

// Steps `coords` (each in [0, extent)) to the next position in row-major order; false after the last.
bool next_position(std::vector<int64_t> &coords, const std::vector<int64_t> &extents) {
    for (std::size_t d = coords.size(); d-- > 0;) {
        if (++coords[d] < extents[d]) return true;
        coords[d] = 0;
    }
    return false;
}

}  // namespace

std::vector<double> load_all_as_double(const TensorView &t) {
    const Accessor access("reference", "tensor", t);
    std::vector<double> values;
    values.reserve(static_cast<std::size_t>(t.element_count()));
    std::vector<int64_t> coords(t.shape.size(), 0);
    if (t.element_count() > 0) {
        do {
            values.push_back(access.load(coords));
        } while (next_position(coords, t.shape));
    }
    return values;
}

void store_all_from_double(const TensorView &t, const std::vector<double> &values) {
    const Accessor access("reference", "tensor", t);
    if (values.size() != static_cast<std::size_t>(t.element_count())) {
        throw Error("reference: " + std::to_string(values.size()) + " values for a tensor of " +
                    std::to_string(t.element_count()) + " elements");
    }
    std::vector<int64_t> coords(t.shape.size(), 0);
    for (double v : values) {
        access.store(coords, v);
        next_position(coords, t.shape);
    }
}

namespace {

// The geometry the loops need, with default attributes filled in.
struct Window {
    PoolGeometry geometry;
    std::vector<int64_t> kernel, strides, dilations;
    std::size_t spatial = 0;
};

Window resolve(const char *op, const TensorView &input, const TensorView &output, const PoolAttributes &a) {
    if (!pooled_type(input.dtype)) {
        throw Error(std::string(op) + ": reference input dtype " + dtype_name(input.dtype) + " is not supported");
    }
    Window w;
    w.geometry = infer_pool_shape(input.shape, a);  // throws for bad attributes / ranks
    w.spatial = input.shape.size() - 2;
    w.kernel = a.kernel;
    w.strides = a.strides.empty() ? std::vector<int64_t>(w.spatial, 1) : a.strides;
    w.dilations = a.dilations.empty() ? std::vector<int64_t>(w.spatial, 1) : a.dilations;
    if (output.dtype != input.dtype) {
        throw Error(std::string(op) + ": reference output dtype " + dtype_name(output.dtype) + " differs from input " +
                    dtype_name(input.dtype));
    }
    if (output.shape != w.geometry.output_shape) {
        throw Error(std::string(op) + ": reference output shape " + shape_to_string(output.shape) + ", expected " +
                    shape_to_string(w.geometry.output_shape));
    }
    return w;
}

}  // namespace

void max_pool(const TensorView &input, const TensorView &output, const MaxPoolAttributes &attributes,
              const TensorView *indices) {
    const char *op = "reference max_pool";
    const Window w = resolve(op, input, output, attributes);
    const int rank = input.rank();
    const std::size_t spatial = w.spatial;

    // Index convention: the element's position in the flattened input (row-major over N, C and
    // the spatial dims, or with the spatial part column-major for ONNX storage_order = 1), taken
    // modulo the number of elements of the dimensions from `axis` on: the position within one
    // sub-tensor starting at dimension `axis` (OpenVINO MaxPool-8).
    int64_t axis = attributes.axis < 0 ? attributes.axis + rank : attributes.axis;
    if (indices) {
        if (indices->dtype != DType::i64 && indices->dtype != DType::i32) {
            throw Error(std::string(op) + ": indices dtype must be i64 or i32");
        }
        if (indices->shape != w.geometry.output_shape) throw Error(std::string(op) + ": indices shape mismatch");
        if (axis < 0 || axis >= rank) throw Error(std::string(op) + ": axis out of range");
        if (attributes.storage_order == StorageOrder::column_major && axis > 2) {
            throw Error(std::string(op) + ": column_major needs axis <= 2");
        }
    }
    int64_t modulus = 1;
    for (int d = static_cast<int>(axis); d < rank; d++) modulus *= input.shape[d];
    const bool column_major = attributes.storage_order == StorageOrder::column_major;
    auto flat_position = [&](int64_t n, int64_t c, const std::vector<int64_t> &pos) {
        int64_t spatial_offset = 0;
        if (column_major) {
            // First spatial dim fastest: 2D h + w*H, 3D d + h*D + w*D*H.
            for (std::size_t i = spatial; i-- > 0;) spatial_offset = spatial_offset * input.shape[i + 2] + pos[i];
        } else {
            for (std::size_t i = 0; i < spatial; i++) spatial_offset = spatial_offset * input.shape[i + 2] + pos[i];
        }
        int64_t plane_size = 1;
        for (std::size_t i = 0; i < spatial; i++) plane_size *= input.shape[i + 2];
        const int64_t flat = (n * input.shape[1] + c) * plane_size + spatial_offset;
        return flat % modulus;
    };

    const Accessor in(op, "input", input), out(op, "output", output);
    Accessor idx = indices ? Accessor(op, "indices", *indices) : Accessor(op, "output", output);
    const std::vector<int64_t> &oshape = w.geometry.output_shape;
    for (int64_t d : oshape) {
        if (d == 0) return;
    }

    std::vector<int64_t> ocoord(oshape.size(), 0);  // n, c, spatial output position
    std::vector<int64_t> icoord(oshape.size(), 0);
    std::vector<int64_t> tap(spatial, 0), pos(spatial, 0), zeros(spatial, 0);
    do {
        const int64_t n = ocoord[0], c = ocoord[1];
        icoord[0] = n;
        icoord[1] = c;
        bool found = false;
        double best = 0;
        int64_t best_index = 0;
        std::fill(tap.begin(), tap.end(), 0);
        do {  // taps in scan order: outer spatial dim first
            bool inside = true;
            for (std::size_t i = 0; i < spatial; i++) {
                pos[i] = ocoord[i + 2] * w.strides[i] - w.geometry.pads_begin[i] + tap[i] * w.dilations[i];
                inside = inside && pos[i] >= 0 && pos[i] < input.shape[i + 2];
            }
            if (!inside) continue;  // padding never wins
            for (std::size_t i = 0; i < spatial; i++) icoord[i + 2] = pos[i];
            const double v = in.load(icoord);
            bool take;
            if (!found) {
                take = true;
            } else if (std::isnan(best)) {
                take = false;  // the first NaN stays
            } else {
                take = std::isnan(v) || v > best;  // strict: among equals the first stays
            }
            if (take) {
                found = true;
                best = v;
                best_index = flat_position(n, c, pos);
            }
        } while (next_position(tap, w.kernel));
        if (!found) {  // only padding in the window
            best = lowest_finite(input.dtype);
            best_index = flat_position(n, c, zeros);
        }
        out.store(ocoord, best);
        if (indices) idx.store(ocoord, static_cast<double>(best_index));
    } while (next_position(ocoord, oshape));
}

void avg_pool(const TensorView &input, const TensorView &output, const AvgPoolAttributes &attributes) {
    const char *op = "reference avg_pool";
    const Window w = resolve(op, input, output, attributes);
    const std::size_t spatial = w.spatial;
    const PoolGeometry &g = w.geometry;

    bool any_pad = false;
    for (std::size_t i = 0; i < spatial; i++) any_pad = any_pad || g.pads_begin[i] != 0 || g.pads_end[i] != 0;
    int64_t kernel_volume = 1;
    for (int64_t k : w.kernel) kernel_volume *= k;

    const Accessor in(op, "input", input), out(op, "output", output);
    const std::vector<int64_t> &oshape = g.output_shape;
    for (int64_t d : oshape) {
        if (d == 0) return;
    }
    std::vector<int64_t> ocoord(oshape.size(), 0), icoord(oshape.size(), 0);
    std::vector<int64_t> tap(spatial, 0), pos(spatial, 0);
    do {
        icoord[0] = ocoord[0];
        icoord[1] = ocoord[1];
        double sum = 0;
        int64_t inside_count = 0;  // window elements inside the input
        int64_t padded_count = 0;  // window positions inside [-pad_begin, extent + pad_end)
        std::fill(tap.begin(), tap.end(), 0);
        do {
            bool inside = true, in_padded = true;
            for (std::size_t i = 0; i < spatial; i++) {
                pos[i] = ocoord[i + 2] * w.strides[i] - g.pads_begin[i] + tap[i] * w.dilations[i];
                inside = inside && pos[i] >= 0 && pos[i] < input.shape[i + 2];
                in_padded = in_padded && pos[i] >= -g.pads_begin[i] && pos[i] < input.shape[i + 2] + g.pads_end[i];
            }
            if (in_padded) padded_count++;
            if (!inside) continue;
            for (std::size_t i = 0; i < spatial; i++) icoord[i + 2] = pos[i];
            sum += in.load(icoord);
            inside_count++;
        } while (next_position(tap, w.kernel));

        int64_t divisor = inside_count;
        switch (attributes.pad_mode) {
        case AvgPadMode::exclude_pad: divisor = inside_count; break;
        case AvgPadMode::include_pad: divisor = padded_count; break;
        case AvgPadMode::include_pad_openvino: divisor = any_pad ? kernel_volume : inside_count; break;
        }
        const double average = divisor > 0 ? sum / static_cast<double>(divisor) : 0.0;
        out.store(ocoord, average);
    } while (next_position(ocoord, oshape));
}

}  // namespace poolconv::reference
