#!/usr/bin/env bash
# On the GPU machine: the depthwise and small-group layers of the `layers` suite with the grouped
# direct kernel (issue 19). From the repository root, with a Release build in build-bench/ and
# .gl carried:
#   OUT=/some/folder bash scripts/gpu/depthwise.sh [bench|lab|torch|all]   (default: bench)
# bench: vkconv-bench on each layer under fast and fp32 (the heuristic's tile; the report's
#        x-floor is the time over the measured copy bandwidth's);
# lab:   kernel-lab over the heuristic's top LAB_LIMIT (default 60) grouped direct tiles of each
#        layer, fastest first, the best 3 checked against the CPU reference;
# torch: PyTorch/cuDNN on the same layers (TF32 and fp16 channels-last), if torch imports.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
if [[ -z "${VK_DRIVER_FILES:-}" && -d .gl && -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]]; then
  # shellcheck source=/dev/null
  source scripts/gpu/env.sh
fi
OUT="${OUT:-$PWD/bench-results}"
mkdir -p "$OUT"
BUILD="${BUILD:-build-bench}"
what="${1:-bench}"
# name and kernel-lab --shape N,C,H,W,K,R,stride,pad,groups of each layer (bench/shapes.json)
layers=(
  "mobilenet_dw_32_112 128,32,112,112,32,3,1,1,32"
  "mobilenet_dw_64_112_s2 128,64,112,112,64,3,2,1,64"
  "mobilenet_dw_512_14 512,512,14,14,512,3,1,1,512"
  "convnext_dw_96_56_7x7 128,96,56,56,96,7,1,3,96"
  "resnext_3x3_128_g32_56 128,128,56,56,128,3,1,1,32"
)
if [[ $what == bench || $what == all ]]; then
  for precision in fast fp32; do
    for l in "${layers[@]}"; do
      read -r name _ <<<"$l"
      "$BUILD/bench/vkconv-bench" --shapes bench/shapes.json --shape "$name" --precision "$precision" \
        --json "$OUT/dw_${name}_$precision.json" >"$OUT/dw_${name}_$precision.log" 2>&1
      echo "== $name $precision: $(grep -E "^ +config " "$OUT/dw_${name}_$precision.log" | cut -c1-90)"
      grep -E "median|WRONG|error" "$OUT/dw_${name}_$precision.log" | head -3
    done
  done
fi
if [[ $what == lab || $what == all ]]; then
  for l in "${layers[@]}"; do
    read -r name shape <<<"$l"
    "$BUILD/tools/kernel-lab/kernel-lab" --path fp32 --filter grouped-direct --shape "$shape" \
      --ranked --limit "${LAB_LIMIT:-60}" --iterations 20 >"$OUT/dw_lab_$name.log" 2>&1
    echo "== $name: kernel-lab, fastest 8 of $(grep -c ' ms .*plan' "$OUT/dw_lab_$name.log") tiles"
    grep " ms .*plan" "$OUT/dw_lab_$name.log" | sort -n | head -8
    sed -n '/== best/,$p' "$OUT/dw_lab_$name.log"
  done
fi
if [[ $what == torch || $what == all ]]; then
  names=$(for l in "${layers[@]}"; do read -r name _ <<<"$l"; printf "%s," "$name"; done)
  python3 bench/torch_conv_reference.py --shape "${names%,}" --modes tf32,fp16_channels_last \
    --json "$OUT/dw_torch.json" 2>&1 | tail -20
fi
