#include "tune/layer_run.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "poolconv/kernel_override.h"
#include "reference/reference_convolution.h"
#include "reference/reference_pooling.h"
#include "runtime/kernel_table.h"
#include "tune/kernel_trampolines.h"

namespace poolconv::tune {

namespace {

int64_t count(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

void fill_random(const TensorView &t, std::mt19937 &rng) {
    const int64_t n = count(t.shape);
    std::vector<double> values(static_cast<std::size_t>(n));
    if (t.dtype == DType::i8 || t.dtype == DType::u8) {
        std::uniform_int_distribution<int> d(t.dtype == DType::i8 ? -128 : 0, t.dtype == DType::i8 ? 127 : 255);
        for (double &v : values) v = d(rng);
    } else {
        std::uniform_real_distribution<double> d(-1.0, 1.0);
        for (double &v : values) v = d(rng);
    }
    reference::store_all_from_double(t, values);
}

// Bound on |computed - reference| for a value `expected` of a sum of `terms` products of values
// in [-1, 1]: rounding of each partial sum in the arithmetic type, and of the result to the data type.
double tolerance(DType dtype, double expected, int64_t terms) {
    const double arithmetic_eps = dtype == DType::f64 ? 2.3e-16 : 1.2e-7;
    const double output_eps = dtype == DType::f16 ? 1e-3 : dtype == DType::bf16 ? 8e-3 : arithmetic_eps;
    return 4 * arithmetic_eps * static_cast<double>(terms) + 2 * output_eps * std::fabs(expected);
}

}  // namespace

OwnedTensor::OwnedTensor(DType dtype, const std::vector<int64_t> &shape)
    : bytes(static_cast<std::size_t>(count(shape)) * dtype_size(dtype)),
      view(TensorView::dense(dtype, shape, static_cast<void *>(nullptr))) {
    view.data = bytes.data();
}

LayerRun::LayerRun(const Layer &layer, uint32_t seed) : layer_(layer) {
    std::mt19937 rng(seed);
    input_ = std::make_unique<OwnedTensor>(layer.dtype, layer.input_shape);
    fill_random(input_->view, rng);
    output_ = std::make_unique<OwnedTensor>(layer.dtype, layer.output_shape);
    if (layer.op == LayerOp::maxpool && layer.indices) {
        indices_ = std::make_unique<OwnedTensor>(layer.index_type, layer.output_shape);
    }
    if (layer.op == LayerOp::conv) {
        weights_ = std::make_unique<OwnedTensor>(layer.dtype, layer.weights_shape);
        fill_random(weights_->view, rng);
        bias_ = std::make_unique<OwnedTensor>(layer.dtype, std::vector<int64_t>{layer.weights_shape[0]});
        fill_random(bias_->view, rng);
        conv_ = std::make_unique<PreparedConvolution>(weights_->view, &bias_->view, layer.conv);
    }
}

LayerRun::~LayerRun() = default;

void LayerRun::run() const {
    switch (layer_.op) {
    case LayerOp::maxpool:
        max_pool(input_->view, output_->view, layer_.max_pool, indices_ ? &indices_->view : nullptr);
        break;
    case LayerOp::avgpool: avg_pool(input_->view, output_->view, layer_.avg_pool); break;
    case LayerOp::conv: conv_->run(input_->view, output_->view); break;
    }
}

void LayerRun::poison_outputs() {
    const bool integer = layer_.dtype == DType::i8 || layer_.dtype == DType::u8;
    const double poison = integer ? reference::lowest_finite(layer_.dtype) : std::numeric_limits<double>::quiet_NaN();
    reference::store_all_from_double(output_->view, std::vector<double>(output_->bytes.size() / dtype_size(layer_.dtype), poison));
    if (indices_) std::memset(indices_->bytes.data(), 0xff, indices_->bytes.size());
}

std::string LayerRun::check_against_reference() const {
    OwnedTensor expected(layer_.dtype, layer_.output_shape);
    std::unique_ptr<OwnedTensor> expected_indices;
    if (indices_) expected_indices = std::make_unique<OwnedTensor>(layer_.index_type, layer_.output_shape);
    int64_t terms = 1;  // products per output value
    switch (layer_.op) {
    case LayerOp::maxpool:
        reference::max_pool(input_->view, expected.view, layer_.max_pool, expected_indices ? &expected_indices->view : nullptr);
        break;
    case LayerOp::avgpool:
        reference::avg_pool(input_->view, expected.view, layer_.avg_pool);
        terms = count(layer_.avg_pool.kernel);
        break;
    case LayerOp::conv:
        reference::convolution(input_->view, weights_->view, &bias_->view, expected.view, layer_.conv);
        terms = count(layer_.weights_shape) / layer_.weights_shape[0] + 1;
        break;
    }
    const std::vector<double> got = reference::load_all_as_double(output_->view);
    const std::vector<double> want = reference::load_all_as_double(expected.view);
    const bool exact = layer_.op == LayerOp::maxpool;
    int64_t wrong = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < want.size(); i++) {
        const bool same = got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]));
        if (same || (!exact && std::fabs(got[i] - want[i]) <= tolerance(layer_.dtype, want[i], terms))) continue;
        if (wrong++ == 0) first << "element " << i << ": " << got[i] << " instead of " << want[i];
    }
    if (indices_ && std::memcmp(indices_->bytes.data(), expected_indices->bytes.data(), indices_->bytes.size()) != 0) {
        return "argmax indices differ from the reference";
    }
    if (wrong == 0) return "";
    return std::to_string(wrong) + " of " + std::to_string(want.size()) + " values wrong (first: " + first.str() + ")";
}

KernelCall LayerRun::capture(Isa isa) const {
    KernelCall call;
    CapturedArguments captured;
    {
        const CaptureScope scope(captured);
        const ScopedKernelOverride any({nullptr, isa, forward_function(layer_kernel_kind(layer_))});
        run();
        call.kernel = ScopedKernelOverride::last_replaced();
    }
    call.arguments = captured.arguments;
    return call;
}

}  // namespace poolconv::tune
