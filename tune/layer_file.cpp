#include "tune/layer_file.h"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/attribute_names.h"

namespace poolconv::tune {

namespace {

using nlohmann::json;

// Where a message points: "layers.json: layer 2 (conv1)".
struct Place {
    std::string source;
    std::size_t index;
    std::string name;
    std::string at() const {
        return source + ": layer " + std::to_string(index) + (name.empty() ? "" : " (" + name + ")");
    }
    [[noreturn]] void fail(const std::string &field, const std::string &what) const {
        throw Error(at() + ": field \"" + field + "\": " + what);
    }
};

std::vector<int64_t> int_list(const json &v, const Place &p, const std::string &field, int64_t min_value) {
    if (!v.is_array()) p.fail(field, "expected a list of integers, got " + v.dump());
    std::vector<int64_t> out;
    for (const json &e : v) {
        if (!e.is_number_integer()) p.fail(field, "expected a list of integers, got " + v.dump());
        const int64_t i = e.get<int64_t>();
        if (i < min_value) p.fail(field, "values must be >= " + std::to_string(min_value) + ", got " + v.dump());
        out.push_back(i);
    }
    return out;
}

std::string text(const json &v, const Place &p, const std::string &field) {
    if (!v.is_string()) p.fail(field, "expected a string, got " + v.dump());
    return v.get<std::string>();
}

template<typename T>
T choice(const json &v, const Place &p, const std::string &field, const cli::NamedValues<T> &choices) {
    const std::string s = text(v, p, field);
    std::string names;
    for (const auto &[name, value] : choices) {
        if (s == name) return value;
        names += std::string(names.empty() ? "" : ", ") + name;
    }
    p.fail(field, "\"" + s + "\" is not one of " + names);
}

bool is_identifier(const std::string &s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
    return true;
}

Layer parse_layer(const json &object, const Place &where) {
    Place p = where;
    if (!object.is_object()) throw Error(p.at() + ": expected an object, got " + object.dump());
    Layer layer;
    if (!object.contains("name")) throw Error(p.at() + ": field \"name\" is missing");
    layer.name = text(object["name"], p, "name");
    p.name = layer.name;
    if (!is_identifier(layer.name)) p.fail("name", "must be a C identifier (letters, digits, _), got \"" + layer.name + "\"");
    if (!object.contains("op")) throw Error(p.at() + ": field \"op\" is missing");
    layer.op = choice<LayerOp>(object["op"], p, "op",
                               {{"maxpool", LayerOp::maxpool}, {"avgpool", LayerOp::avgpool}, {"conv", LayerOp::conv}});

    // The fields each operator takes; anything else is a mistake worth naming.
    std::set<std::string> allowed = {"name", "op", "input_shape", "strides", "dilations", "pads_begin", "pads_end",
                                     "auto_pad", "dtype"};
    if (layer.op == LayerOp::conv) allowed.insert({"weights_shape", "group", "activation"});
    if (layer.op != LayerOp::conv) allowed.insert({"kernel", "rounding"});
    if (layer.op == LayerOp::maxpool) allowed.insert("indices");
    if (layer.op == LayerOp::avgpool) allowed.insert("exclude_pad");
    for (const auto &item : object.items()) {
        if (!allowed.count(item.key())) {
            p.fail(item.key(), std::string("not a field of ") + layer_op_name(layer.op) + " layers");
        }
    }
    auto required = [&](const char *field) -> const json & {
        if (!object.contains(field)) throw Error(p.at() + ": field \"" + field + "\" is missing");
        return object[field];
    };

    layer.input_shape = int_list(required("input_shape"), p, "input_shape", 1);
    if (object.contains("dtype")) {
        cli::NamedValues<DType> types = {{"f32", DType::f32}, {"f16", DType::f16}, {"bf16", DType::bf16}, {"f64", DType::f64}};
        if (layer.op == LayerOp::maxpool) types.insert(types.end(), {{"i8", DType::i8}, {"u8", DType::u8}});
        layer.dtype = choice<DType>(object["dtype"], p, "dtype", types);
    }
    WindowAttributes window;
    if (object.contains("strides")) window.strides = int_list(object["strides"], p, "strides", 1);
    if (object.contains("dilations")) window.dilations = int_list(object["dilations"], p, "dilations", 1);
    if (object.contains("pads_begin")) window.pads_begin = int_list(object["pads_begin"], p, "pads_begin", 0);
    if (object.contains("pads_end")) window.pads_end = int_list(object["pads_end"], p, "pads_end", 0);
    if (object.contains("auto_pad")) {
        window.auto_pad = choice<AutoPad>(object["auto_pad"], p, "auto_pad", cli::auto_pad_names());
    }
    PoolAttributes pool;
    static_cast<WindowAttributes &>(pool) = window;
    if (layer.op != LayerOp::conv) {
        pool.kernel = int_list(required("kernel"), p, "kernel", 1);
        if (object.contains("rounding")) {
            pool.rounding = choice<Rounding>(object["rounding"], p, "rounding", cli::rounding_names());
        }
    }

    try {
        switch (layer.op) {
        case LayerOp::maxpool:
            static_cast<PoolAttributes &>(layer.max_pool) = pool;
            if (object.contains("indices")) {
                layer.indices = true;
                layer.index_type = choice<DType>(object["indices"], p, "indices", cli::index_type_names());
            }
            layer.output_shape = infer_pool_shape(layer.input_shape, pool).output_shape;
            break;
        case LayerOp::avgpool:
            static_cast<PoolAttributes &>(layer.avg_pool) = pool;
            if (object.contains("exclude_pad")) {
                if (!object["exclude_pad"].is_boolean()) p.fail("exclude_pad", "expected true or false, got " + object["exclude_pad"].dump());
                layer.avg_pool.pad_mode = object["exclude_pad"].get<bool>() ? AvgPadMode::exclude_pad : AvgPadMode::include_pad;
            }
            layer.output_shape = infer_pool_shape(layer.input_shape, pool).output_shape;
            break;
        case LayerOp::conv:
            static_cast<WindowAttributes &>(layer.conv) = window;
            layer.weights_shape = int_list(required("weights_shape"), p, "weights_shape", 1);
            if (object.contains("group")) {
                const json &g = object["group"];
                if (!g.is_number_integer() || g.get<int64_t>() < 1) p.fail("group", "expected an integer >= 1, got " + g.dump());
                layer.conv.group = g.get<int64_t>();
            }
            if (object.contains("activation")) {
                // The CLI's words but clamp, whose bounds a layer file has no field for.
                cli::NamedValues<Activation> activations;
                for (const auto &named : cli::activation_names()) {
                    if (named.second != Activation::clamp) activations.push_back(named);
                }
                layer.conv.activation = choice<Activation>(object["activation"], p, "activation", activations);
            }
            layer.output_shape = infer_conv_shape(layer.input_shape, layer.weights_shape, layer.conv).output_shape;
            break;
        }
    } catch (const Error &e) {
        throw Error(p.at() + ": " + e.what());
    }
    return layer;
}

std::string key_list(const std::vector<int64_t> &v) {
    std::string s = "[";
    for (int64_t x : v) s += std::to_string(x) + ",";
    return s + "]";
}

std::string window_key(const WindowAttributes &w) {
    return key_list(w.strides) + key_list(w.dilations) + key_list(w.pads_begin) + key_list(w.pads_end) +
           std::to_string(static_cast<int>(w.auto_pad));
}

std::string pool_key(const PoolAttributes &p) {
    return window_key(p) + key_list(p.kernel) + std::to_string(static_cast<int>(p.rounding));
}

}  // namespace

std::string layer_key(const Layer &l) {
    std::string key = std::string(layer_op_name(l.op)) + " " + dtype_name(l.dtype) + " " + key_list(l.input_shape);
    switch (l.op) {
    case LayerOp::maxpool:
        key += pool_key(l.max_pool) + (l.indices ? dtype_name(l.index_type) : "");
        break;
    case LayerOp::avgpool: key += pool_key(l.avg_pool) + std::to_string(static_cast<int>(l.avg_pool.pad_mode)); break;
    case LayerOp::conv:
        key += key_list(l.weights_shape) + window_key(l.conv) + std::to_string(l.conv.group) + " " +
               std::to_string(static_cast<int>(l.conv.activation));
        break;
    }
    return key;
}

const char *layer_op_name(LayerOp op) {
    switch (op) {
    case LayerOp::maxpool: return "maxpool";
    case LayerOp::avgpool: return "avgpool";
    case LayerOp::conv: return "conv";
    }
    return "?";
}

std::vector<Layer> parse_layers(const std::string &json_text, const std::string &source) {
    json document;
    try {
        document = json::parse(json_text);
    } catch (const json::parse_error &e) {
        throw Error(source + ": not valid JSON: " + e.what());
    }
    if (!document.is_array() || document.empty()) throw Error(source + ": expected a non-empty JSON array of layers");
    std::vector<Layer> layers;
    std::set<std::string> names;
    for (std::size_t i = 0; i < document.size(); i++) {
        layers.push_back(parse_layer(document[i], {source, i, ""}));
        if (!names.insert(layers.back().name).second) {
            throw Error(Place{source, i, layers.back().name}.at() + ": field \"name\": another layer has this name");
        }
    }
    return layers;
}

std::vector<Layer> read_layer_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the layer file");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_layers(text.str(), path);
}

}  // namespace poolconv::tune
