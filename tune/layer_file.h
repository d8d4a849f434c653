// poolconv-tune's input: the layers of a model, each an operator of the poolconv API on one shape.
// A layer file is a JSON array of objects (README, "Tuning a model"):
//   {"name": "conv1", "op": "conv", "input_shape": [1, 3, 224, 224], "weights_shape": [64, 3, 7, 7],
//    "strides": [2, 2], "pads_begin": [3, 3], "pads_end": [3, 3], "activation": "relu"}
// with the CLI's meanings and defaults for every optional field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "poolconv/poolconv.h"

namespace poolconv::tune {

enum class LayerOp { maxpool, avgpool, conv };
const char *layer_op_name(LayerOp op);

struct Layer {
    std::string name;  // a C identifier: the function or class NAME.h gives the layer
    LayerOp op = LayerOp::conv;
    DType dtype = DType::f32;
    std::vector<int64_t> input_shape;
    std::vector<int64_t> weights_shape;  // conv
    MaxPoolAttributes max_pool;          // maxpool
    bool indices = false;                // maxpool: with argmax indices of index_type
    DType index_type = DType::i64;
    AvgPoolAttributes avg_pool;          // avgpool
    ConvAttributes conv;                 // conv
    std::vector<int64_t> output_shape;   // inferred
};

// Everything but the name: layers with equal keys are the same computation (one kernel serves them).
std::string layer_key(const Layer &layer);

// Reads and checks a layer file. Throws Error naming the file, the layer (index and name) and the
// field for anything wrong: unknown or mistyped fields, bad values, shapes shape inference refuses,
// repeated names.
std::vector<Layer> read_layer_file(const std::string &path);

// The same from JSON text (`source` names it in messages).
std::vector<Layer> parse_layers(const std::string &json_text, const std::string &source);

// The Conv, MaxPool, AveragePool and GlobalAveragePool nodes of an ONNX model, with the shapes
// ONNX's shape inference gives them (tune/onnx_model.cpp). Each layer is the node alone (a Relu
// after a Conv stays the engine's), named after the node. Throws Error naming the file and node.
std::vector<Layer> read_onnx_model(const std::string &path);

}  // namespace poolconv::tune
