#!/usr/bin/env python3
"""Writes the layer files of examples/tuned/ (poolconv-tune input): every convolution and pooling
layer of ResNet-50 (v1.5, as torchvision builds it) and MobileNetV2, batch 1, 224x224, f32.

    python3 tools/make_model_layers.py examples/tuned

Convolutions carry the activation that follows them where it can be fused (ReLU, ReLU6); the
residual additions and the ReLU after them are not layers of ours.
"""
import json
import sys


def conv(name, shape, out_channels, k, stride=1, pad=0, group=1, activation=None):
    n, c, h, w = shape
    layer = {"name": name, "op": "conv", "input_shape": [n, c, h, w],
             "weights_shape": [out_channels, c // group, k, k]}
    if stride != 1:
        layer["strides"] = [stride, stride]
    if pad:
        layer["pads_begin"] = [pad, pad]
        layer["pads_end"] = [pad, pad]
    if group != 1:
        layer["group"] = group
    if activation:
        layer["activation"] = activation
    out = (h + 2 * pad - k) // stride + 1
    return layer, [n, out_channels, out, out]


def resnet50():
    layers = []
    layer, shape = conv("conv1", [1, 3, 224, 224], 64, 7, stride=2, pad=3, activation="relu")
    layers.append(layer)
    layers.append({"name": "maxpool", "op": "maxpool", "input_shape": shape, "kernel": [3, 3],
                   "strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1]})
    shape = [1, 64, 56, 56]
    for stage, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], start=1):
        for block in range(blocks):
            s = stride if block == 0 else 1
            prefix = f"layer{stage}_{block}"
            block_input = shape
            a, shape = conv(prefix + "_conv1", block_input, width, 1, activation="relu")
            b, shape = conv(prefix + "_conv2", shape, width, 3, stride=s, pad=1, activation="relu")
            c, shape = conv(prefix + "_conv3", shape, width * 4, 1)
            layers += [a, b, c]
            if block == 0:
                d, _ = conv(prefix + "_downsample", block_input, width * 4, 1, stride=s)
                layers.append(d)
    layers.append({"name": "avgpool", "op": "avgpool", "input_shape": shape, "kernel": [7, 7]})
    return layers


def mobilenetv2():
    layers = []
    layer, shape = conv("features0", [1, 3, 224, 224], 32, 3, stride=2, pad=1, activation="relu6")
    layers.append(layer)
    channels = 32
    index = 1
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = channels * t
            prefix = f"block{index}"
            if t != 1:
                layer, shape = conv(prefix + "_expand", shape, hidden, 1, activation="relu6")
                layers.append(layer)
            layer, shape = conv(prefix + "_depthwise", shape, hidden, 3, stride=stride, pad=1, group=hidden,
                                activation="relu6")
            layers.append(layer)
            layer, shape = conv(prefix + "_project", shape, c, 1)
            layers.append(layer)
            channels = c
            index += 1
    layer, shape = conv("features18", shape, 1280, 1, activation="relu6")
    layers.append(layer)
    layers.append({"name": "avgpool", "op": "avgpool", "input_shape": shape, "kernel": [7, 7]})
    return layers


def write(path, layers):
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join("  " + json.dumps(layer) for layer in layers) + "\n]\n")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "examples/tuned"
    write(f"{out}/resnet50.json", resnet50())
    write(f"{out}/mobilenetv2.json", mobilenetv2())
