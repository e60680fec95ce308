"""Device tensors and Sequences from Python: convolutions on vkconv.Tensor with no host copies
between them, recorded into one submission, against float64 NumPy."""
import numpy as np
import pytest

import vkconv
from reference import conv2d_reference, relative_error, uniform


def test_device_chain_in_one_sequence(ctx, rng):
    w1, w2 = uniform(rng, (8, 4, 3, 3)), uniform(rng, (4, 8, 1, 1))
    c1 = vkconv.Conv2d(ctx, w1, padding=1, activation="relu", precision="fp32")
    c2 = vkconv.Conv2d(ctx, w2, precision="fp32")
    x = uniform(rng, (2, 4, 6, 6))
    xt = vkconv.Tensor.from_array(ctx, x)
    a = vkconv.Tensor.empty(ctx, [2, 8, 6, 6])
    y = vkconv.Tensor.empty(ctx, [2, 4, 6, 6])
    seq = vkconv.Sequence(ctx)
    seq.record(c1, xt, a).record(c2, a, y, residual=xt)
    assert len(seq) == 2 and seq.barriers == 1
    seq.eval()
    ref = conv2d_reference(np.maximum(conv2d_reference(x, w1, padding=1), 0), w2) + x
    assert relative_error(y.numpy(), ref) <= 1e-5
    # New input, the same recorded submission.
    x2 = uniform(rng, (2, 4, 6, 6))
    xt.upload(x2)
    seq.submit()
    seq.wait()
    ref2 = conv2d_reference(np.maximum(conv2d_reference(x2, w1, padding=1), 0), w2) + x2
    assert relative_error(y.numpy(), ref2) <= 1e-5


def test_conv2d_on_a_device_tensor_returns_one(ctx, rng):
    w = uniform(rng, (6, 3, 3, 3))
    conv = vkconv.Conv2d(ctx, w, padding=1, precision="fp32")
    x = uniform(rng, (1, 3, 5, 5)).astype(np.float16)
    xt = vkconv.Tensor.from_array(ctx, np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2))
    assert str(xt.format) == "f16/nhwc"
    y = conv(xt)
    assert isinstance(y, vkconv.Tensor) and str(y.format) == "f16/nhwc" and y.shape == [1, 6, 5, 5]
    ref = conv2d_reference(x.astype(np.float64), w, padding=1)
    assert relative_error(y.numpy().astype(np.float64), ref) <= 1e-3
    y32 = conv(xt, out_dtype=np.float32)
    assert y32.numpy().dtype == np.float32


def test_device_errors(ctx, rng):
    with pytest.raises(vkconv.ArgumentError, match="layout = chwn"):
        vkconv.Tensor.empty(ctx, [1, 2, 3, 4], layout="chwn")
    with pytest.raises(vkconv.ArgumentError, match="array.shape"):
        vkconv.Tensor.from_array(ctx, uniform(rng, (2, 3, 4)))
    t = vkconv.Tensor.empty(ctx, [1, 2, 3, 4])
    with pytest.raises(vkconv.ArgumentError, match="expected the tensor's"):
        t.upload(uniform(rng, (1, 2, 3, 5)))


def test_resnet50_example_matches_numpy():
    """python/examples/resnet50.py end to end at 32 x 32: the trunk's 53 convolutions on device
    tensors, 52 in one Sequence, against its float64 NumPy trunk."""
    import os
    import subprocess
    import sys
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "resnet50.py")
    res = subprocess.run([sys.executable, example, "--image", "32", "--precision", "fp32", "--reference", "numpy"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "52 in the trunk's one submission" in res.stdout
