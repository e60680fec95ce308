#!/usr/bin/env bash
# End-to-end check of the tuning workflow on whatever device the loader offers (lavapipe in CI):
# `vkconv sweep` on a small problem writes the tuning cache, and a following `vkconv run` of the
# same problem with the same cache folder uses it ("from the tuning cache"); --no-tuning-cache
# turns that off; a corrupt cache file is reported, kept aside and replaced by the next sweep; two
# sweeps of different problems started at the same time both end up in the file.
#
#   bash tests/sweep_e2e.sh path/to/vkconv
#
# VKCONV_SWEEP_EXPECT_COOPMAT=1 (scripts/test.sh, Mesa 26): the sweep must measure and choose a
# cooperative-matrix configuration and the run must use it; 2 candidates, and the parts that are
# the same on every path (corrupt file, concurrent sweeps) are left to the host run.
set -euo pipefail
VKCONV=${1:?usage: sweep_e2e.sh path/to/vkconv}
COOPMAT=${VKCONV_SWEEP_EXPECT_COOPMAT:-0}
CACHE=$(mktemp -d /tmp/vkconv-sweep-e2e-XXXXXX)
trap 'rm -rf "$CACHE"' EXIT
PROBLEM=(--batch 1 --in-channels 3 --height 32 --width 32 --out-channels 8 --kernel 3)
CANDIDATES=6
[[ $COOPMAT == 1 ]] && CANDIDATES=2  # each cooperative-matrix pipeline takes lavapipe seconds
fail() { echo "sweep_e2e: FAIL: $*" >&2; exit 1; }

echo "== sweep"
"$VKCONV" sweep "${PROBLEM[@]}" --candidates $CANDIDATES --cache-dir "$CACHE" --json "$CACHE/sweep.json" | tee "$CACHE/sweep.txt"
[[ -s "$CACHE/tuning.json" ]] || fail "the sweep wrote no $CACHE/tuning.json"
grep -q "decision:" "$CACHE/sweep.txt" || fail "the sweep printed no decision"
grep -q '"decision"' "$CACHE/sweep.json" || fail "the sweep's JSON has no decision"
if [[ $COOPMAT == 1 ]]; then
  grep -q "^  chosen: *coopmat-f16 " "$CACHE/sweep.txt" || fail "the sweep did not choose a cooperative-matrix configuration"
fi

echo "== run (uses the cache)"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 2 --explain | tee "$CACHE/run.txt"
grep -q "configuration from the tuning cache" "$CACHE/run.txt" || fail "run did not use the tuning cache"
grep -q "^plan:" "$CACHE/run.txt" || fail "run did not report the plan-creation time"
grep -q "^chosen: *from the tuning cache" "$CACHE/run.txt" || fail "--explain did not say why"
if [[ $COOPMAT == 1 ]]; then
  grep -q "^path: *coopmat-f16" "$CACHE/run.txt" || fail "the run did not use the cooperative-matrix path"
fi

echo "== run --no-tuning-cache"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 0 --no-tuning-cache | tee "$CACHE/off.txt"
grep -q "configuration by heuristic (tuning cache off)" "$CACHE/off.txt" || fail "--no-tuning-cache was not honoured"
if [[ $COOPMAT == 1 ]]; then
  echo "sweep_e2e: PASS (cooperative matrices)"
  exit 0
fi

echo "== corrupt cache: reported, heuristic used, kept aside and replaced by the next sweep"
echo "{ not json" > "$CACHE/tuning.json"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 0 > "$CACHE/corrupt.txt" 2> "$CACHE/corrupt.err"
grep -q "corrupt" "$CACHE/corrupt.err" || fail "no warning about the corrupt cache on stderr"
grep -q "configuration by heuristic" "$CACHE/corrupt.txt" || fail "a corrupt cache was trusted"
"$VKCONV" sweep "${PROBLEM[@]}" --nearby --cache-dir "$CACHE" > "$CACHE/nearby.txt" 2>&1 || { cat "$CACHE/nearby.txt"; fail "sweep --nearby failed"; }
grep -q "nearby configurations" "$CACHE/nearby.txt" || fail "sweep --nearby did not run the neighbourhood"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 0 > "$CACHE/again.txt" 2>&1
grep -q "configuration from the tuning cache" "$CACHE/again.txt" || fail "the corrupt cache was not replaced"
grep -qx "{ not json" "$CACHE"/tuning.json.unreadable-* || fail "the corrupt file was not kept aside"

echo "== two sweeps of different problems at the same time, one cache folder"
CONCURRENT="$CACHE/concurrent"
mkdir -p "$CONCURRENT"
pids=()
for n in 2 3; do
  "$VKCONV" sweep --batch $n --in-channels 3 --height 16 --width 16 --out-channels 8 --kernel 3 --candidates 2 \
    --iterations 3 --cache-dir "$CONCURRENT" > "$CONCURRENT/sweep$n.txt" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a concurrent sweep failed: $(cat "$CONCURRENT"/sweep*.txt)"; done
for n in 2 3; do
  grep -q " N=$n C=3 H=16 W=16 K=8 " "$CONCURRENT/tuning.json" || fail "the sweep of batch $n is missing from the file"
done
echo "sweep_e2e: PASS"
