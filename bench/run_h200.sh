#!/usr/bin/env bash
# The GPU benchmark run. From the repository root, with a Release build in build-bench/:
#   OUT=/some/folder bash bench/run_h200.sh
# Runs vkconv-bench on alexnet1 (fast and fp32) and the layers suite (fast, then fp32), the
# PyTorch baseline if torch imports, and prints a compact summary table last. Every step's
# full output is kept in $OUT/<step>.log and its figures in $OUT/<step>.json.
# The whole run stays within BENCH_BUDGET_S seconds (default 540): each step gets at most its own
# cap and what is left, so the summary is always printed; a step cut short keeps the results it
# had (the JSON files are rewritten after every shape).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

OUT="${OUT:-$PWD/bench-results}"
BIN="${VKCONV_BENCH:-build-bench/bench/vkconv-bench}"
SHAPES=bench/shapes.json
BUDGET="${BENCH_BUDGET_S:-540}"
mkdir -p "$OUT"
status=0

# The GPU machine has NVIDIA's Vulkan driver but no loader: unpack the carried one (.gl/, see
# scripts/gpu/env.sh) unless the caller has already done so. Only there (where NVIDIA's ICD file
# is): on any other machine this would unpack packages into /.
if [[ -z "${VK_DRIVER_FILES:-}" && -d .gl && -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]]; then
  # shellcheck source=/dev/null
  source scripts/gpu/env.sh
fi

if [[ ! -x "$BIN" ]]; then
  echo "no benchmark binary at $BIN: build with cmake -S . -B build-bench -G Ninja && cmake --build build-bench"
  exit 2
fi

# step NAME CAP_SECONDS COMMAND...: runs COMMAND with stdout+stderr to $OUT/NAME.log.
step() {
  local name=$1 cap=$2
  shift 2
  local left=$((BUDGET - SECONDS - 15))   # keep 15 s for the summary
  if ((left < 20)); then
    echo "=== $name: skipped (time budget spent)"
    status=1
    return
  fi
  local limit=$((cap < left ? cap : left))
  local start=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  local verdict="ok"
  ((rc == 124)) && verdict="TIMED OUT after ${limit} s (partial results kept)"
  ((rc != 0 && rc != 124)) && verdict="exit $rc"
  ((rc != 0)) && status=1
  echo "=== $name: $verdict in $((SECONDS - start)) s"
  grep -E "^(device|copy bandwidth|copy size)|WRONG|unsupported:|failed:|not timed|^torch " \
    "$OUT/$name.log" | head -n 8
}

step vkconv_alexnet1_fast 90 "$BIN" --shapes "$SHAPES" --suite alexnet1 --precision fast \
  --json "$OUT/vkconv_alexnet1_fast.json"
step vkconv_alexnet1_fp32 90 "$BIN" --shapes "$SHAPES" --suite alexnet1 --precision fp32 \
  --json "$OUT/vkconv_alexnet1_fp32.json"
step vkconv_layers_fast 180 "$BIN" --shapes "$SHAPES" --suite layers --precision fast \
  --json "$OUT/vkconv_layers_fast.json"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  step torch 200 python3 bench/torch_conv_reference.py --shapes "$SHAPES" --suite alexnet1,layers \
    --modes fp32,fp32_channels_last,tf32,fp16_channels_last --json "$OUT/torch.json"
else
  echo "=== torch: skipped (python3 cannot import torch with CUDA)"
fi
step vkconv_layers_fp32 150 "$BIN" --shapes "$SHAPES" --suite layers --precision fp32 \
  --json "$OUT/vkconv_layers_fp32.json"

echo
echo "=== summary (all figures in $OUT)"
if command -v python3 >/dev/null; then
  python3 bench/summarize_results.py "$OUT" || status=1
else
  for f in "$OUT"/vkconv_*.log; do sed -n '/^name /,$p' "$f"; done
fi
exit $status
