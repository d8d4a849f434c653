// poolconv-tune's inputs: layer files (defaults as the CLI's, every mistake named by layer and
// field) and ONNX models (nodes and inferred shapes).
#include <gtest/gtest.h>

#include <fstream>

#include <onnx/onnx_pb.h>

#include "test_util.h"
#include "tune/layer_file.h"

namespace poolconv::tune {
namespace {

using test::expect_error;

TEST(TuneLayerFile, FieldsAndDefaults) {
    const std::vector<Layer> layers = parse_layers(R"([
        {"name": "c", "op": "conv", "input_shape": [1, 8, 10, 10], "weights_shape": [8, 2, 3, 3], "group": 4,
         "auto_pad": "same_upper", "strides": [2, 2], "activation": "relu6", "dtype": "f16"},
        {"name": "m", "op": "maxpool", "input_shape": [1, 3, 9], "kernel": [2], "indices": "i32", "rounding": "ceil"},
        {"name": "a", "op": "avgpool", "input_shape": [1, 3, 5, 5, 5], "kernel": [2, 2, 2]}])",
                                                   "test.json");
    ASSERT_EQ(layers.size(), 3u);
    EXPECT_EQ(layers[0].op, LayerOp::conv);
    EXPECT_EQ(layers[0].dtype, DType::f16);
    EXPECT_EQ(layers[0].conv.group, 4);
    EXPECT_EQ(layers[0].conv.auto_pad, AutoPad::same_upper);
    EXPECT_EQ(layers[0].conv.activation, Activation::relu6);
    EXPECT_EQ(layers[0].output_shape, (std::vector<int64_t>{1, 8, 5, 5}));
    EXPECT_TRUE(layers[1].indices);
    EXPECT_EQ(layers[1].index_type, DType::i32);
    EXPECT_EQ(layers[1].max_pool.rounding, Rounding::ceil);
    EXPECT_EQ(layers[1].output_shape, (std::vector<int64_t>{1, 3, 8}));
    EXPECT_EQ(layers[2].dtype, DType::f32);                                   // default
    EXPECT_EQ(layers[2].avg_pool.pad_mode, AvgPadMode::exclude_pad);          // default
    EXPECT_EQ(layers[2].output_shape, (std::vector<int64_t>{1, 3, 4, 4, 4}));  // floor, no padding
    EXPECT_FALSE(parse_layers(R"([{"name": "m", "op": "maxpool", "input_shape": [1, 1, 4], "kernel": [2]}])", "t")[0].indices);
}

TEST(TuneLayerFile, MistakesNameTheLayerAndField) {
    auto parse = [](const std::string &text) { return [text] { parse_layers(text, "model.json"); }; };
    expect_error(parse("[{"), {"model.json", "not valid JSON"});
    expect_error(parse("{}"), {"model.json", "non-empty JSON array"});
    expect_error(parse("[]"), {"model.json", "non-empty JSON array"});
    expect_error(parse(R"([{"op": "conv"}])"), {"layer 0", "\"name\" is missing"});
    expect_error(parse(R"([{"name": "bad name", "op": "conv"}])"), {"layer 0", "\"name\"", "C identifier"});
    expect_error(parse(R"([{"name": "x", "op": "relu"}])"), {"layer 0 (x)", "\"op\"", "\"relu\" is not one of"});
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "input_shape": [1, 1, 4], "kernel": [2], "groups": 2}])"),
                 {"layer 0 (x)", "\"groups\"", "not a field of maxpool layers"});
    expect_error(parse(R"([{"name": "x", "op": "avgpool", "input_shape": [1, 1, 4], "kernel": [2], "indices": "i64"}])"),
                 {"layer 0 (x)", "\"indices\"", "not a field of avgpool layers"});
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "kernel": [2]}])"), {"layer 0 (x)", "\"input_shape\" is missing"});
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "input_shape": [1, 1, 4]}])"), {"layer 0 (x)", "\"kernel\" is missing"});
    expect_error(parse(R"([{"name": "x", "op": "conv", "input_shape": [1, 1, 4]}])"), {"layer 0 (x)", "\"weights_shape\" is missing"});
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "input_shape": [1, 1, "4"], "kernel": [2]}])"),
                 {"layer 0 (x)", "\"input_shape\"", "list of integers"});
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "input_shape": [1, 1, 4], "kernel": [0]}])"),
                 {"layer 0 (x)", "\"kernel\"", ">= 1"});
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "input_shape": [1, 1, 4], "kernel": [2], "pads_begin": [-1]}])"),
                 {"layer 0 (x)", "\"pads_begin\"", ">= 0"});
    expect_error(parse(R"([{"name": "x", "op": "conv", "input_shape": [1, 1, 4], "weights_shape": [1, 1, 2], "group": 0}])"),
                 {"layer 0 (x)", "\"group\"", ">= 1"});
    expect_error(parse(R"([{"name": "x", "op": "conv", "input_shape": [1, 1, 4], "weights_shape": [1, 1, 2], "activation": "gelu"}])"),
                 {"layer 0 (x)", "\"activation\""});
    expect_error(parse(R"([{"name": "x", "op": "conv", "input_shape": [1, 1, 4], "weights_shape": [1, 1, 2], "dtype": "i8"}])"),
                 {"layer 0 (x)", "\"dtype\"", "\"i8\" is not one of"});
    expect_error(parse(R"([{"name": "x", "op": "avgpool", "input_shape": [1, 1, 4], "kernel": [2], "exclude_pad": 1}])"),
                 {"layer 0 (x)", "\"exclude_pad\"", "true or false"});
    // What shape inference refuses, with its own words.
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "input_shape": [1, 1, 4], "kernel": [5]}])"), {"layer 0 (x)", "output size"});
    expect_error(parse(R"([{"name": "x", "op": "conv", "input_shape": [1, 3, 4, 4], "weights_shape": [8, 2, 3, 3]}])"),
                 {"layer 0 (x)", "channels"});
    expect_error(parse(R"([{"name": "x", "op": "maxpool", "input_shape": [1, 1, 4], "kernel": [2]},
                           {"name": "x", "op": "maxpool", "input_shape": [1, 1, 4], "kernel": [2]}])"),
                 {"layer 1 (x)", "another layer has this name"});
}

TEST(TuneLayerFile, MissingFile) {
    expect_error([] { read_layer_file("/nonexistent/layers.json"); }, {"/nonexistent/layers.json", "cannot open"});
}

}  // namespace
}  // namespace poolconv::tune

// ---- ONNX models (--onnx) ----

namespace poolconv::tune {
namespace {

onnx::ValueInfoProto tensor_info(const std::string &name, const std::vector<int64_t> &dims, bool symbolic_batch = false) {
    onnx::ValueInfoProto v;
    v.set_name(name);
    auto *t = v.mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (std::size_t i = 0; i < dims.size(); i++) {
        auto *d = t->mutable_shape()->add_dim();
        if (i == 0 && symbolic_batch) {
            d->set_dim_param("N");
        } else {
            d->set_dim_value(dims[i]);
        }
    }
    return v;
}

onnx::NodeProto *add_node(onnx::GraphProto &g, const std::string &op, const std::vector<std::string> &inputs,
                          const std::vector<std::string> &outputs, const std::string &name = "") {
    onnx::NodeProto *n = g.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto &i : inputs) n->add_input(i);
    for (const auto &o : outputs) n->add_output(o);
    return n;
}

void set_ints(onnx::NodeProto *n, const std::string &name, const std::vector<int64_t> &values) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
}

void set_int(onnx::NodeProto *n, const std::string &name, int64_t value) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
}

// Conv (stride 2, pads 1) -> Relu -> MaxPool (3x3/2, ceil_mode, indices) -> AveragePool (2x2,
// count_include_pad, end pads 1) -> GlobalAveragePool; every shape after the input inferred by ONNX.
std::string write_model(const std::string &file, bool symbolic_batch) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    auto *opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    onnx::GraphProto &g = *model.mutable_graph();
    g.set_name("test");
    *g.add_input() = tensor_info("X", {1, 3, 32, 32}, symbolic_batch);
    *g.add_input() = tensor_info("W", {8, 3, 3, 3});
    onnx::NodeProto *conv = add_node(g, "Conv", {"X", "W"}, {"C"}, "stem/conv");
    set_ints(conv, "strides", {2, 2});
    set_ints(conv, "pads", {1, 1, 1, 1});
    set_ints(conv, "kernel_shape", {3, 3});
    add_node(g, "Relu", {"C"}, {"R"});
    onnx::NodeProto *max = add_node(g, "MaxPool", {"R"}, {"M", "Mi"});
    set_ints(max, "kernel_shape", {3, 3});
    set_ints(max, "strides", {2, 2});
    set_int(max, "ceil_mode", 1);
    onnx::NodeProto *avg = add_node(g, "AveragePool", {"M"}, {"A"}, "avg");
    set_ints(avg, "kernel_shape", {2, 2});
    set_ints(avg, "pads", {0, 0, 1, 1});
    set_int(avg, "count_include_pad", 1);
    add_node(g, "GlobalAveragePool", {"A"}, {"G"}, "head");
    onnx::ValueInfoProto out;
    out.set_name("G");
    out.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    *g.add_output() = out;
    const std::string path = ::testing::TempDir() + file;
    std::ofstream f(path, std::ios::binary);
    model.SerializeToOstream(&f);
    return path;
}

TEST(TuneOnnxModel, NodesBecomeLayersWithInferredShapes) {
    const std::vector<Layer> layers = read_onnx_model(write_model("model.onnx", false));
    ASSERT_EQ(layers.size(), 4u);  // the Relu is not ours
    EXPECT_EQ(layers[0].name, "stem_conv");
    EXPECT_EQ(layers[0].op, LayerOp::conv);
    EXPECT_EQ(layers[0].weights_shape, (std::vector<int64_t>{8, 3, 3, 3}));
    EXPECT_EQ(layers[0].conv.strides, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(layers[0].conv.pads_end, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(layers[0].output_shape, (std::vector<int64_t>{1, 8, 16, 16}));
    EXPECT_EQ(layers[1].name, "MaxPool_2");  // unnamed node: op and index
    EXPECT_EQ(layers[1].input_shape, (std::vector<int64_t>{1, 8, 16, 16}));
    EXPECT_EQ(layers[1].max_pool.rounding, Rounding::ceil_torch);
    EXPECT_TRUE(layers[1].indices);
    EXPECT_EQ(layers[1].output_shape, (std::vector<int64_t>{1, 8, 8, 8}));
    EXPECT_EQ(layers[2].avg_pool.pad_mode, AvgPadMode::include_pad);
    EXPECT_EQ(layers[2].avg_pool.pads_begin, (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(layers[2].avg_pool.pads_end, (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(layers[2].output_shape, (std::vector<int64_t>{1, 8, 8, 8}));
    EXPECT_EQ(layers[3].op, LayerOp::avgpool);
    EXPECT_EQ(layers[3].avg_pool.kernel, (std::vector<int64_t>{8, 8}));
    EXPECT_EQ(layers[3].output_shape, (std::vector<int64_t>{1, 8, 1, 1}));
}

TEST(TuneOnnxModel, ModelsItCannotTakeAreNamed) {
    const std::string symbolic = write_model("symbolic.onnx", true);
    expect_error([&] { read_onnx_model(symbolic); }, {"symbolic.onnx", "Conv stem/conv", "symbolic dimensions"});
    const std::string garbage = ::testing::TempDir() + "garbage.onnx";
    std::ofstream(garbage) << "this is not a model\n";
    expect_error([&] { read_onnx_model(garbage); }, {"garbage.onnx", "not an ONNX model"});
    expect_error([] { read_onnx_model("/nonexistent/model.onnx"); }, {"/nonexistent/model.onnx", "cannot open"});
}

}  // namespace
}  // namespace poolconv::tune
