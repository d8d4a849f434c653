// Parity with PyTorch: the cases in tests/data/torch (written by tools/make_torch_parity.py, see
// its header to regenerate) through poolconv, for every instruction set, and through the reference.
//
// Mapping: ceil_mode=1 -> Rounding::ceil_torch (0 -> floor); symmetric `padding` -> explicit pads;
// count_include_pad=1 -> AvgPadMode::include_pad (0 -> exclude_pad); PyTorch's indices count
// positions within each (n, c) plane -> axis = 2.
// Tolerances: max_pool values and indices exact (ties resolve to the first element in scan order in
// both; the data has many ties and no NaN). avg_pool: 1e-5 relative + 1e-6 * max|input|: PyTorch and
// poolconv both sum in f32 but in different orders.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/npy.h"
#include "reference/reference_convolution.h"
#include "tests/test_util.h"

namespace poolconv {
namespace {

using test::Tensor;
using Shape = std::vector<int64_t>;

const std::string kDataDir = std::string(POOLCONV_TEST_DATA_DIR) + "/torch";

struct TorchCase {
    std::string name;
    std::map<std::string, std::string> fields;

    const std::string &field(const std::string &key) const {
        auto it = fields.find(key);
        if (it == fields.end()) throw std::runtime_error("case " + name + " has no field " + key);
        return it->second;
    }
    bool has(const std::string &key) const { return fields.count(key) != 0; }
    Shape list(const std::string &key) const {
        Shape values;
        std::stringstream s(field(key));
        std::string item;
        while (std::getline(s, item, ',')) values.push_back(std::stoll(item));
        return values;
    }
    bool max() const { return field("op") == "max_pool"; }
    bool conv() const { return field("op") == "conv"; }
};

std::vector<TorchCase> read_manifest() {
    std::vector<TorchCase> cases;
    std::ifstream f(kDataDir + "/manifest.txt");
    if (!f) return cases;
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream s(line);
        TorchCase c;
        s >> c.name;
        std::string kv;
        while (s >> kv) {
            const auto eq = kv.find('=');
            if (eq == std::string::npos) throw std::runtime_error("bad manifest field '" + kv + "' in " + c.name);
            c.fields[kv.substr(0, eq)] = kv.substr(eq + 1);
        }
        cases.push_back(c);
    }
    return cases;
}

const std::vector<TorchCase> &manifest() {
    static const std::vector<TorchCase> cases = read_manifest();
    return cases;
}

// The contents of a loaded array, as a test tensor of the same type and shape.
Tensor to_tensor(const npy::Array &a) {
    Tensor t = Tensor::dense(a.dtype, a.shape);
    std::memcpy(t.data(), a.bytes.data(), a.bytes.size());
    return t;
}

void fill_common(const TorchCase &c, PoolAttributes &a) {
    a.kernel = c.list("kernel");
    a.strides = c.list("stride");
    a.pads_begin = c.list("padding");
    a.pads_end = c.list("padding");
    a.dilations = c.list("dilation");
    a.auto_pad = AutoPad::explicit_pads;
    a.rounding = c.field("ceil_mode") == "1" ? Rounding::ceil_torch : Rounding::floor;
}

// A convolution case: torch.nn.functional.conv1d/2d/3d with symmetric padding, groups, bias or none.
// Tolerance: PyTorch and poolconv both sum in f32 (f64 for the f64 cases; in different orders); each
// sum has at most C_in/G * kernel volume terms of inputs and weights drawn from N(0, 1).
void check_conv_case(const TorchCase &c, bool use_reference) {
    SCOPED_TRACE((use_reference ? "reference " : "poolconv ") + c.name);
    const Tensor input = to_tensor(npy::load(kDataDir + "/" + c.field("input")));
    const Tensor weights = to_tensor(npy::load(kDataDir + "/" + c.field("weights")));
    const Tensor want = to_tensor(npy::load(kDataDir + "/" + c.field("output")));
    Tensor bias;
    if (c.has("bias")) bias = to_tensor(npy::load(kDataDir + "/" + c.field("bias")));
    ConvAttributes a;
    a.strides = c.list("stride");
    a.dilations = c.list("dilation");
    a.pads_begin = c.list("padding");
    a.pads_end = c.list("padding");
    a.group = std::stoll(c.field("groups"));
    ASSERT_EQ(infer_conv_shape(input.shape(), weights.shape(), a).output_shape, want.shape());
    ASSERT_EQ(input.dtype(), want.dtype());
    const bool f64 = input.dtype() == DType::f64;
    Tensor got = Tensor::dense(input.dtype(), want.shape());
    const TensorView bias_view = bias.view();
    const TensorView *b = c.has("bias") ? &bias_view : nullptr;
    if (use_reference) {
        ASSERT_NO_THROW(reference::convolution(input.view(), weights.view(), b, got.view(), a));
    } else {
        ASSERT_NO_THROW(convolution(input.view(), weights.view(), b, got.view(), a));
    }
    const double terms = static_cast<double>(weights.element_count() / weights.shape()[0]);
    test::CompareOptions o;
    o.rel_tol = f64 ? 1e-13 : 1e-5;
    o.abs_tol = (f64 ? 1e-14 : 1e-6) * terms * 16;  // |x|, |w| below 4 in practice
    EXPECT_TRUE(test::tensors_match(got, want, o));
}

// Runs case `c` through poolconv (use_reference false) or the reference and compares with PyTorch.
void check_case(const TorchCase &c, bool use_reference) {
    if (c.conv()) return check_conv_case(c, use_reference);
    SCOPED_TRACE((use_reference ? "reference " : "poolconv ") + c.name);
    const Tensor input = to_tensor(npy::load(kDataDir + "/" + c.field("input")));
    const Tensor want = to_tensor(npy::load(kDataDir + "/" + c.field("output")));
    // f32 cases, and f64 average pooling (PyTorch sums in double there).
    ASSERT_EQ(input.dtype(), want.dtype());
    ASSERT_TRUE(input.dtype() == DType::f32 || (input.dtype() == DType::f64 && !c.max()));
    Tensor got = Tensor::dense(input.dtype(), want.shape());
    if (c.max()) {
        MaxPoolAttributes a;
        fill_common(c, a);
        a.axis = 2;  // PyTorch: position within the (n, c) plane
        SCOPED_TRACE(test::describe(a));
        ASSERT_EQ(infer_pool_shape(input.shape(), a).output_shape, want.shape());
        const Tensor want_idx = to_tensor(npy::load(kDataDir + "/" + c.field("indices")));
        ASSERT_EQ(want_idx.dtype(), DType::i64);
        Tensor idx = Tensor::dense(DType::i64, want.shape());
        TensorView iv = idx.view();
        if (use_reference) {
            ASSERT_NO_THROW(reference::max_pool(input.view(), got.view(), a, &iv));
        } else {
            ASSERT_NO_THROW(max_pool(input.view(), got.view(), a, &iv));
        }
        EXPECT_TRUE(test::tensors_match(got, want));
        EXPECT_TRUE(test::tensors_match(idx, want_idx, {}, "indices"));
        // Values only (a different kernel).
        if (!use_reference) {
            Tensor values_only = Tensor::dense(DType::f32, want.shape());
            ASSERT_NO_THROW(max_pool(input.view(), values_only.view(), a));
            EXPECT_TRUE(test::tensors_match(values_only, want));
        }
    } else {
        AvgPoolAttributes a;
        fill_common(c, a);
        a.pad_mode = c.field("count_include_pad") == "1" ? AvgPadMode::include_pad : AvgPadMode::exclude_pad;
        SCOPED_TRACE(test::describe(a));
        ASSERT_EQ(infer_pool_shape(input.shape(), a).output_shape, want.shape());
        if (use_reference) {
            ASSERT_NO_THROW(reference::avg_pool(input.view(), got.view(), a));
        } else {
            ASSERT_NO_THROW(avg_pool(input.view(), got.view(), a));
        }
        double max_abs = 0;
        for (int64_t i = 0; i < input.element_count(); i++) max_abs = std::max(max_abs, std::fabs(input.get(i)));
        test::CompareOptions o;
        o.rel_tol = input.dtype() == DType::f64 ? 1e-13 : 1e-5;
        o.abs_tol = (input.dtype() == DType::f64 ? 1e-14 : 1e-6) * max_abs;
        EXPECT_TRUE(test::tensors_match(got, want, o));
    }
}

TEST(TorchParityData, ManifestIsComplete) {
    ASSERT_GE(manifest().size(), 40u) << "missing or short " << kDataDir << "/manifest.txt";
    int max_cases = 0, avg_cases = 0, ceil_cases = 0, include_pad = 0, conv_cases = 0, grouped = 0;
    int f64_avg_cases = 0, f64_conv_cases = 0;
    for (const TorchCase &c : manifest()) {
        const bool f64 = c.name.find("_f64_") != std::string::npos;
        (c.conv() ? f64_conv_cases : f64_avg_cases) += f64;
        if (c.conv()) {
            conv_cases++;
            grouped += c.field("groups") != "1";
            continue;
        }
        (c.max() ? max_cases : avg_cases)++;
        ceil_cases += c.field("ceil_mode") == "1";
        include_pad += c.has("count_include_pad") && c.field("count_include_pad") == "1";
        EXPECT_EQ(c.has("indices"), c.max()) << c.name;
    }
    EXPECT_GT(max_cases, 10);
    EXPECT_GT(avg_cases, 10);
    EXPECT_GT(ceil_cases, 5);
    EXPECT_GT(include_pad, 3);
    EXPECT_GE(conv_cases, 20);
    EXPECT_GE(grouped, 5);
    EXPECT_GE(f64_avg_cases, 9);
    EXPECT_GE(f64_conv_cases, 9);
}

using TorchParity = test::IsaTest;

TEST_P(TorchParity, Poolconv) {
    ASSERT_FALSE(manifest().empty());
    for (const TorchCase &c : manifest()) check_case(c, false);
}

INSTANTIATE_TEST_SUITE_P(Isa, TorchParity, ::testing::ValuesIn(test::all_isas()), test::isa_param_name);

TEST(TorchParityReference, Reference) {
    ASSERT_FALSE(manifest().empty());
    for (const TorchCase &c : manifest()) check_case(c, true);
}

}  // namespace
}  // namespace poolconv
