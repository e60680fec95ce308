"""devices(), Context and profiles, and the tuning API (python/examples/sweep.py end to end)."""
import os
import sys

import numpy as np
import pytest

import vkconv
from reference import conv2d_reference, relative_error, uniform

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))


def test_devices_and_context(ctx):
    devices = vkconv.devices()
    assert devices and all(d.name for d in devices)
    assert ctx.device.name in [d.name for d in devices]
    assert ctx.device.index == devices[ctx.device.index].index
    assert vkconv.Context(device=ctx.device.index).device.name == ctx.device.name
    assert ctx.cache_dir == os.environ["VKCONV_CACHE_DIR"]
    # The limits the heuristic and the grouped kernel's uniform weights read; compute units are 0
    # where the driver reports none (lavapipe).
    assert all(d.max_uniform_buffer_range >= 16384 and d.compute_units >= 0 for d in devices)


def test_bad_context_arguments(ctx):
    with pytest.raises(vkconv.ArgumentError, match=r"device = 1000"):
        vkconv.Context(device=1000)
    with pytest.raises(vkconv.ArgumentError, match=r"device = -2"):
        vkconv.Context(device=-2)
    with pytest.raises(vkconv.ArgumentError, match=r"profile = nope: unknown; shipped profiles: .*mobile"):
        vkconv.Context(profile="nope")
    with pytest.raises(vkconv.ArgumentError, match=r"type\(context\) = str: expected a vkconv.Context"):
        vkconv.conv2d(np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 1, 1), np.float32), context="gpu")


@pytest.mark.parametrize("profile", ["vulkan-minimum", "mobile"])
def test_profiles_narrow_the_device_and_stay_correct(rng, profile):
    assert profile in vkconv.profiles()
    ctx = vkconv.Context(profile=profile)
    assert ctx.profile == profile
    if profile == "vulkan-minimum":
        assert ctx.device.max_uniform_buffer_range <= 16384
    x, w, b = uniform(rng, (2, 8, 10, 10)), uniform(rng, (16, 8, 3, 3)), uniform(rng, 16)
    conv = vkconv.Conv2d(ctx, w, b, padding=1, input_shape=x.shape)
    bound = vkconv.error_bound(conv.config().path)
    assert relative_error(conv(x), conv2d_reference(x, w, b, padding=1)) <= bound
    assert vkconv.can_implement(conv.config(), ctx.device, conv.problem()) == ""


def test_ranking_config_and_can_implement(ctx, rng):
    problem = vkconv.ConvProblem.from_shapes((1, 8, 12, 12), (16, 8, 3, 3), padding=1)
    assert problem.output_shape == [1, 16, 12, 12] and problem.bias
    path, why = vkconv.resolve_path("fp32", ctx.device, problem)
    assert path == vkconv.Path.FP32
    ranked = vkconv.rank_configs(path, ctx.device, problem)
    assert ranked and all(r.cost > 0 for r in ranked)
    assert all(vkconv.can_implement(r.config, ctx.device, problem) == "" for r in ranked[:5])
    w = uniform(rng, (16, 8, 3, 3))
    conv = vkconv.Conv2d(ctx, w, padding=1, precision="fp32", use_tuning_cache=False, input_shape=(1, 8, 12, 12))
    assert conv.config() == ranked[0].config
    # a forced configuration runs exactly that one
    forced = vkconv.Conv2d(ctx, w, padding=1, precision="fp32", config=ranked[1].config, input_shape=(1, 8, 12, 12))
    assert forced.config() == ranked[1].config and "configuration given by the caller" in forced.describe()
    x = uniform(rng, (1, 8, 12, 12))
    assert relative_error(forced(x), conv2d_reference(x, w, padding=1)) <= 1e-5
    # one that cannot run is refused with the reason
    bad = vkconv.KernelConfig.from_json(ranked[0].config.to_json())
    assert bad == ranked[0].config
    # the channels-last kernel's K order, fragment prefetch and split-K survive the tuning cache's JSON
    params = vkconv.ChannelsLastNhwcKernel()
    params.taps_inner, params.fragment_prefetch, params.split_k = True, True, 4
    taps = vkconv.KernelConfig()
    taps.path, taps.params = vkconv.Path.COOPMAT_F16, params
    assert taps.kernel == "channels-last-nhwc"
    back = vkconv.KernelConfig.from_json(taps.to_json())
    assert isinstance(back.params, vkconv.ChannelsLastNhwcKernel)
    assert back.params.taps_inner and back.params.fragment_prefetch and back.params.split_k == 4
    assert "split-k 4" in str(back)
    # a configuration holds its own kernel's fields only: another kernel's field is refused by name
    with pytest.raises(vkconv.Error, match="tm"):
        vkconv.KernelConfig.from_json(taps.to_json()[:-1] + ', "tm": 4}')
    # no split is 1, not 0
    params.split_k = 0
    zero = vkconv.KernelConfig()
    zero.path, zero.params = vkconv.Path.COOPMAT_F16, params
    assert "split" in vkconv.can_implement(zero, ctx.device, problem).lower()
    bad.bm = 7
    reason = vkconv.can_implement(bad, ctx.device, problem)
    assert reason
    with pytest.raises(vkconv.Error):
        vkconv.Conv2d(ctx, w, padding=1, config=bad, input_shape=(1, 8, 12, 12))
    assert vkconv.nearby_configs(ranked[0].config, ctx.device, problem)[0] == ranked[0].config
    # The pruned sweep's picks: from the ranking, each once, the first the heuristic's choice;
    # with no cap, the plain top N.
    picked = vkconv.sweep_candidates(ranked, 6)
    assert len(picked) == min(6, len(ranked)) and picked[0] == ranked[0].config
    assert all(sum(c == p for p in picked) == 1 for c in picked)
    assert all(any(c == r.config for r in ranked) for c in picked)
    assert vkconv.sweep_candidates(ranked, 4, per_tile=0) == [r.config for r in ranked[:4]]


def stats(rng, median, spread=0.001, n=20):
    return vkconv.summarize_times(list(median * (1 + spread * rng.uniform(-0.5, 0.5, n))))


def test_acceptance_rule(rng):
    slow, fast = stats(rng, 1.0), stats(rng, 0.9)
    first = vkconv.decide_acceptance(fast, slow)
    assert first.verdict == vkconv.Verdict.NEEDS_CONFIRMATION and first.gain == pytest.approx(0.1, abs=0.01)
    confirmed = vkconv.decide_acceptance(fast, slow, stats(rng, 0.9), stats(rng, 1.0))
    assert confirmed.accepted and confirmed.reason.startswith("accepted")
    assert vkconv.decide_acceptance(stats(rng, 0.99), slow).verdict == vkconv.Verdict.KEPT_NOT_FASTER
    unstable = vkconv.decide_acceptance(fast, slow, stats(rng, 0.9, spread=0.5), stats(rng, 1.0))
    assert unstable.verdict == vkconv.Verdict.KEPT_UNSTABLE and not unstable.accepted
    strict = vkconv.AcceptanceRule(min_gain=0.2)
    assert vkconv.decide_acceptance(fast, slow, rule=strict).verdict == vkconv.Verdict.KEPT_NOT_FASTER


def test_tuning_cache_round_trip(ctx, tmp_path):
    problem = vkconv.ConvProblem.from_shapes((1, 4, 8, 8), (4, 4, 3, 3))
    config = vkconv.rank_configs(vkconv.Path.FP32, ctx.device, problem)[2].config
    cache = vkconv.TuningCache(str(tmp_path))
    assert len(cache) == 0 and cache.find(ctx.device, problem, vkconv.Path.FP32)[0] is None
    cache.put(ctx.device, problem, vkconv.TuningEntry(config, 0.5, "", "accepted: by a test"))
    cache.save()
    entry, why_not = vkconv.TuningCache(str(tmp_path)).find(ctx.device, problem, vkconv.Path.FP32)
    assert entry.config == config and entry.ms == 0.5 and why_not == ""
    (tmp_path / "tuning.json").write_text("{ not json")
    broken = vkconv.TuningCache(str(tmp_path))
    assert len(broken) == 0 and broken.notes and "corrupt" in broken.notes[0]


def test_sweep_example_records_a_configuration_that_conv2d_then_uses(tmp_path, rng):
    if vkconv.Context().device.timestamp_period_ns <= 0:
        pytest.skip("the device has no compute-queue timestamps; the sweep times with them")
    import sweep
    ctx = vkconv.Context(cache_dir=str(tmp_path))
    problem = vkconv.ConvProblem.from_shapes((1, 8, 10, 10), (8, 8, 3, 3), bias=False, padding=1)
    result = sweep.sweep(ctx, problem, "fp32", candidates=3, warmup=1, iterations=5, log=lambda line: None)
    assert result["saved"] == str(tmp_path / "tuning.json") and result["chosen_ms"] > 0
    assert [r[1] for r in result["results"]] == ["ok"] * len(result["results"])
    entry, _ = vkconv.TuningCache(str(tmp_path)).find(ctx.device, problem, vkconv.Path.FP32)
    assert entry.config == result["chosen"] and entry.decision == result["decision"]
    w = uniform(rng, (8, 8, 3, 3))
    conv = vkconv.Conv2d(ctx, w, padding=1, precision="fp32", input_shape=(1, 8, 10, 10))
    assert conv.config() == result["chosen"] and "configuration from the tuning cache" in conv.describe()
