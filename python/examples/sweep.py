#!/usr/bin/env python3
"""Tune one conv2d problem from Python and record the winner in vkconv's tuning cache.

The loop of `vkconv sweep` (tools/vkconv/sweep_path.cpp), in a simpler form, on the module's
tuning API: the heuristic's top candidates, each kernel's best first, at most 3 of a workgroup
tile (rank_configs, sweep_candidates), each built with exactly that configuration
(Conv2d(config=...)), checked against the CPU reference on every image
(reference_conv2d, relative_error, error_bound) and timed with GPU timestamps after a warm-up
(Conv2d.time, summarize_times); then the acceptance rule (decide_acceptance) against the default
(the cache's entry, else the heuristic's choice), with the confirming second timing, and the
verdict stored (TuningCache.put, save). Every later Conv2d for this device, driver and problem
then uses the recorded configuration on its own. (The CLI also re-times the leaders in
interleaved rounds before it decides; use it for tuning that is recorded for good.)

    python3 sweep.py --input-shape 8,64,56,56 --weight-shape 64,64,3,3 --padding 1
    python3 sweep.py --input-shape 2,3,224,224 --weight-shape 96,3,11,11 --stride 4 --padding 2 --precision fp32
"""
import argparse
import sys

import numpy as np

import vkconv


def _problem_args(problem):
    return dict(stride=(problem.stride_h, problem.stride_w), padding=(problem.padding_h, problem.padding_w),
                dilation=(problem.dilation_h, problem.dilation_w), groups=problem.groups)


def _measure(ctx, problem, config, x, w, b, ref, warmup, iterations):
    """(status, error or relative error, TimingStats or None) of one configuration."""
    try:
        conv = vkconv.Conv2d(ctx, w, b, config=config, input_shape=x.shape, **_problem_args(problem))
        err = vkconv.relative_error(conv(x), ref)
        if not err <= vkconv.error_bound(config.path):
            return "wrong", f"relative error {err:.3e} > bound {vkconv.error_bound(config.path):.0e}", None
        return "ok", err, vkconv.summarize_times(conv.time(x, warmup, iterations))
    except vkconv.Error as e:
        return "failed", str(e), None


def _retime(ctx, problem, config, x, w, b, warmup, iterations):
    conv = vkconv.Conv2d(ctx, w, b, config=config, input_shape=x.shape, **_problem_args(problem))
    return vkconv.summarize_times(conv.time(x, warmup, iterations))


def sweep(ctx, problem, precision="fast", candidates=10, warmup=3, iterations=20, rule=None, seed=1, save=True,
          log=print):
    """Sweeps `problem` on ctx's device for the path `precision` resolves to. Returns a dict:
    path, default, chosen (KernelConfig), chosen_ms, decision (str), results (config, status, detail,
    TimingStats), saved (the tuning file, or None)."""
    rule = rule or vkconv.AcceptanceRule()
    device = ctx.device
    if device.timestamp_period_ns <= 0:
        raise vkconv.Error(f"device '{device.name}' has no compute-queue timestamps; the sweep times with them")
    path, why = vkconv.resolve_path(precision, device, problem)
    cache = vkconv.TuningCache(ctx.cache_dir)
    cached, why_not = cache.find(device, problem, path)
    ranked = vkconv.rank_configs(path, device, problem)
    if not ranked:
        raise vkconv.Error(f"no {vkconv.path_name(path)} configuration fits {device.name} for {problem}")
    default = cached.config if cached else ranked[0].config
    configs = [default] + [c for c in vkconv.sweep_candidates(ranked, candidates) if c != default]
    log(f"{vkconv.path_name(path)} ({why}); default {default} "
        f"({'tuning cache' if cached else 'heuristic'}{'; ' + why_not if why_not else ''}); {len(configs)} candidates")

    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, problem.input_shape).astype(np.float32)
    w = rng.uniform(-1, 1, problem.weight_shape).astype(np.float32)
    b = rng.uniform(-1, 1, problem.out_channels).astype(np.float32) if problem.bias else None
    ref = vkconv.reference_conv2d(problem, x, w, b)

    results = []
    for config in configs:
        status, detail, timing = _measure(ctx, problem, config, x, w, b, ref, warmup, iterations)
        results.append((config, status, detail, timing))
        log(f"  {status:6} {timing.median_ms if timing else float('nan'):9.4f} ms  {config}"
            + ("" if status == "ok" else f"  ({detail})"))
    ok = sorted((r for r in results if r[1] == "ok"), key=lambda r: r[3].median_ms)
    default_result = results[0]

    chosen, chosen_ms = default, 0.0
    if not ok:
        decision = "kept default: no configuration passed the reference check"
    elif default_result[1] != "ok":
        chosen, chosen_ms = ok[0][0], ok[0][3].median_ms
        decision = f"accepted: the default {default_result[1]} ({default_result[2]}); the fastest correct one replaces it"
    elif ok[0][0] == default:
        chosen_ms = default_result[3].median_ms
        decision = "kept default: it is the fastest configuration measured"
    else:
        best = ok[0]
        d = vkconv.decide_acceptance(best[3], default_result[3], rule=rule)
        default_again = best_again = None
        if d.verdict == vkconv.Verdict.NEEDS_CONFIRMATION:  # back to back: the default, then the candidate
            default_again = _retime(ctx, problem, default, x, w, b, warmup, iterations)
            best_again = _retime(ctx, problem, best[0], x, w, b, warmup, iterations)
            d = vkconv.decide_acceptance(best[3], default_result[3], best_again, default_again, rule)
        decision = d.reason
        if d.accepted:
            chosen, chosen_ms = best[0], (best_again or best[3]).median_ms
        else:
            chosen_ms = (default_again or default_result[3]).median_ms
    log(f"decision: {decision}\nchosen:   {chosen} ({chosen_ms:.4f} ms)")

    saved = None
    if save and chosen_ms > 0:
        cache.put(device, problem, vkconv.TuningEntry(chosen, chosen_ms, "", decision))
        cache.save()
        saved = cache.file
        log(f"saved:    {saved}")
    return dict(path=path, default=default, chosen=chosen, chosen_ms=chosen_ms, decision=decision,
                results=results, saved=saved)


def _ints(text):
    return tuple(int(v) for v in text.split(","))


def _int_or_pair(text):
    v = _ints(text)
    return v[0] if len(v) == 1 else v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input-shape", type=_ints, required=True, help="N,C,H,W")
    ap.add_argument("--weight-shape", type=_ints, required=True, help="K,C/groups,R,S")
    ap.add_argument("--no-bias", action="store_true")
    ap.add_argument("--stride", type=_int_or_pair, default=1)
    ap.add_argument("--padding", type=_int_or_pair, default=0)
    ap.add_argument("--dilation", type=_int_or_pair, default=1)
    ap.add_argument("--groups", type=int, default=1)
    ap.add_argument("--precision", default="fast", choices=["fast", "fp32"])
    ap.add_argument("--candidates", type=int, default=10,
                    help="candidates in the heuristic's order, each kernel's best first, at most 3 of a tile (default 10)")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", type=int, default=None)
    ap.add_argument("--cache-dir", default=None, help="tuning cache folder (default: VKCONV_CACHE_DIR, ...)")
    ap.add_argument("--no-save", action="store_true")
    a = ap.parse_args(argv)
    ctx = vkconv.Context(device=a.device, cache_dir=a.cache_dir)
    problem = vkconv.ConvProblem.from_shapes(a.input_shape, a.weight_shape, bias=not a.no_bias, stride=a.stride,
                                             padding=a.padding, dilation=a.dilation, groups=a.groups)
    print(f"device:   {ctx.device.name}\nproblem:  {problem}")
    r = sweep(ctx, problem, a.precision, a.candidates, a.warmup, a.iterations, save=not a.no_save)
    return 0 if r["chosen_ms"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
