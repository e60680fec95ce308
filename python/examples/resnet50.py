#!/usr/bin/env python3
"""ResNet-50's trunk on vkconv: the stem and all 16 bottleneck blocks of torchvision's resnet50
(v1.5), 53 convolutions with batch norm folded into the weights (vkconv.fold_batchnorm) and ReLU
and the residual adds fused, in fp16 NHWC device tensors; the 52 convolutions after the stem's
max-pool recorded into one vkconv.Sequence and submitted once. The max-pool runs in NumPy on the
host, outside the timed submission.

Weights come from a seeded torchvision-style initialisation (kaiming normal, fan_out, for the
convolutions; batch norm at its initial state), nothing is downloaded. The result is compared with
PyTorch's torchvision resnet50 trunk on the same weights (eval(), fp16, channels-last) where torch
runs on CUDA, else with a float64 NumPy reference of the same trunk.

usage: resnet50.py [--batch N] [--image S] [--precision fast|fp32] [--reference torch|numpy]
"""
import argparse
import os
import sys

import numpy as np

import vkconv

BLOCKS = (3, 4, 6, 3)


def trunk_layers():
    """(name, in_channels, out_channels, kernel, stride, relu, input, output, residual) per conv,
    activations numbered as bench/resnet50.hpp numbers them: 0 image, 1 stem, 2 pooled."""
    layers, shapes = [("conv1", 3, 64, 7, 2, True, 0, 1, None)], 3
    x, channels = 2, 64
    for layer, blocks in enumerate(BLOCKS):
        width, out = 64 << layer, 256 << layer
        for b in range(blocks):
            name = "layer%d.%d." % (layer + 1, b)
            stride = 2 if b == 0 and layer > 0 else 1
            identity = x
            if b == 0:
                layers.append((name + "downsample", channels, out, 1, stride, False, x, shapes, None))
                identity, shapes = shapes, shapes + 1
            layers.append((name + "conv1", channels, width, 1, 1, True, x, shapes, None))
            layers.append((name + "conv2", width, width, 3, stride, True, shapes, shapes + 1, None))
            layers.append((name + "conv3", width, out, 1, 1, True, shapes + 1, shapes + 2, identity))
            x, shapes, channels = shapes + 2, shapes + 3, out
    return layers


def init_weights(layers, seed):
    """kaiming_normal_(mode='fan_out', nonlinearity='relu') per conv, as torchvision initialises."""
    rng = np.random.default_rng(seed)
    return [rng.normal(0, np.sqrt(2.0 / (k * r * r)), (k, c, r, r)).astype(np.float32)
            for _, c, k, r, _, _, _, _, _ in layers]


def max_pool(x):
    """3x3, stride 2, padding 1 over (N, C, H, W)."""
    n, c, h, w = x.shape
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    return windows.max(axis=(4, 5))[:, :, :(h + 1) // 2, :(w + 1) // 2]


def conv_numpy(x, w, b, stride, padding):
    r = w.shape[2]
    p = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = np.lib.stride_tricks.sliding_window_view(p, (r, r), axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("nchwrs,kcrs->nkhw", windows, w, optimize=True) + b[None, :, None, None]


def numpy_trunk(layers, folded, image):
    acts = {0: image.astype(np.float64)}
    for (name, c, k, r, stride, relu, i, o, z), (w, b) in zip(layers, folded):
        v = conv_numpy(acts[i], w.astype(np.float64), b.astype(np.float64), stride, r // 2)
        if z is not None:
            v = v + acts[z]
        acts[o] = np.maximum(v, 0) if relu else v
        if o == 1:
            acts[2] = max_pool(acts[1])
    return acts[max(acts)]


def torch_trunk(weights, image):
    import torch
    import torchvision
    model = torchvision.models.resnet50()
    convs = [m for n, m in model.named_modules() if isinstance(m, torch.nn.Conv2d)]
    # named_modules order: conv1, then per block conv1, conv2, conv3, downsample.0; ours puts the
    # downsample first in a block.
    names = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Conv2d)]
    ours = [n for n, *_ in trunk_layers()]
    by_name = dict(zip([n.replace("downsample.0", "downsample") for n in names], convs))
    with torch.no_grad():
        for name, w in zip(ours, weights):
            by_name[name].weight.copy_(torch.from_numpy(w))
    net = torch.nn.Sequential(model.conv1, model.bn1, model.relu, model.maxpool,
                              model.layer1, model.layer2, model.layer3, model.layer4)
    net = net.eval().half().cuda().to(memory_format=torch.channels_last)
    x = torch.from_numpy(image).half().cuda().contiguous(memory_format=torch.channels_last)
    with torch.inference_mode():
        return net(x).float().cpu().numpy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--image", type=int, default=224)
    ap.add_argument("--precision", default="fast", choices=("fast", "fp32"))
    ap.add_argument("--reference", default="", choices=("", "torch", "numpy"),
                    help="default: torch where it runs on CUDA, else numpy")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    ctx = vkconv.default_context()
    layers = trunk_layers()
    weights = init_weights(layers, args.seed)
    folded = []
    for (_, c, k, *_), w in zip(layers, weights):
        ones, zeros = np.ones(k, np.float32), np.zeros(k, np.float32)
        folded.append(vkconv.fold_batchnorm(w, None, ones, zeros, zeros, ones, 1e-5))
    dtype = "float16" if args.precision == "fast" else "float32"
    layout = "nhwc" if args.precision == "fast" else "nchw"
    n, s = args.batch, args.image
    shapes = {0: [n, 3, s, s], 1: [n, 64, s // 2, s // 2], 2: [n, 64, s // 4, s // 4]}
    convs = []
    for (name, c, k, r, stride, relu, i, o, z), (w, b) in zip(layers, folded):
        h = shapes[i][2]
        shapes[o] = [n, k, (h + 2 * (r // 2) - r) // stride + 1, (h + 2 * (r // 2) - r) // stride + 1]
        convs.append(vkconv.Conv2d(ctx, w, b, stride=stride, padding=r // 2, precision=args.precision,
                                   activation="relu" if relu else "identity"))
    acts = {i: vkconv.Tensor.empty(ctx, shape, dtype=dtype, layout=layout) for i, shape in shapes.items()}
    stem, trunk = vkconv.Sequence(ctx), vkconv.Sequence(ctx)
    stem.record(convs[0], acts[0], acts[1])
    for (name, c, k, r, stride, relu, i, o, z), conv in zip(layers[1:], convs[1:]):
        trunk.record(conv, acts[i], acts[o], residual=None if z is None else acts[z])

    image = np.random.default_rng(args.seed + 1).uniform(-1, 1, (n, 3, s, s)).astype(np.float32)
    acts[0].upload(image)
    stem.eval()
    acts[2].upload(max_pool(acts[1].numpy().astype(np.float32)))
    trunk.eval()
    out = acts[max(acts)].numpy().astype(np.float64)
    print("vkconv: %d convolutions (%d in the trunk's one submission, %d barriers), %s %s; trunk %.3f ms GPU, "
          "stem %.3f ms" % (len(convs), len(trunk), trunk.barriers, dtype, layout, trunk.gpu_ms, stem.gpu_ms))

    reference = args.reference
    if not reference:
        try:
            import torch  # noqa: F401
            reference = "torch" if torch.cuda.is_available() else "numpy"
        except ImportError:
            reference = "numpy"
    if reference == "torch":
        ref = torch_trunk(weights, image).astype(np.float64)
        what = "PyTorch's torchvision trunk (fp16 channels-last, eval())"
    else:
        ref = numpy_trunk(layers, folded, image)
        what = "the float64 NumPy trunk"
    err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
    print("relative error against %s: %.3e" % (what, err))
    return 0 if err <= (5e-3 if args.precision == "fast" else 1e-5) else 1


if __name__ == "__main__":
    sys.exit(main())
