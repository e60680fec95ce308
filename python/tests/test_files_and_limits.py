"""No crash and no silent mistake from what a caller hands the module: JSON nested past any vkconv
format, arrays NumPy can make but vkconv cannot read, problems past the device's limits, folder
names holding NUL, and the first default_context() called from many threads at once."""
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vkconv


def test_deep_config_json_is_an_error_not_a_crash():
    for depth, words in ((10000, "nested more than"), (100000, "bytes, more than")):
        deep = "[" * depth + "]" * depth
        for text in (deep, '{"path": %s}' % deep):
            with pytest.raises(vkconv.Error) as info:
                vkconv.KernelConfig.from_json(text)
            assert words in str(info.value)
            assert len(str(info.value)) < 400


def test_tuning_cache_with_deep_entry_is_set_aside(ctx, tmp_path):
    problem = vkconv.ConvProblem.from_shapes((1, 4, 8, 8), (4, 4, 3, 3))
    key = "%s" % vkconv.device_key(ctx.device)
    deep = "[" * 100000 + "]" * 100000
    (tmp_path / "tuning.json").write_text(
        '{"format": "vkconv tuning cache", "version": 2, "devices": {"%s": {"entries": {"x": %s}}}}' % (key, deep))
    cache = vkconv.TuningCache(str(tmp_path))
    assert len(cache) == 0 and cache.notes and "nested more than" in cache.notes[0]
    # conv2d with that cache folder runs (the file is reported, not parsed into a crash).
    ctx2 = vkconv.Context(cache_dir=str(tmp_path))
    x = np.ones((1, 4, 8, 8), np.float32)
    w = np.ones((4, 4, 3, 3), np.float32)
    y = vkconv.conv2d(x, w, precision="fp32", context=ctx2)
    assert y.shape == (1, 4, 6, 6) and np.allclose(y, 36.0)
    config = vkconv.rank_configs(vkconv.Path.FP32, ctx.device, problem)[0].config
    cache.put(ctx.device, problem, vkconv.TuningEntry(config, 0.5))
    cache.save()
    assert list(tmp_path.glob("tuning.json.unreadable-*")), "the unreadable file was not kept"
    assert vkconv.TuningCache(str(tmp_path)).find(ctx.device, problem, vkconv.Path.FP32)[0] is not None


def test_tuning_cache_put_refuses_nan_and_invalid_problems(ctx, tmp_path):
    problem = vkconv.ConvProblem.from_shapes((1, 4, 8, 8), (4, 4, 3, 3))
    config = vkconv.rank_configs(vkconv.Path.FP32, ctx.device, problem)[0].config
    cache = vkconv.TuningCache(str(tmp_path))
    for ms in (math.nan, -1.0, math.inf):
        with pytest.raises(vkconv.ArgumentError, match="entry.ms"):
            cache.put(ctx.device, problem, vkconv.TuningEntry(config, ms))
    problem.stride_h = 0
    with pytest.raises(vkconv.ArgumentError, match="stride"):
        cache.put(ctx.device, problem, vkconv.TuningEntry(config, 0.5))
    assert len(cache) == 0


@pytest.mark.parametrize("make, words", [
    (lambda: np.ones((1, 2, 6, 6), ">f4"), "big-endian"),
    (lambda: np.ones((1, 2, 6, 6), object), "object array"),
])
def test_arrays_vkconv_cannot_read_are_named(ctx, make, words):
    w = np.ones((2, 2, 3, 3), np.float32)
    with pytest.raises(vkconv.ArgumentError) as info:
        vkconv.conv2d(make(), w, context=ctx)
    assert words in str(info.value) and "x.dtype" in str(info.value)


@pytest.mark.parametrize("case", ["padding", "broadcast"])
def test_problems_past_the_device_get_its_limit_not_memory_error(ctx, case):
    if case == "padding":
        x = np.ones((1, 1, 4, 4), np.float32)
        w = np.ones((1, 1, 1, 1), np.float32)
        kwargs = {"padding": 20000}
    else:
        # A broadcast view of 16 TiB that NumPy makes without memory: its float16 elements would be
        # converted before the problem was checked.
        x = np.broadcast_to(np.ones(1, np.float16), (1, 4, 2 ** 20, 2 ** 20))
        w = np.ones((4, 4, 1, 1), np.float32)
        kwargs = {}
    with pytest.raises(vkconv.Error) as info:
        vkconv.conv2d(x, w, precision="fp32", context=ctx, **kwargs)
    assert info.value.kind == "unsupported", str(info.value)
    assert "maxStorageBufferRange" in str(info.value) or "maxMemoryAllocationSize" in str(info.value), str(info.value)


def test_cache_dir_with_nul_is_refused():
    with pytest.raises(vkconv.ArgumentError, match="NUL"):
        vkconv.Context(cache_dir="/tmp/vkconv\0evil")
    with pytest.raises(vkconv.ArgumentError, match="NUL"):
        vkconv.TuningCache("/tmp/vkconv\0evil")


def test_default_context_is_made_once_across_threads():
    # A fresh interpreter, so that no earlier test made the default context yet.
    script = textwrap.dedent("""
        import threading, vkconv
        barrier = threading.Barrier(8)
        got = []
        def first_call():
            barrier.wait()
            got.append(vkconv.default_context())
        threads = [threading.Thread(target=first_call) for _ in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(len(got), len({id(c) for c in got}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["8", "1"], out.stdout + out.stderr
