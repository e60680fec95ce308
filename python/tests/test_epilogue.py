"""The fused epilogue, y = act(alpha * conv2d(x, w) + b + beta * residual), and fold_batchnorm,
against float64 NumPy (and PyTorch's own fuse_conv_bn_eval where torch is installed)."""
import math

import numpy as np
import pytest

import vkconv
from reference import conv2d_reference, relative_error, uniform

ERF = np.vectorize(math.erf)
ACTIVATIONS = {
    "identity": lambda v: v,
    "relu": lambda v: np.maximum(v, 0),
    "relu6": lambda v: np.clip(v, 0, 6),
    "clamp": lambda v: np.clip(v, -0.5, 0.75),
    "leaky_relu": lambda v: np.where(v >= 0, v, 0.2 * v),
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "silu": lambda v: v / (1 + np.exp(-v)),
    "gelu": lambda v: 0.5 * v * (1 + ERF(v / math.sqrt(2))),
    "gelu_tanh": lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))),
    "hardswish": lambda v: v * np.clip(v + 3, 0, 6) / 6,
}
EXTRA = {"clamp": {"clamp": (-0.5, 0.75)}, "leaky_relu": {"negative_slope": 0.2}}


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
@pytest.mark.parametrize("precision", ["fp32", "fast"])
def test_conv2d_epilogue_matches_numpy(ctx, rng, activation, precision):
    x, w, b = uniform(rng, (2, 8, 9, 10)), uniform(rng, (12, 8, 3, 3)), uniform(rng, (12,))
    z = uniform(rng, (2, 12, 9, 10))
    y = vkconv.conv2d(x, w, b, padding=1, precision=precision, context=ctx, activation=activation, residual=z,
                      alpha=0.75, beta=-0.5, **EXTRA.get(activation, {}))
    ref = ACTIVATIONS[activation](0.75 * conv2d_reference(x, w, padding=1) + b[None, :, None, None] - 0.5 * z)
    bound = 1e-5 if precision == "fp32" else 1e-3
    assert y.dtype == np.float32 and y.shape == ref.shape
    assert relative_error(y, ref) <= bound


def test_conv2d_object_takes_the_residual_per_call(ctx, rng):
    x, w, b = uniform(rng, (1, 4, 6, 6)), uniform(rng, (4, 4, 1, 1)), uniform(rng, (4,))
    conv = vkconv.Conv2d(ctx, w, b, precision="fp32", activation="relu")
    plain = conv(x)
    z = uniform(rng, (1, 4, 6, 6))
    with_z = conv(x, residual=z)
    conv_ref = conv2d_reference(x, w, b)
    assert relative_error(plain, np.maximum(conv_ref, 0)) <= 1e-5
    assert relative_error(with_z, np.maximum(conv_ref + z, 0)) <= 1e-5
    # unbatched x, unbatched residual
    assert relative_error(conv(x[0], residual=z[0]), np.maximum(conv_ref + z, 0)[0]) <= 1e-5


def test_epilogue_errors_name_the_argument(ctx, rng):
    x, w = uniform(rng, (1, 4, 6, 6)), uniform(rng, (4, 4, 3, 3))
    with pytest.raises(vkconv.ArgumentError, match="activation"):
        vkconv.conv2d(x, w, context=ctx, activation="swish")
    with pytest.raises(vkconv.ArgumentError, match="residual.shape"):
        vkconv.conv2d(x, w, context=ctx, residual=np.zeros((1, 4, 6, 6), np.float32))
    with pytest.raises(vkconv.ArgumentError, match="clamp"):
        vkconv.conv2d(x, w, context=ctx, activation="relu", clamp=(0, 1))
    with pytest.raises(vkconv.ArgumentError, match="epilogue.lower"):
        vkconv.conv2d(x, w, context=ctx, activation="clamp", clamp=(1, 0))
    with pytest.raises(vkconv.ArgumentError, match="alpha"):
        vkconv.conv2d(x, w, context=ctx, alpha=float("nan"))


def test_fold_batchnorm_matches_the_formula(rng):
    w, b = uniform(rng, (6, 3, 3, 3)), uniform(rng, (6,))
    gamma, beta, mean = uniform(rng, (6,)), uniform(rng, (6,)), uniform(rng, (6,))
    var = (uniform(rng, (6,)) + 1.5).astype(np.float32)
    fw, fb = vkconv.fold_batchnorm(w, b, gamma, beta, mean, var, eps=1e-3)
    scale = gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + 1e-3)
    np.testing.assert_allclose(fw, w * scale[:, None, None, None], rtol=1e-6)
    np.testing.assert_allclose(fb, (b - mean) * scale + beta, rtol=1e-6, atol=1e-7)
    fw0, fb0 = vkconv.fold_batchnorm(w, None, gamma, beta, mean, var)
    assert fw0.shape == w.shape and fb0.shape == (6,)
    with pytest.raises(vkconv.ArgumentError, match="var size"):
        vkconv.fold_batchnorm(w, b, gamma, beta, mean, var[:5])


def test_fold_batchnorm_matches_pytorch(ctx, rng):
    torch = pytest.importorskip("torch")
    conv = torch.nn.Conv2d(3, 6, 3, padding=1).eval()
    bn = torch.nn.BatchNorm2d(6, eps=1e-4).eval()
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5), bn.bias.uniform_(-1, 1)
        bn.running_mean.uniform_(-1, 1), bn.running_var.uniform_(0.5, 2)
    fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
    fw, fb = vkconv.fold_batchnorm(conv.weight.detach().numpy(), conv.bias.detach().numpy(), bn.weight.detach().numpy(),
                                   bn.bias.detach().numpy(), bn.running_mean.numpy(), bn.running_var.numpy(), eps=bn.eps)
    np.testing.assert_allclose(fw, fused.weight.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fb, fused.bias.detach().numpy(), rtol=1e-6, atol=1e-7)
    x = uniform(rng, (1, 3, 8, 8))
    with torch.no_grad():
        want = torch.relu(bn(conv(torch.from_numpy(x)))).numpy()
    y = vkconv.conv2d(x, fw, fb, padding=1, precision="fp32", context=ctx, activation="relu")
    assert relative_error(y, want.astype(np.float64)) <= 1e-5


def test_problem_carries_its_epilogue():
    p = vkconv.ConvProblem.alexnet1(2)
    assert str(p).endswith("bias=yes")
    e = p.epilogue
    e.activation, e.residual, e.beta = vkconv.Activation.RELU, True, 0.5
    p.epilogue = e
    assert str(p).endswith("bias=yes relu residual beta=0.5")
    e.activation, e.lower, e.upper = vkconv.Activation.CLAMP, 1.0, 0.0
    p.epilogue = e
    with pytest.raises(vkconv.ArgumentError, match="epilogue.lower"):
        p.validate()
