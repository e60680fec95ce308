"""torch.nn.functional.conv2d in float64 NumPy: the tests' ground truth, independent of vkconv."""
import numpy as np


def pair(v):
    return (v, v) if isinstance(v, (int, np.integer)) else tuple(v)


def conv2d_reference(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """x: (N, C, H, W) or (C, H, W); w: (K, C/groups, R, S); b: (K,) or None. Zero padding on both
    sides (padding may be 'valid' or 'same'); output size (H + 2p - d(R-1) - 1) // s + 1; input
    channel group g feeds output channels [g K/groups, (g+1) K/groups)."""
    unbatched = x.ndim == 3
    x = np.asarray(x, np.float64)[None] if unbatched else np.asarray(x, np.float64)
    w = np.asarray(w, np.float64)
    (sh, sw), (dh, dw) = pair(stride), pair(dilation)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    if padding == "valid":
        padding = 0
    elif padding == "same":
        padding = (dh * (r - 1) // 2, dw * (s - 1) // 2)
    ph, pw = pair(padding)
    assert cg * groups == c and k % groups == 0
    oh = (h + 2 * ph - dh * (r - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (s - 1) - 1) // sw + 1
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    out = np.zeros((n, k, oh, ow))
    kg = k // groups
    for g in range(groups):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * kg:(g + 1) * kg]
        for i in range(r):
            for j in range(s):
                patch = xg[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, g * kg:(g + 1) * kg] += np.einsum("nchw,kc->nkhw", patch, wg[:, :, i, j])
    if b is not None:
        out += np.asarray(b, np.float64)[None, :, None, None]
    return out[0] if unbatched else out


def relative_error(out, ref):
    """||out - ref|| / ||ref||; infinity if out has a NaN or an infinity (NaN never passes)."""
    out = np.asarray(out, np.float64)
    if out.shape != ref.shape:
        raise AssertionError(f"shape {out.shape} != reference shape {ref.shape}")
    if not np.all(np.isfinite(out)):
        return np.inf
    norm = np.linalg.norm(ref)
    return np.linalg.norm(out - ref) / norm if norm > 0 else np.linalg.norm(out)


def uniform(rng, shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)
