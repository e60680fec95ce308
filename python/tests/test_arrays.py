"""What conv2d does with the caller's arrays: which it converts (and to exactly what), which it
refuses, and the message of each refusal (field and value named; ArgumentError is a ValueError)."""
import numpy as np
import pytest

import vkconv
from reference import uniform


@pytest.fixture
def xwb(rng):
    return uniform(rng, (2, 4, 9, 8)), uniform(rng, (6, 4, 3, 3)), uniform(rng, 6)


def fp32(x, w, b=None, ctx=None, **kw):
    return vkconv.conv2d(x, w, b, precision="fp32", context=ctx, **kw)


def test_float32_c_contiguous_is_read_in_place_and_readonly_is_fine(ctx, xwb):
    x, w, b = xwb
    expected = fp32(x, w, b, ctx)
    x.setflags(write=False)
    assert np.array_equal(fp32(x, w, b, ctx), expected)


def test_float64_is_converted_to_float32(ctx, xwb):
    x, w, b = (a.astype(np.float64) for a in xwb)
    expected = fp32(x.astype(np.float32), w.astype(np.float32), b.astype(np.float32), ctx)
    y = fp32(x, w, b, ctx)
    assert y.dtype == np.float32 and np.array_equal(y, expected)


def test_float16_stays_float16(ctx, xwb):
    """A float16 x is an f16 tensor, and the result float16 (out_dtype chooses otherwise:
    test_tensor_formats.py); float16 weights are read as float32."""
    x, w, b = (a.astype(np.float16) for a in xwb)
    expected = fp32(x.astype(np.float32), w.astype(np.float32), b.astype(np.float32), ctx)
    y = fp32(x, w, b, ctx)
    assert y.dtype == np.float16
    assert np.linalg.norm(y.astype(np.float64) - expected) <= 1e-3 * np.linalg.norm(expected)


@pytest.mark.parametrize("layout", ["fortran", "transposed", "strided", "reversed"])
def test_any_layout_is_copied_to_c_order(ctx, rng, xwb, layout):
    x, w, b = xwb
    if layout == "fortran":
        xv = np.asfortranarray(x)
    elif layout == "transposed":  # the same values, reached through a transposed view
        xv = np.ascontiguousarray(x.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    elif layout == "strided":
        big = uniform(rng, (2, 8, 18, 8))
        big[:, ::2, ::2] = x
        xv = big[:, ::2, ::2]
    else:
        xv = np.ascontiguousarray(x[:, :, ::-1, ::-1])[:, :, ::-1, ::-1]
    assert not xv.flags["C_CONTIGUOUS"] and np.array_equal(xv, x)
    assert np.array_equal(fp32(xv, w, b, ctx), fp32(x, w, b, ctx))
    wv = np.asfortranarray(w)
    assert np.array_equal(fp32(x, wv, b[::-1].copy()[::-1], ctx), fp32(x, w, b, ctx))


class OnlyDLPack:
    """An array that speaks nothing but DLPack."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_dlpack_objects_are_accepted(ctx, xwb):
    x, w, b = xwb
    assert np.array_equal(fp32(OnlyDLPack(x), OnlyDLPack(w), OnlyDLPack(b), ctx), fp32(x, w, b, ctx))


def test_torch_cpu_tensors(ctx, xwb):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed here")
    x, w, b = xwb
    y = vkconv.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=1, precision="fp32",
                      context=ctx)
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).double(), torch.from_numpy(w).double(),
                                     torch.from_numpy(b).double(), padding=1).numpy()
    assert np.linalg.norm(y - ref) / np.linalg.norm(ref) <= 1e-5
    with pytest.raises(vkconv.ArgumentError, match=r"detach"):
        vkconv.conv2d(torch.from_numpy(x).requires_grad_(), torch.from_numpy(w), context=ctx)


def bad_inputs(rng):
    x, w, b = uniform(rng, (2, 4, 9, 8)), uniform(rng, (6, 4, 3, 3)), uniform(rng, 6)
    return [
        # (what, call kwargs, expected message pattern)
        ("int dtype", dict(x=x.astype(np.int32), w=w), r"x\.dtype = int32: expected a floating-point array"),
        ("bool dtype", dict(x=x, w=w > 0), r"w\.dtype = bool"),
        ("complex dtype", dict(x=x.astype(np.complex64), w=w), r"x\.dtype = complex64"),
        ("list", dict(x=x.tolist(), w=w), r"type\(x\) = list: expected an array"),
        ("None", dict(x=None, w=w), r"type\(x\) = NoneType"),
        ("string", dict(x=x, w="weights"), r"type\(w\) = str"),
        ("2-D x", dict(x=x[0, 0], w=w), r"x\.shape = \(9, 8\): expected 4 dimensions"),
        ("0-d x", dict(x=np.float32(1.0), w=w), r"type\(x\) = numpy\.float32|x\.shape = \(\)"),
        ("3-D w", dict(x=x, w=w[0]), r"w\.shape = \(4, 3, 3\): expected 4 dimensions"),
        ("channels", dict(x=x, w=uniform(rng, (6, 3, 3, 3))), r"w\.shape\[1\] \(in_channels/groups\) = 3"),
        ("bias shape", dict(x=x, w=w, b=uniform(rng, 5)), r"b\.shape = \(5,\): expected \(out_channels,\) = \(6,\)"),
        ("empty batch", dict(x=x[:0], w=w), r"batch = 0: must be >= 1"),
        ("groups", dict(x=x, w=w, groups=3), r"in_channels = 4: must be divisible by groups = 3"),
        ("groups 0", dict(x=x, w=w, groups=0), r"groups = 0: must be >= 1"),
        ("groups float", dict(x=x, w=w, groups=1.5), r"groups = 1\.5: expected an int"),
        ("stride 0", dict(x=x, w=w, stride=0), r"stride = 0: must be >= 1"),
        ("stride triple", dict(x=x, w=w, stride=(1, 2, 3)), r"stride = \(1, 2, 3\): expected an int or a pair"),
        ("stride bool", dict(x=x, w=w, stride=True), r"stride = True: expected an int or a pair"),
        ("stride str", dict(x=x, w=w, stride="2"), r"stride = '2': expected an int or a pair"),
        ("padding <0", dict(x=x, w=w, padding=-1), r"padding = -1: must be >= 0"),
        ("padding word", dict(x=x, w=w, padding="full"), r"padding = 'full': expected an int, a pair of ints, 'valid' or 'same'"),
        ("same + stride", dict(x=x, w=w, padding="same", stride=2), r"padding = 'same': needs stride 1"),
        ("dilation 0", dict(x=x, w=w, dilation=(1, 0)), r"dilation = \(1, 0\): must be >= 1"),
        ("kernel too big", dict(x=x, w=uniform(rng, (6, 4, 12, 3))), r"kernel_h = 12: dilated kernel height 12 is larger than the padded input height 9"),
        ("precision", dict(x=x, w=w, precision="half"), r"precision = half: expected fast, fp32 or precise"),
        ("huge stride", dict(x=x, w=w, stride=2**40), r"stride = 1099511627776|stride_h = 1099511627776: must be <="),
    ]


@pytest.mark.parametrize("case", range(len(bad_inputs(np.random.default_rng(0)))),
                         ids=[c[0] for c in bad_inputs(np.random.default_rng(0))])
def test_bad_input_raises_argument_error_naming_field_and_value(ctx, rng, case):
    what, kwargs, pattern = bad_inputs(rng)[case]
    kwargs.setdefault("precision", "fp32")
    with pytest.raises(vkconv.ArgumentError, match=pattern) as info:
        vkconv.conv2d(context=ctx, **kwargs)
    assert isinstance(info.value, ValueError) and isinstance(info.value, vkconv.Error)
    assert info.value.kind == "invalid_argument"


def test_same_padding_that_needs_asymmetric_padding_is_unsupported(ctx, rng):
    with pytest.raises(vkconv.Error, match=r"padding = 'same' with kernel 2x2") as info:
        vkconv.conv2d(uniform(rng, (1, 1, 5, 5)), uniform(rng, (1, 1, 2, 2)), padding="same", context=ctx)
    assert info.value.kind == "unsupported" and not isinstance(info.value, ValueError)


def test_conv2d_object_checks_its_inputs_too(ctx, rng):
    w = uniform(rng, (6, 4, 3, 3))
    with pytest.raises(vkconv.ArgumentError, match=r"b\.shape = \(2,\)"):
        vkconv.Conv2d(ctx, w, uniform(rng, 2))
    with pytest.raises(vkconv.ArgumentError, match=r"w\.shape\[0\] \(out_channels\) = 6: must be divisible by groups = 4"):
        vkconv.Conv2d(ctx, w, groups=4)
    conv = vkconv.Conv2d(ctx, w, precision="fp32")
    with pytest.raises(vkconv.ArgumentError, match=r"input_shape = None: this Conv2d has not been planned"):
        conv.describe()
    with pytest.raises(vkconv.ArgumentError, match=r"w\.shape\[1\] \(in_channels/groups\) = 4: expected x's channels / groups = 5"):
        conv(uniform(rng, (1, 5, 8, 8)))
    with pytest.raises(vkconv.ArgumentError, match=r"x\.dtype = int64"):
        conv(np.zeros((1, 4, 8, 8), np.int64))
    with pytest.raises(vkconv.ArgumentError, match=r"iterations = 0: must be >= 1"):
        conv.time(uniform(rng, (1, 4, 8, 8)), iterations=0)
    with pytest.raises(vkconv.ArgumentError, match=r"warmup_ms = -1: must be >= 0"):
        conv.time(uniform(rng, (1, 4, 8, 8)), warmup_ms=-1)
