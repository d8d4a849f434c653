// poolconv-tune's layer files: defaults as the CLI's, and every mistake named by layer and field.
#include <gtest/gtest.h>

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
