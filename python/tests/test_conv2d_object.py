"""vkconv.Conv2d used as a planned convolution: reuse, memory, input shapes, threads, timing."""
import gc
import os
import threading
import time

import numpy as np
import pytest

import vkconv
from reference import conv2d_reference, relative_error, uniform


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_reused_100_times_gives_identical_results_and_does_not_grow_memory(ctx, rng):
    # 256 KiB of output per call: leaking the result (or a staging buffer) of each call would grow
    # memory by 25 MiB over the 100 calls, far over the tolerance.
    x, w, b = uniform(rng, (4, 16, 32, 32)), uniform(rng, (16, 16, 3, 3)), uniform(rng, 16)
    conv = vkconv.Conv2d(ctx, w, b, padding=1, precision="fp32", input_shape=x.shape)
    first = conv(x)
    assert relative_error(first, conv2d_reference(x, w, b, padding=1)) <= 1e-5
    for _ in range(10):  # warm-up: allocator pools, staging buffers
        conv(x)
    gc.collect()
    before = rss_bytes()
    for i in range(100):
        y = conv(x)
        assert np.array_equal(y, first), f"call {i} differs from the first"
    del y
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 4 * 2**20, f"resident memory grew by {grown / 2**20:.1f} MiB over 100 calls"
    assert conv.planned_shapes == 1


def test_each_input_shape_is_planned_and_at_most_four_are_kept(ctx, rng):
    w, b = uniform(rng, (5, 3, 3, 3)), uniform(rng, 5)
    conv = vkconv.Conv2d(ctx, w, b, stride=2, precision="fp32")
    for n, h in [(1, 7), (2, 7), (1, 9), (3, 8), (1, 10), (2, 7)]:
        x = uniform(rng, (n, 3, h, h))
        assert relative_error(conv(x), conv2d_reference(x, w, b, stride=2)) <= 1e-5
        assert conv.problem().input_shape == [n, 3, h, h]
    assert conv.planned_shapes == 4
    assert "fp32" in conv.describe((1, 3, 7, 7)) and conv.planned_shapes == 4


def test_threads_share_one_conv2d(ctx, rng):
    w, b = uniform(rng, (8, 4, 3, 3)), uniform(rng, 8)
    conv = vkconv.Conv2d(ctx, w, b, padding=1, precision="fp32")
    inputs = [uniform(rng, (2, 4, 10, 10)) for _ in range(4)]
    expected = [conv(x) for x in inputs]
    errors = []

    def work(i):
        try:
            for _ in range(5):
                if not np.array_equal(conv(inputs[i]), expected[i]):
                    errors.append(f"thread {i}: wrong result")
        except Exception as e:  # reported below, with the thread
            errors.append(f"thread {i}: {e!r}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_time_returns_gpu_times(ctx, rng):
    if ctx.device.timestamp_period_ns <= 0:
        pytest.skip(f"{ctx.device.name} has no compute-queue timestamps")
    x, w = uniform(rng, (1, 4, 12, 12)), uniform(rng, (4, 4, 3, 3))
    conv = vkconv.Conv2d(ctx, w, precision="fp32")
    times = conv.time(x, warmup=1, iterations=5)
    assert len(times) == 5 and all(t > 0 for t in times)
    stats = vkconv.summarize_times(times)
    assert stats.runs == 5 and stats.min_ms <= stats.median_ms <= stats.max_ms


def test_weights_are_copied(ctx, rng):
    x, w = uniform(rng, (1, 2, 6, 6)), uniform(rng, (3, 2, 3, 3))
    conv = vkconv.Conv2d(ctx, w, precision="fp32")
    expected = conv2d_reference(x, w)
    w[:] = 0
    assert relative_error(conv(x), expected) <= 1e-5


def test_conv2d_keeps_its_context_alive(rng):
    x, w = uniform(rng, (1, 2, 6, 6)), uniform(rng, (3, 2, 3, 3))
    conv = vkconv.Conv2d(vkconv.Context(), w, precision="fp32")
    gc.collect()
    assert relative_error(conv(x), conv2d_reference(x, w)) <= 1e-5
    assert isinstance(conv.context, vkconv.Context)


def test_the_gil_is_released_while_the_device_works(ctx, rng):
    # While one thread waits for a long convolution, this one keeps running Python: the longest
    # pause it sees must be far shorter than the call (holding the GIL would pause it throughout).
    x, w = uniform(rng, (8, 32, 48, 48)), uniform(rng, (32, 32, 3, 3))
    conv = vkconv.Conv2d(ctx, w, padding=1, precision="fp32", input_shape=x.shape)
    conv(x)
    done, seconds = threading.Event(), []

    def work():
        t0 = time.perf_counter()
        conv(x)
        seconds.append(time.perf_counter() - t0)
        done.set()

    thread = threading.Thread(target=work)
    last = time.perf_counter()
    longest = 0.0
    thread.start()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    thread.join()
    if seconds[0] < 0.05:
        pytest.skip(f"the call took {seconds[0] * 1e3:.1f} ms: too short to tell a held GIL from a released one")
    assert longest < seconds[0] / 2, f"this thread paused {longest:.3f} s during a {seconds[0]:.3f} s call"
