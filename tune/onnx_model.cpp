// poolconv-tune --onnx: a model's pooling and convolution nodes as layers. ONNX's own library
// parses the model and infers every tensor's shape; each node then becomes the JSON object a
// layer file would hold for it, so that parse_layers checks it as it checks files.
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "tune/layer_file.h"

namespace poolconv::tune {

namespace {

using nlohmann::json;

// Every tensor whose shape is known: inputs, outputs and inferred values (dims, element type),
// and initializers (weights).
struct Tensors {
    std::map<std::string, std::vector<int64_t>> shape;
    std::map<std::string, int> elem_type;
    std::set<std::string> unknown;  // some dimension symbolic or missing

    void add(const onnx::ValueInfoProto &v) {
        if (!v.type().has_tensor_type()) return;
        const auto &t = v.type().tensor_type();
        elem_type[v.name()] = t.elem_type();
        if (!t.has_shape()) {
            unknown.insert(v.name());
            return;
        }
        std::vector<int64_t> dims;
        for (const auto &d : t.shape().dim()) {
            if (!d.has_dim_value()) {
                unknown.insert(v.name());
                return;
            }
            dims.push_back(d.dim_value());
        }
        shape[v.name()] = dims;
    }
};

json ints(const onnx::AttributeProto &a) {
    json out = json::array();
    for (int64_t v : a.ints()) out.push_back(v);
    return out;
}

// A C identifier from a node name, unique in the model.
std::string layer_name(const onnx::NodeProto &node, int index, std::set<std::string> &taken) {
    std::string name;
    for (char c : node.name()) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = node.op_type() + "_" + std::to_string(index) + name;
    std::string unique = name;
    for (int k = 2; !taken.insert(unique).second; k++) unique = name + "_" + std::to_string(k);
    return unique;
}

}  // namespace

std::vector<Layer> read_onnx_model(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the ONNX model");
    onnx::ModelProto model;
    if (!model.ParseFromIstream(&in)) throw Error(path + ": not an ONNX model (protobuf parsing failed)");
    try {
        onnx::shape_inference::InferShapes(model);
    } catch (const std::exception &e) {
        throw Error(path + ": ONNX shape inference failed: " + e.what());
    }
    const onnx::GraphProto &graph = model.graph();
    Tensors tensors;
    for (const auto &v : graph.input()) tensors.add(v);
    for (const auto &v : graph.value_info()) tensors.add(v);
    for (const auto &v : graph.output()) tensors.add(v);
    for (const auto &t : graph.initializer()) {
        tensors.shape[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
        tensors.elem_type[t.name()] = t.data_type();
        tensors.unknown.erase(t.name());
    }

    const std::map<int, std::string> dtypes = {{onnx::TensorProto::FLOAT, "f32"},  {onnx::TensorProto::FLOAT16, "f16"},
                                               {onnx::TensorProto::BFLOAT16, "bf16"}, {onnx::TensorProto::DOUBLE, "f64"},
                                               {onnx::TensorProto::INT8, "i8"},    {onnx::TensorProto::UINT8, "u8"}};
    json layers = json::array();
    std::set<std::string> taken;
    int index = 0;
    for (const onnx::NodeProto &node : graph.node()) {
        index++;
        const std::string &op = node.op_type();
        if (op != "Conv" && op != "MaxPool" && op != "AveragePool" && op != "GlobalAveragePool") continue;
        const std::string where = path + ": node " + std::to_string(index - 1) + " (" + op +
                                  (node.name().empty() ? "" : " " + node.name()) + ")";
        auto known_shape = [&](const std::string &tensor) {
            const auto it = tensors.shape.find(tensor);
            if (it == tensors.shape.end()) {
                throw Error(where + ": the shape of " + tensor + " is unknown" +
                            (tensors.unknown.count(tensor) ? " (symbolic dimensions: give the model static input shapes)" : ""));
            }
            return it->second;
        };
        json layer = {{"name", layer_name(node, index - 1, taken)}};
        const std::vector<int64_t> input = known_shape(node.input(0));
        layer["input_shape"] = input;
        const auto type = dtypes.find(tensors.elem_type[node.input(0)]);
        if (type == dtypes.end()) throw Error(where + ": element type " + std::to_string(tensors.elem_type[node.input(0)]) + " is not one poolconv computes in");
        layer["dtype"] = type->second;
        if (op == "GlobalAveragePool") {
            layer["op"] = "avgpool";
            layer["kernel"] = std::vector<int64_t>(input.begin() + 2, input.end());
            layers.push_back(layer);
            continue;
        }
        layer["op"] = op == "Conv" ? "conv" : op == "MaxPool" ? "maxpool" : "avgpool";
        if (op == "Conv") {
            if (node.input_size() < 2) throw Error(where + ": no weights input");
            layer["weights_shape"] = known_shape(node.input(1));
        }
        for (const auto &a : node.attribute()) {
            const std::string &name = a.name();
            if (name == "strides" || name == "dilations") {
                layer[name] = ints(a);
            } else if (name == "pads") {
                const std::size_t half = static_cast<std::size_t>(a.ints_size()) / 2;
                layer["pads_begin"] = json(std::vector<int64_t>(a.ints().begin(), a.ints().begin() + static_cast<long>(half)));
                layer["pads_end"] = json(std::vector<int64_t>(a.ints().begin() + static_cast<long>(half), a.ints().end()));
            } else if (name == "kernel_shape") {
                if (op != "Conv") layer["kernel"] = ints(a);
            } else if (name == "auto_pad") {
                const std::map<std::string, std::string> modes = {
                    {"NOTSET", "explicit"}, {"VALID", "valid"}, {"SAME_UPPER", "same_upper"}, {"SAME_LOWER", "same_lower"}};
                const auto m = modes.find(a.s());
                if (m == modes.end()) throw Error(where + ": auto_pad " + a.s() + " is not an ONNX mode");
                layer["auto_pad"] = m->second;
            } else if (name == "ceil_mode") {
                // ONNX's ceil_mode drops a last window that would start in the end padding.
                if (a.i() != 0) layer["rounding"] = "ceil_torch";
            } else if (name == "group") {
                layer["group"] = a.i();
            } else if (name == "count_include_pad") {
                layer["exclude_pad"] = a.i() == 0;
            } else if (name == "storage_order") {
                if (a.i() != 0) throw Error(where + ": storage_order 1 (column-major indices) is not a layer file field");
            } else {
                throw Error(where + ": attribute " + name + " is not supported");
            }
        }
        if (op == "MaxPool" && node.output_size() > 1 && !node.output(1).empty()) layer["indices"] = "i64";
        layers.push_back(layer);
    }
    if (layers.empty()) throw Error(path + ": no Conv, MaxPool, AveragePool or GlobalAveragePool node");
    return parse_layers(layers.dump(), path);
}

}  // namespace poolconv::tune
