#!/usr/bin/env bash
# End-to-end check of the tuning workflow on whatever device the loader offers (lavapipe in CI):
# `vkconv sweep` on a small problem writes the tuning cache, and a following `vkconv run` of the
# same problem with the same cache folder uses it ("from the tuning cache"); --no-tuning-cache
# turns that off; a corrupt cache file is reported and then replaced by the next sweep.
#
#   bash tests/sweep_e2e.sh path/to/vkconv
set -euo pipefail
VKCONV=${1:?usage: sweep_e2e.sh path/to/vkconv}
CACHE=$(mktemp -d /tmp/vkconv-sweep-e2e-XXXXXX)
trap 'rm -rf "$CACHE"' EXIT
PROBLEM=(--batch 1 --in-channels 3 --height 32 --width 32 --out-channels 8 --kernel 3)
fail() { echo "sweep_e2e: FAIL: $*" >&2; exit 1; }

echo "== sweep"
"$VKCONV" sweep "${PROBLEM[@]}" --candidates 6 --cache-dir "$CACHE" --json "$CACHE/sweep.json" | tee "$CACHE/sweep.txt"
[[ -s "$CACHE/tuning.json" ]] || fail "the sweep wrote no $CACHE/tuning.json"
grep -q "decision:" "$CACHE/sweep.txt" || fail "the sweep printed no decision"
grep -q '"decision"' "$CACHE/sweep.json" || fail "the sweep's JSON has no decision"

echo "== run (uses the cache)"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 2 --explain | tee "$CACHE/run.txt"
grep -q "configuration from the tuning cache" "$CACHE/run.txt" || fail "run did not use the tuning cache"
grep -q "^plan:" "$CACHE/run.txt" || fail "run did not report the plan-creation time"
grep -q "^chosen: *from the tuning cache" "$CACHE/run.txt" || fail "--explain did not say why"

echo "== run --no-tuning-cache"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 0 --no-tuning-cache | tee "$CACHE/off.txt"
grep -q "configuration by heuristic (tuning cache off)" "$CACHE/off.txt" || fail "--no-tuning-cache was not honoured"

echo "== corrupt cache: reported, heuristic used, replaced by the next sweep"
echo "{ not json" > "$CACHE/tuning.json"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 0 > "$CACHE/corrupt.txt" 2> "$CACHE/corrupt.err"
grep -q "corrupt" "$CACHE/corrupt.err" || fail "no warning about the corrupt cache on stderr"
grep -q "configuration by heuristic" "$CACHE/corrupt.txt" || fail "a corrupt cache was trusted"
"$VKCONV" sweep "${PROBLEM[@]}" --nearby --cache-dir "$CACHE" > "$CACHE/nearby.txt" 2>&1 || { cat "$CACHE/nearby.txt"; fail "sweep --nearby failed"; }
grep -q "nearby configurations" "$CACHE/nearby.txt" || fail "sweep --nearby did not run the neighbourhood"
"$VKCONV" run "${PROBLEM[@]}" --cache-dir "$CACHE" --iterations 0 > "$CACHE/again.txt" 2>&1
grep -q "configuration from the tuning cache" "$CACHE/again.txt" || fail "the corrupt cache was not replaced"
echo "sweep_e2e: PASS"
