#!/usr/bin/python3
"""Writes the PyTorch parity data of tests/torch_parity_test.cpp into tests/data/torch/.

For a fixed list of small pooling problems (max_pool1d/2d/3d with return_indices, avg_pool1d/2d/3d,
with and without ceil_mode, padding, dilation, stride, count_include_pad) and convolutions
(conv1d/2d/3d with groups, depthwise, stride, padding, dilation, bias or none) it saves the float32
input (float64 for the *_f64 average pooling and convolution cases, which PyTorch computes in
double), PyTorch's output and, for max pooling, PyTorch's int64 indices (for convolution the weights
and bias) as .npy files, and lists the cases in manifest.txt. The C++ test reads these with
poolconv::npy::load; it needs no Python.

Regenerate (needs torch and numpy; on the build machine /usr/bin/python3 has both):

    /usr/bin/python3 tools/make_torch_parity.py            # writes tests/data/torch/
    /usr/bin/python3 tools/make_torch_parity.py --out DIR  # elsewhere

The output is deterministic (fixed seed, CPU kernels); commit the regenerated files together.

Manifest: one case per line, '#' starts a comment; whitespace-separated fields, the first the case
name, then key=value pairs:
    op=max_pool|avg_pool   kernel=k[,k...] stride=... padding=... dilation=...   (outermost first)
    ceil_mode=0|1          (1 maps to poolconv Rounding::ceil_torch, 0 to Rounding::floor)
    count_include_pad=0|1  (avg_pool: 1 -> AvgPadMode::include_pad, 0 -> AvgPadMode::exclude_pad)
    input=FILE output=FILE [indices=FILE]   (file names relative to the manifest)
or, for convolution:
    op=conv stride=... padding=... dilation=... groups=G   input=FILE weights=FILE [bias=FILE] output=FILE
PyTorch's indices count positions within each (n, c) plane: poolconv's axis = 2.
"""

import argparse
import os
import random

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "tests", "data", "torch")

SHAPES = {
    1: [(2, 3, 11), (1, 2, 16), (3, 1, 7)],
    2: [(2, 3, 7, 9), (1, 2, 10, 6), (1, 1, 5, 17)],
    3: [(1, 2, 5, 6, 7), (2, 1, 4, 4, 6)],
}


def make_input(gen_rng, shape, ties):
    if ties:
        # Small set of values: equal values are frequent inside windows (first one wins).
        return (torch.randint(-6, 7, shape, dtype=torch.int64).to(torch.float32) / 2.0)
    return torch.randn(shape, dtype=torch.float32)


def fmt(values):
    return ",".join(str(int(v)) for v in values)


def output_size(n, k, s, p, d, ceil_mode):
    dk = (k - 1) * d + 1
    span = n + 2 * p - dk
    if span < 0:
        return 0
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def draw_case(rng, op, dims):
    while True:
        shape = rng.choice(SHAPES[dims])
        kernel, stride, padding, dilation = [], [], [], []
        for _ in range(dims):
            k = rng.randint(1, 4 if dims == 3 else 5)
            kernel.append(k)
            stride.append(rng.randint(1, 3))
            padding.append(rng.randint(0, k // 2))  # PyTorch: pad <= kernel / 2
            dilation.append(rng.choice([1, 1, 2]) if op == "max_pool" else 1)  # avg_pool has none
        ceil_mode = rng.random() < 0.5
        sizes = [output_size(n, k, s, p, d, ceil_mode)
                 for n, k, s, p, d in zip(shape[2:], kernel, stride, padding, dilation)]
        if min(sizes) < 1:
            continue
        return shape, kernel, stride, padding, dilation, ceil_mode


# Hand-picked cases first: (name, op, shape, kernel, stride, padding, dilation, ceil_mode, count_include_pad).
# ceil_drops_*: plain ceil would add a window starting in the end padding, which PyTorch drops
# (poolconv Rounding::ceil_torch); avg_ceil_*: a last window clipped by the padded end, where
# count_include_pad counts only positions inside [-pad, n + pad).
FIXED = [
    ("max_ceil_drops_2d", "max_pool", (1, 1, 3, 3), [2, 2], [2, 2], [1, 1], [1, 1], True, False),
    ("avg_ceil_drops_2d", "avg_pool", (1, 2, 5, 5), [2, 2], [2, 2], [1, 1], [1, 1], True, True),
    ("avg_ceil_clip_1d_include", "avg_pool", (1, 1, 4), [3], [2], [1], [1], True, True),
    ("avg_ceil_clip_1d_exclude", "avg_pool", (1, 1, 4), [3], [2], [1], [1], True, False),
]


def draw_conv_case(rng, dims):
    """A random small convolution: (x, weight, bias or None, stride, padding, dilation, groups)."""
    while True:
        kind = rng.randint(0, 3)  # 0: depthwise, 1: grouped, else one group
        groups = rng.randint(2, 4) if kind < 2 else 1
        cin_g = 1 if kind == 0 else rng.randint(1, 4)
        cout_g = 1 if kind == 0 else rng.randint(1, 5)
        spatial = [rng.randint(3, 20 if dims == 1 else 9 if dims == 2 else 5) for _ in range(dims)]
        kernel = [rng.randint(1, 5 if dims == 1 else 3) for _ in range(dims)]
        stride = [rng.randint(1, 2) for _ in range(dims)]
        dilation = [rng.choice([1, 1, 2]) for _ in range(dims)]
        padding = [rng.randint(0, (k - 1) * d) for k, d in zip(kernel, dilation)]
        if any(n + 2 * p < (k - 1) * d + 1 for n, k, p, d in zip(spatial, kernel, padding, dilation)):
            continue
        x = torch.randn((rng.randint(1, 2), groups * cin_g, *spatial), dtype=torch.float32)
        w = torch.randn((groups * cout_g, cin_g, *kernel), dtype=torch.float32)
        b = torch.randn((groups * cout_g,), dtype=torch.float32) if rng.random() < 0.7 else None
        return x, w, b, stride, padding, dilation, groups


def conv_case_fields(name, x, w, b, stride, padding, dilation, groups):
    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[x.dim() - 2]
    y = fn(x, w, b, stride, padding, dilation, groups)
    fields = [name, "op=conv", "stride=" + fmt(stride), "padding=" + fmt(padding), "dilation=" + fmt(dilation),
              "groups=%d" % groups]
    files = {"input": x, "weights": w, "output": y}
    if b is not None:
        files["bias"] = b
    return fields, files


def case_fields(name, op, x, kernel, stride, padding, dilation, ceil_mode, count_include_pad):
    """Runs PyTorch on one case; returns the manifest fields and the tensors to save."""
    dims = x.dim() - 2
    fields = [name, "op=" + op, "kernel=" + fmt(kernel), "stride=" + fmt(stride),
              "padding=" + fmt(padding), "dilation=" + fmt(dilation), "ceil_mode=%d" % ceil_mode]
    if op == "max_pool":
        fn = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[dims]
        y, idx = fn(x, kernel, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True)
        return fields, {"input": x, "output": y, "indices": idx}
    fn = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[dims]
    y = fn(x, kernel, stride, padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad)
    fields.append("count_include_pad=%d" % count_include_pad)
    return fields, {"input": x, "output": y}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: tests/data/torch)")
    parser.add_argument("--cases", type=int, default=7, help="cases per (operator, rank)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in os.listdir(args.out):
        if name.endswith(".npy") or name == "manifest.txt":
            os.remove(os.path.join(args.out, name))

    torch.manual_seed(20240601)
    rng = random.Random(20240601)
    lines = ["# PyTorch %s pooling and convolution reference cases; generated by tools/make_torch_parity.py, do not edit."
             % torch.__version__]
    cases = []
    for name, op, shape, kernel, stride, padding, dilation, ceil_mode, count_include_pad in FIXED:
        x = torch.arange(1, 1 + int(np.prod(shape)), dtype=torch.float32).reshape(shape)
        cases.append((name, op, x, kernel, stride, padding, dilation, ceil_mode, count_include_pad))
    for op in ("max_pool", "avg_pool"):
        for dims in (1, 2, 3):
            for i in range(args.cases):
                shape, kernel, stride, padding, dilation, ceil_mode = draw_case(rng, op, dims)
                x = make_input(rng, shape, ties=(i % 3 != 2))
                count_include_pad = bool(i % 2) if op == "avg_pool" else False
                name = "%s%dd_%02d" % (op, dims, i)
                cases.append((name, op, x, kernel, stride, padding, dilation, ceil_mode, count_include_pad))
    conv_cases = []
    for dims in (1, 2, 3):
        for i in range(args.cases + 1):
            conv_cases.append(("conv%dd_%02d" % (dims, i),) + draw_conv_case(rng, dims))
    # float64 cases (average pooling and convolution; max pooling is exact in any type), drawn
    # after the float32 ones so that those stay as they were.
    for dims in (1, 2, 3):
        for i in range(3):
            shape, kernel, stride, padding, dilation, ceil_mode = draw_case(rng, "avg_pool", dims)
            x = torch.randn(shape, dtype=torch.float64)
            cases.append(("avg_pool%dd_f64_%02d" % (dims, i), "avg_pool", x, kernel, stride, padding, dilation,
                          ceil_mode, bool(i % 2)))
        for i in range(3):
            # Fresh float64 values (a float32 draw widened would fit in float32, where kernels that
            # kept the weights or sums in float32 would still match).
            x, w, b, stride, padding, dilation, groups = draw_conv_case(rng, dims)
            x, w = torch.randn(x.shape, dtype=torch.float64), torch.randn(w.shape, dtype=torch.float64)
            b = None if b is None else torch.randn(b.shape, dtype=torch.float64)
            conv_cases.append(("conv%dd_f64_%02d" % (dims, i), x, w, b, stride, padding, dilation, groups))
    with torch.no_grad():
        generated = [case_fields(*c) for c in cases] + [conv_case_fields(*c) for c in conv_cases]
    for fields, files in generated:
        name = fields[0]
        for role, tensor in files.items():
            file_name = "%s.%s.npy" % (name, role)
            kept = np.float64 if tensor.dtype == torch.float64 else np.float32
            array = tensor.numpy().astype(np.int64 if role == "indices" else kept)
            np.save(os.path.join(args.out, file_name), np.ascontiguousarray(array))
            fields.append("%s=%s" % (role, file_name))
        lines.append(" ".join(fields))
    with open(os.path.join(args.out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d cases to %s" % (len(lines) - 1, os.path.normpath(args.out)))


if __name__ == "__main__":
    main()
