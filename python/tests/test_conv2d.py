"""vkconv.conv2d and vkconv.Conv2d against the float64 NumPy reference, on random problems."""
import numpy as np
import pytest

import vkconv
from reference import conv2d_reference, relative_error, uniform


def random_problem(seed):
    """A small random conv2d: groups (including depthwise), stride, padding, dilation, bias."""
    rng = np.random.default_rng(seed)
    kind = rng.integers(0, 4)
    if kind == 0:  # depthwise
        groups = int(rng.integers(2, 7))
        cg, kg = 1, int(rng.integers(1, 3))
    else:
        groups = int(rng.choice([1, 1, 2, 3]))
        cg, kg = int(rng.integers(1, 9)), int(rng.integers(1, 13))
    r, s = (int(v) for v in rng.integers(1, 6, 2))
    stride = tuple(int(v) for v in rng.integers(1, 4, 2))
    dilation = tuple(int(v) for v in rng.integers(1, 3, 2))
    padding = tuple(int(v) for v in rng.integers(0, 3, 2))
    extent = (dilation[0] * (r - 1) + 1, dilation[1] * (s - 1) + 1)
    h = max(1, extent[0] - 2 * padding[0]) + int(rng.integers(0, 12))
    w = max(1, extent[1] - 2 * padding[1]) + int(rng.integers(0, 12))
    return dict(x=(int(rng.integers(1, 4)), cg * groups, h, w), w=(kg * groups, cg, r, s),
                bias=bool(rng.random() < 0.7), stride=stride, padding=padding, dilation=dilation, groups=groups)


def arrays(rng, p):
    return uniform(rng, p["x"]), uniform(rng, p["w"]), (uniform(rng, p["w"][0]) if p["bias"] else None)


def geometry(p):
    return dict(stride=p["stride"], padding=p["padding"], dilation=p["dilation"], groups=p["groups"])


SEEDS = range(1, 11)


@pytest.mark.parametrize("precision", ["fp32", "fast"])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_problem_within_its_path_bound(ctx, seed, precision):
    p = random_problem(seed)
    rng = np.random.default_rng(1000 + seed)
    x, w, b = arrays(rng, p)
    conv = vkconv.Conv2d(ctx, w, b, precision=precision, input_shape=x.shape, **geometry(p))
    bound = vkconv.error_bound(conv.config().path)
    if precision == "fp32":
        assert conv.config().path == vkconv.Path.FP32
    # A first input, then a fresh one: the second result must be the second input's (a kernel that
    # left outputs unwritten would show the first one's values there).
    conv(uniform(rng, p["x"]))
    y = conv(x)
    err = relative_error(y, conv2d_reference(x, w, b, **geometry(p)))
    assert err <= bound, f"{p}: relative error {err:.3e} > bound {bound:.0e} ({conv.describe()})"


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_functional_conv2d_matches_reference(ctx, seed):
    p = random_problem(seed)
    x, w, b = arrays(np.random.default_rng(2000 + seed), p)
    y = vkconv.conv2d(x, w, b, precision="fp32", context=ctx, **geometry(p))
    assert y.dtype == np.float32 and y.flags["C_CONTIGUOUS"]
    err = relative_error(y, conv2d_reference(x, w, b, **geometry(p)))
    assert err <= 1e-5, f"{p}: relative error {err:.3e}"


def test_default_context_and_arguments_like_pytorch(rng):
    x, w, b = uniform(rng, (2, 4, 11, 9)), uniform(rng, (6, 2, 3, 2)), uniform(rng, 6)
    # ints and pairs, NumPy integers, keyword names as in torch.nn.functional.conv2d
    y = vkconv.conv2d(x, w, b, stride=(2, np.int64(1)), padding=[1, 0], dilation=(1, 2), groups=2, precision="fp32")
    ref = conv2d_reference(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    assert relative_error(y, ref) <= 1e-5
    assert vkconv.default_context() is vkconv.default_context()


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_padding_modes(ctx, rng, padding):
    x, w = uniform(rng, (1, 3, 10, 7)), uniform(rng, (5, 3, 3, 5))
    y = vkconv.conv2d(x, w, padding=padding, precision="fp32", context=ctx)
    ref = conv2d_reference(x, w, padding=padding)
    assert y.shape == ref.shape and relative_error(y, ref) <= 1e-5
    if padding == "same":
        assert y.shape[2:] == x.shape[2:]


def test_unbatched_input_gives_unbatched_output(ctx, rng):
    x, w, b = uniform(rng, (3, 9, 9)), uniform(rng, (4, 3, 3, 3)), uniform(rng, 4)
    y = vkconv.conv2d(x, w, b, padding=1, precision="fp32", context=ctx)
    assert y.shape == (4, 9, 9)
    assert relative_error(y, conv2d_reference(x, w, b, padding=1)) <= 1e-5
    conv = vkconv.Conv2d(ctx, w, b, padding=1, precision="fp32")
    assert np.array_equal(conv(x), y)


def test_fast_path_holds_its_bound_on_cooperative_matrices(ctx, rng):
    if not ctx.device.cooperative_matrix:
        pytest.skip(f"{ctx.device.name} has no VK_KHR_cooperative_matrix: fast runs the fp32 path "
                    "(test_fast_falls_back_to_fp32_without_cooperative_matrices)")
    x, w, b = uniform(rng, (2, 16, 12, 12)), uniform(rng, (32, 16, 3, 3)), uniform(rng, 32)
    conv = vkconv.Conv2d(ctx, w, b, padding=1, precision="fast", input_shape=x.shape)
    assert conv.config().path == vkconv.Path.COOPMAT_F16, conv.describe()
    assert relative_error(conv(x), conv2d_reference(x, w, b, padding=1)) <= 1e-3


def test_fast_falls_back_to_fp32_without_cooperative_matrices(ctx, rng):
    if ctx.device.cooperative_matrix:
        pytest.skip(f"{ctx.device.name} has cooperative matrices: fast runs on them "
                    "(test_fast_path_holds_its_bound_on_cooperative_matrices)")
    x, w, b = uniform(rng, (2, 16, 12, 12)), uniform(rng, (32, 16, 3, 3)), uniform(rng, 32)
    conv = vkconv.Conv2d(ctx, w, b, padding=1, precision="fast", input_shape=x.shape)
    assert conv.config().path == vkconv.Path.FP32
    assert "fast requested" in conv.describe() and "VK_KHR_cooperative_matrix" in conv.describe()
    assert relative_error(conv(x), conv2d_reference(x, w, b, padding=1)) <= 1e-5


def test_nan_input_gives_nan_output_not_a_crash(ctx, rng):
    x, w = uniform(rng, (1, 2, 6, 6)), uniform(rng, (3, 2, 3, 3))
    x[0, 0, 2, 2] = np.nan
    y = vkconv.conv2d(x, w, precision="fp32", context=ctx)
    assert np.isnan(y).any() and np.isfinite(y[:, :, 4:, 4:]).all()
