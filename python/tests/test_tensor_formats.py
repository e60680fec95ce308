"""Activations of every type and layout through the Python module: float16 arrays kept float16,
channels-last arrays (a torch.channels_last tensor's strides) read in place as NHWC, the result
in x's layout and of out_dtype, residuals of any format; against float64 NumPy on the values the
arrays hold, to the bounds of the result's type (an fp16 result: 1e-3)."""
import numpy as np
import pytest

import vkconv
from reference import conv2d_reference, relative_error, uniform


def channels_last(a):
    """a (N, C, H, W) array whose memory is (N, H, W, C): what torch.channels_last holds."""
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)


def is_channels_last(a):
    n, c, h, w = a.shape
    return a.strides == tuple(s * a.itemsize for s in (h * w * c, 1, w * c, c))


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("out_dtype", [None, np.float32, np.float16])
@pytest.mark.parametrize("precision", ["fp32", "fast"])
def test_formats_match_numpy(ctx, rng, layout, dtype, out_dtype, precision):
    x = uniform(rng, (2, 8, 9, 10)).astype(dtype)
    if layout == "nhwc":
        x = channels_last(x)
    w, b = uniform(rng, (12, 8, 3, 3)), uniform(rng, (12,))
    z = uniform(rng, (2, 12, 9, 10))
    y = vkconv.conv2d(x, w, b, padding=1, precision=precision, context=ctx, activation="relu", residual=z,
                      out_dtype=out_dtype)
    result_type = np.dtype(out_dtype or dtype)
    z_held = z.astype(result_type).astype(np.float64)  # the residual as the result's type holds it
    ref = np.maximum(conv2d_reference(x.astype(np.float64), w, padding=1) + b[None, :, None, None] + z_held, 0)
    assert y.dtype == result_type and y.shape == ref.shape
    assert is_channels_last(y) == (layout == "nhwc")
    bound = 1e-3 if precision == "fast" or result_type == np.float16 else 1e-5
    assert relative_error(y.astype(np.float64), ref) <= bound


def test_conv2d_object_plans_each_format(ctx, rng):
    w = uniform(rng, (8, 4, 3, 3))
    conv = vkconv.Conv2d(ctx, w, padding=1, precision="fp32")
    x = uniform(rng, (1, 4, 6, 6))
    ref = conv2d_reference(x, w, padding=1)
    for a in (x, x.astype(np.float16), channels_last(x), channels_last(x.astype(np.float16))):
        y = conv(a)
        assert y.dtype == a.dtype and is_channels_last(y) == is_channels_last(a)
        held = conv2d_reference(a.astype(np.float64), w, padding=1)
        assert relative_error(y.astype(np.float64), held) <= (1e-3 if a.dtype == np.float16 else 1e-5)
    assert conv.planned_shapes == 4  # one plan a format
    assert "in=f16/nhwc out=f16/nhwc" in str(conv.problem())
    assert relative_error(conv(x), ref) <= 1e-5


def test_out_dtype_errors(ctx, rng):
    x, w = uniform(rng, (1, 4, 6, 6)), uniform(rng, (8, 4, 3, 3))
    with pytest.raises(vkconv.ArgumentError, match="out_dtype = int8"):
        vkconv.conv2d(x, w, context=ctx, out_dtype="int8")


def test_problem_formats_are_bound():
    p = vkconv.ConvProblem()
    p.input_format = vkconv.TensorFormat(vkconv.DataType.F16, vkconv.Layout.NHWC)
    assert str(p.input_format) == "f16/nhwc"
    assert "in=f16/nhwc" in str(p)


def test_torch_channels_last_round_trip(ctx, rng):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed here (the GPU machine has it)")
    x = torch.from_numpy(uniform(rng, (2, 8, 9, 10))).half().contiguous(memory_format=torch.channels_last)
    w = uniform(rng, (12, 8, 3, 3))
    y = vkconv.conv2d(x, w, padding=1, context=ctx)
    assert y.dtype == np.float16 and is_channels_last(y)
    yt = torch.from_numpy(y)
    assert yt.is_contiguous(memory_format=torch.channels_last)
    ref = torch.nn.functional.conv2d(x.double(), torch.from_numpy(w).double(), padding=1)
    assert relative_error(y.astype(np.float64), ref.numpy()) <= 1e-3


def test_torch_bfloat16_is_a_bf16_tensor(ctx, rng):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed here (the GPU machine has it)")
    x = torch.from_numpy(uniform(rng, (1, 8, 6, 6)) * 1e6).bfloat16()  # beyond fp16's range
    w = uniform(rng, (4, 8, 3, 3))
    conv = vkconv.Conv2d(ctx, w, padding=1)
    y = conv(x)
    assert y.dtype == np.float32  # NumPy has no bfloat16
    assert "bf16 tensors run through fp32 arithmetic" in conv.describe()
    ref = conv2d_reference(x.float().numpy().astype(np.float64), w, padding=1)
    assert relative_error(y, ref) <= 1e-5
