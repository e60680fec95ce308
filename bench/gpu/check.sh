#!/usr/bin/env bash
# The GPU check: runs vkconv's test suite under the Khronos validation layer, the benchmarks and
# PyTorch's baseline on the GPU machine, from binaries built elsewhere and carried there
# (bench/gpu/README.md says how); builds only the Python module (--python). From the repository root:
#
#   bash bench/gpu/check.sh [STEP...] [--budget S] [--build DIR] [--bench-suite NAME[,NAME...]] [--bench-batch N]
#                           [--test-filter F] [--dry-run]
#
# Steps (none named: --tests --bench):
#   --tests           vkconv_tests with VK_LAYER_KHRONOS_validation required (CI=1,
#                     VKCONV_PORTABILITY_VALIDATION=1): a missing layer or any validation message
#                     fails; then the CLI test (tests/cli/test_cli.py) if python3 has NumPy
#   --bench           vkconv-bench: alexnet1 and the `layers` suite (or --bench-suite's), fast and
#                     fp32; PyTorch's conv2d on the same shapes (bench/torch_conv_reference.py)
#                     when torch imports with CUDA (--no-torch leaves it out)
#   --sweep [ARG...]  `vkconv sweep ARG...` (default --suite alexnet1); what it accepts goes into
#                     the check's own tuning cache, which later --run steps use
#   --lab ARG...      `kernel-lab ARG...`
#   --run ARG...      `vkconv run ARG...`
#   --twin NAME ARG... a CUDA twin of a vkconv kernel, bench/gpu/twins/NAME.cu (convnext_dw7: the
#                     grouped direct kernel, ARG ROWS TILE_H; resnext_g4: the same kernel on
#                     4-channel groups, ARG ROWS VEC_W THREADS_W THREADS_H [WSRC [KT]]; conv3x3_mma: the
#                     channels-last kernel, ARG VARIANT), built with nvcc there, timed, then once under Nsight
#                     Compute, whose hardware counters Vulkan dispatches do not give
#   --python          the Python module: built here, library and module together from the
#                     sources, with the compiler, glslang, headers and nanobind of the carried
#                     BUILD/python-bundle (a module must be built with the Python, and the C++
#                     toolchain, it runs with); then python/bench_torch.py against PyTorch
#   --sweep, --lab, --run and --twin take every argument up to the next `--` or the end, and may be
#   repeated: `--lab --batch 64 --filter "breg tiles" -- --lab --batch 512 --filter "breg tiles"`.
# Options:
#   --budget S        wall-clock seconds for the whole check (default 540): each step gets at most
#                     its own cap and what is left, so the summary always prints inside the device
#                     tool's 600 s; a step cut short keeps what it wrote
#   --build DIR       the Release build folder carried along (default build-gpu)
#   --bench-suite NAME[,NAME...]
#                     the bench/shapes.json suites --bench times beside alexnet1 (default layers;
#                     resnet50_batch32: ResNet-50's convolutions at a training batch;
#                     resnet50_batch1: the same at batch 1, inference; vgg16_batch32,
#                     mobilenet_batch32, resnext50_batch32, convnext_t_batch32: VGG-16's,
#                     MobileNet v1's, ResNeXt-50's and ConvNeXt-T's at batch 32)
#   --bench-batch N   --bench times the suite at N images a shape, vkconv and PyTorch alike, and
#                     leaves alexnet1 out (resnet50_batch32 at 8: ResNet-50 at batch 8)
#   --bench-epilogue FLAGS
#                     --bench also times each suite, fast, with these epilogue flags (e.g.
#                     "--activation relu --residual") right after the plain run: what the fused
#                     epilogue costs over conv + bias (vkconv_SUITE_fast_epilogue.json); and
#                     PyTorch's relu(conv + b + z), eager and cuDNN-fused (torch_epilogue.json)
#   --bench-tensors FLAGS
#                     --bench also times alexnet1 and each suite, fast, with these tensor flags
#                     (e.g. "--dtype f16 --layout nhwc"), with and without --bench-epilogue's flags:
#                     vkconv_SUITE_fast_tensors.json, vkconv_SUITE_fast_tensors_epilogue.json; the
#                     summary compares them with PyTorch's fp16_channels_last
#   --bench-precise   --bench also times alexnet1 and each suite with --precision precise (fp32
#                     accuracy on the matrix units); the summary compares it with PyTorch's strict fp32
#   --bench-network   vkconv-bench --network resnet50 at batch 32 and 1 (fp16 NHWC, one recorded
#                     submission) and bench/torch_resnet50.py (PyTorch's trunk eager, as a CUDA
#                     graph and compiled) in the same run
#   --compare DIR     --bench also times DIR/bench/vkconv-bench (another build, carried beside this
#                     one), fast precision, each suite right after this build's: before/after
#                     ratios from one run on one machine (before_*.json, in results.tgz)
#   --test-filter F   --gtest_filter for the suite (default: all of it)
#   --dry-run         print the steps and their commands, run nothing
#
# Under $OUT (default /tmp/vkconv-check-results) it leaves: summary.txt (the table printed last),
# results.tgz (every log, the JSON files, nvidia-smi.csv) and json/ (the suite's and the
# benchmarks' JSON files): at most 8 files, as the device tool returns. While it runs,
# nvidia-smi logs the SM and memory clocks, power state, temperature and power every 500 ms.
# Exit status 0 only if every step ran to the end and passed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2

die() { echo "check.sh: $*" >&2; exit 2; }
ARGS="$*"

TESTS=0 BENCH=0 TORCH=1 PYTHON=0 DRY=0
BUDGET=540 BUILD=build-gpu TEST_FILTER="" BENCH_SUITE=layers BENCH_BATCH=0 COMPARE="" EPILOGUE="" TENSORS="" NETWORK=0 PRECISE=0
EXTRA=()   # "KIND ARGS" per --sweep/--lab/--run/--twin, ARGS quoted with printf %q
while (($#)); do
  case "$1" in
    --tests) TESTS=1 ;;
    --bench) BENCH=1 ;;
    --no-torch) TORCH=0 ;;
    --python) PYTHON=1 ;;
    --sweep | --lab | --run | --twin)
      kind=${1#--}
      shift
      args=()
      while (($#)) && [[ "$1" != "--" ]]; do args+=("$1"); shift; done
      [[ $kind == sweep && ${#args[@]} == 0 ]] && args=(--suite alexnet1)
      [[ $kind == twin && ! -f bench/gpu/twins/${args[0]:-}.cu ]] &&
        die "--twin needs a twin's name, bench/gpu/twins/NAME.cu (got '${args[0]:-}')"
      quoted=""
      ((${#args[@]})) && printf -v quoted '%q ' "${args[@]}"
      EXTRA+=("$kind $quoted")
      ;;
    --budget) [[ "${2:-}" =~ ^[0-9]+$ ]] || die "--budget needs whole seconds, got '${2:-}'"; BUDGET=$2; shift ;;
    --build) [[ -n "${2:-}" ]] || die "--build needs a folder"; BUILD=${2%/}; shift ;;
    --compare) [[ -n "${2:-}" ]] || die "--compare needs a folder"; COMPARE=${2%/}; shift ;;
    --bench-epilogue) [[ -n "${2:-}" ]] || die "--bench-epilogue needs flags"; EPILOGUE=$2; shift ;;
    --bench-tensors) [[ -n "${2:-}" ]] || die "--bench-tensors needs flags"; TENSORS=$2; shift ;;
    --bench-network) NETWORK=1 ;;
    --bench-precise) PRECISE=1 ;;
    --test-filter) [[ -n "${2:-}" ]] || die "--test-filter needs a pattern"; TEST_FILTER=$2; shift ;;
    --bench-suite) [[ "${2:-}" =~ ^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$ ]] || die "--bench-suite needs suite names (a,b,...), got '${2:-}'"
      BENCH_SUITE=$2; shift ;;
    --bench-batch) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--bench-batch needs a whole number of images, got '${2:-}'"
      BENCH_BATCH=$2; shift ;;
    --dry-run) DRY=1 ;;
    -h | --help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
  (($#)) && shift
done
((TESTS || BENCH || NETWORK || PYTHON || ${#EXTRA[@]})) || { TESTS=1; BENCH=1; }
((BUDGET <= 570)) || echo "check.sh: warning: --budget $BUDGET leaves under 30 s of the device tool's 600 for starting and packing"

OUT=${OUT:-${TMPDIR:-/tmp}/vkconv-check-results}   # outside the tree, which travels
R=$(mktemp -d "${TMPDIR:-/tmp}/vkconv-check.XXXXXX") || die "cannot make a scratch folder"
SMI_PID=""                  # the background nvidia-smi
trap '[[ -n $SMI_PID ]] && kill "$SMI_PID" 2>/dev/null; rm -rf "$R"' EXIT
RESERVE=25                  # seconds kept for the summary and the archive
STATUS=0

TESTS_BIN=$BUILD/tests/vkconv_tests
CLI_BIN=$BUILD/tools/vkconv/vkconv
BENCH_BIN=$BUILD/bench/vkconv-bench
LAB_BIN=$BUILD/tools/kernel-lab/kernel-lab
SHAPES=bench/shapes.json

# ---------------------------------------------------------------- Vulkan on the GPU machine
# It has NVIDIA's driver and ICD but no Vulkan loader: the loader's Debian packages are carried in
# .gl/ and unpacked into / (../shared/gpu/README.md). The validation layer's package, in
# .gl/layers/, is unpacked into a scratch folder instead and found through VK_LAYER_PATH and
# LD_LIBRARY_PATH (its manifest names the library without a path). Elsewhere (a developer's
# machine, lavapipe) this machine's own loader, drivers and layers are used.
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
LAYER_ROOT=$R/layers
vulkan_env() {
  if [[ ! -f $NVIDIA_ICD ]]; then
    echo "vulkan: no $NVIDIA_ICD: this machine's own loader, drivers and layers"
    return
  fi
  compgen -G ".gl/*.deb" >/dev/null || die "no .gl/*.deb: carry .gl (bench/gpu/README.md)"
  for f in .gl/*.deb; do dpkg -x "$f" / || die "dpkg -x $f failed"; done
  ldconfig
  export VK_DRIVER_FILES=$NVIDIA_ICD
  if compgen -G ".gl/layers/*.deb" >/dev/null; then
    for f in .gl/layers/*.deb; do dpkg -x "$f" "$LAYER_ROOT" || die "dpkg -x $f failed"; done
    export VK_LAYER_PATH=$LAYER_ROOT/usr/share/vulkan/explicit_layer.d
    export LD_LIBRARY_PATH=$LAYER_ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "vulkan: NVIDIA ICD, carried loader; validation layer from" .gl/layers/*.deb
    # A layer that cannot load reads as "not installed" to the tests: say why here.
    local unmet
    unmet=$(ldd "$LAYER_ROOT/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so" 2>&1 | grep -i "not found")
    [[ -z $unmet ]] || echo "vulkan: the validation layer cannot load here: $unmet"
  else
    echo "vulkan: NVIDIA ICD, carried loader; no .gl/layers/*.deb, so no validation layer (the suite will fail)"
  fi
}

# ---------------------------------------------------------------- steps
# step NAME CAP COMMAND...: runs COMMAND with its output in $R/NAME.log, for at most CAP seconds
# and what the budget has left; records NAME, verdict and times in $R/steps.tsv.
step() {
  local name=$1 cap=$2
  shift 2
  if ((DRY)); then
    printf '%-20s cap %3d s:' "$name" "$cap"
    printf ' %q' "$@"
    echo
    return 0
  fi
  local left=$((BUDGET - SECONDS - RESERVE))
  if ((left < 15)); then
    echo "=== $name: skipped (time budget spent)"
    printf '%s\tskipped (time budget spent)\t-\t-\t-\n' "$name" >>"$R/steps.tsv"
    STATUS=1
    return 1
  fi
  local limit=$((cap < left ? cap : left)) start=$SECONDS t0
  t0=$(date +%s.%N)
  timeout -k 5 "$limit" "$@" >"$R/$name.log" 2>&1
  local rc=$? verdict=ok
  ((rc == 124 || rc == 137)) && verdict="TIMED OUT after $limit s (what it wrote is kept)"
  ((rc != 0 && rc != 124 && rc != 137)) && verdict="FAILED (exit $rc)"
  ((rc != 0)) && STATUS=1
  printf '%s\t%s\t%d\t%s\t%s\n' "$name" "$verdict" "$((SECONDS - start))" "$t0" "$(date +%s.%N)" >>"$R/steps.tsv"
  echo "=== $name: $verdict in $((SECONDS - start)) s"
  grep -aE "^(device|copy bandwidth)|WRONG|unsupported:|failed:|error:|not timed|^torch |^\[  (PASSED|FAILED|SKIPPED) |validation layer:" \
    "$R/$name.log" | head -n 8
  return $rc
}

need() {  # need FILE...: every binary a step runs must have been carried (a dry run only warns)
  local f
  for f in "$@"; do
    [[ -x $f ]] && continue
    echo "=== missing $f: build it here and carry $BUILD (bench/gpu/README.md)"
    ((DRY)) && continue
    STATUS=1
    return 1
  done
}

run_tests() {
  need "$TESTS_BIN" || return
  local filter=()
  [[ -n $TEST_FILTER ]] && filter=("--gtest_filter=$TEST_FILTER")
  # The tests' own caches, never a user's (a tuning cache would change the configurations run).
  step tests 450 env CI=1 VKCONV_PORTABILITY_VALIDATION=1 VKCONV_CACHE_DIR="$R/test-cache" \
    "$TESTS_BIN" --gtest_brief=1 --gtest_output="json:$R/tests.json" "${filter[@]}"
  if [[ -z $TEST_FILTER ]] && need "$CLI_BIN"; then
    if ((DRY)) || python3 -c 'import numpy' 2>/dev/null; then
      step cli_test 90 env VKCONV_CACHE_DIR="$R/test-cache" python3 tests/cli/test_cli.py "$CLI_BIN"
    else
      echo "=== cli_test: skipped (python3 cannot import numpy)"
    fi
  fi
}

run_bench() {
  need "$BENCH_BIN" || return
  local p suite suites="alexnet1,$BENCH_SUITE" batch=() list
  IFS=, read -ra list <<<"$BENCH_SUITE"
  if ((BENCH_BATCH)); then
    suites=$BENCH_SUITE batch=(--batch "$BENCH_BATCH")
    echo "=== alexnet1: left out (--bench-batch $BENCH_BATCH)"
  else
    for p in fast fp32; do
      step "vkconv_alexnet1_$p" 60 "$BENCH_BIN" --shapes "$SHAPES" --suite alexnet1 --precision "$p" \
        --json "$R/vkconv_alexnet1_$p.json"
      if [[ -n $TENSORS && $p == fast ]]; then
        local tensors
        read -ra tensors <<<"$TENSORS"
        step "vkconv_alexnet1_fast_tensors" 60 "$BENCH_BIN" --shapes "$SHAPES" --suite alexnet1 --precision fast \
          "${tensors[@]}" --json "$R/vkconv_alexnet1_fast_tensors.json"
      fi
      [[ -n $COMPARE && $p == fast ]] && need "$COMPARE/bench/vkconv-bench" &&
        step "before_alexnet1_fast" 60 "$COMPARE/bench/vkconv-bench" --shapes "$SHAPES" --suite alexnet1 \
          --precision fast --json "$R/before_alexnet1_fast.json"
    done
  fi
  for suite in "${list[@]}"; do
    step "vkconv_${suite}_fast" 180 "$BENCH_BIN" --shapes "$SHAPES" --suite "$suite" --precision fast \
      "${batch[@]}" --json "$R/vkconv_${suite}_fast.json"
    if [[ -n $EPILOGUE ]]; then
      local epilogue
      read -ra epilogue <<<"$EPILOGUE"
      step "vkconv_${suite}_fast_epilogue" 180 "$BENCH_BIN" --shapes "$SHAPES" --suite "$suite" --precision fast \
        "${batch[@]}" "${epilogue[@]}" --json "$R/vkconv_${suite}_fast_epilogue.json"
    fi
    if [[ -n $TENSORS ]]; then
      local tensors
      read -ra tensors <<<"$TENSORS"
      step "vkconv_${suite}_fast_tensors" 180 "$BENCH_BIN" --shapes "$SHAPES" --suite "$suite" --precision fast \
        "${batch[@]}" "${tensors[@]}" --json "$R/vkconv_${suite}_fast_tensors.json"
      if [[ -n $EPILOGUE ]]; then
        local epilogue
        read -ra epilogue <<<"$EPILOGUE"
        step "vkconv_${suite}_fast_tensors_epilogue" 180 "$BENCH_BIN" --shapes "$SHAPES" --suite "$suite" \
          --precision fast "${batch[@]}" "${tensors[@]}" "${epilogue[@]}" \
          --json "$R/vkconv_${suite}_fast_tensors_epilogue.json"
      fi
    fi
    [[ -n $COMPARE ]] && need "$COMPARE/bench/vkconv-bench" &&
      step "before_${suite}_fast" 180 "$COMPARE/bench/vkconv-bench" --shapes "$SHAPES" --suite "$suite" \
        --precision fast "${batch[@]}" --json "$R/before_${suite}_fast.json"
  done
  if ((!TORCH)); then
    echo "=== torch: left out (--no-torch)"
  elif ((DRY)) || python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    step torch $((200 * ${#list[@]})) python3 bench/torch_conv_reference.py --shapes "$SHAPES" --suite "$suites" "${batch[@]}" \
      --modes fp32,fp32_channels_last,tf32,fp16_channels_last --json "$R/torch.json"
    # PyTorch's own relu(conv + b + z), eager and cuDNN's fused op, beside vkconv's epilogue run.
    [[ -n $EPILOGUE ]] &&
      step torch_epilogue $((150 * ${#list[@]})) python3 bench/torch_conv_reference.py --shapes "$SHAPES" \
        --suite "$BENCH_SUITE" "${batch[@]}" --modes tf32,fp16_channels_last --epilogue relu_residual \
        --json "$R/torch_epilogue.json"
  else
    echo "=== torch: skipped (python3 cannot import torch with CUDA)"
  fi
  for suite in "${list[@]}"; do
    step "vkconv_${suite}_fp32" 150 "$BENCH_BIN" --shapes "$SHAPES" --suite "$suite" --precision fp32 \
      "${batch[@]}" --json "$R/vkconv_${suite}_fp32.json"
  done
  if ((PRECISE)); then
    ((BENCH_BATCH)) || step "vkconv_alexnet1_precise" 90 "$BENCH_BIN" --shapes "$SHAPES" --suite alexnet1 \
      --precision precise --json "$R/vkconv_alexnet1_precise.json"
    for suite in "${list[@]}"; do
      step "vkconv_${suite}_precise" 200 "$BENCH_BIN" --shapes "$SHAPES" --suite "$suite" --precision precise \
        "${batch[@]}" --json "$R/vkconv_${suite}_precise.json"
    done
  fi
}

run_network() {
  need "$BENCH_BIN" || return
  local b
  for b in 32 1; do
    step "vkconv_network_resnet50_b$b" 120 "$BENCH_BIN" --network resnet50 --batch "$b" --json "$R/vkconv_network_resnet50_b$b.json"
  done
  if ((DRY)) || python3 -c 'import torch, torchvision, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    step torch_resnet50 300 python3 bench/torch_resnet50.py --batch 32,1 --json "$R/torch_resnet50.json"
  else
    echo "=== torch_resnet50: skipped (python3 cannot import torch and torchvision with CUDA)"
  fi
}

# The module is built on this machine: one built elsewhere, against another libstdc++, crashed in
# its first conv2d (bench/RESULTS.md). The bundle is a VKCONV_DEPS_PREFIX (python/CMakeLists.txt);
# the Vulkan library is the carried loader that vulkan_env unpacked.
run_python() {
  local bundle=$BUILD/python-bundle pybuild=$R/python-build
  if ((!DRY)) && [[ ! -x $bundle/bin/glslang ]]; then
    echo "=== missing $bundle: cmake --build $BUILD --target vkconv_python_bundle here (bench/gpu/README.md)"
    STATUS=1
    return 1
  fi
  step python_build 300 bash -c 'cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DVKCONV_BUILD_TESTS=OFF -DVKCONV_BUILD_TOOLS=OFF -DVKCONV_BUILD_BENCH=OFF -DVKCONV_BUILD_PYTHON=ON \
      -DVKCONV_DEPS_PREFIX="$2" -DCMAKE_PREFIX_PATH="$2" -DVulkan_INCLUDE_DIR="$2/include" \
      -DVulkan_LIBRARY="$(ldconfig -p | sed -n "s/.*libvulkan.so.1 (libc6,x86-64) => //p" | head -n 1)" \
      -DPython_EXECUTABLE="$(command -v python3)" &&
    cmake --build "$1" --target vkconv_python -j "$(nproc)" && ldd "$1"/python/vkconv.*.so' python_build "$pybuild" "$(realpath "$bundle")" ||
    return 1
  step python_bench 240 env PYTHONPATH="$pybuild/python" python3 -X faulthandler python/bench_torch.py \
    --json "$R/python_bench.json"
}

run_extra() {  # run_extra INDEX "KIND ARGS"
  local n=$1 kind=${2%% *} quoted=${2#* } args
  eval "args=($quoted)"
  case $kind in
    sweep) need "$CLI_BIN" && step "sweep$n" 400 "$CLI_BIN" sweep "${args[@]}" --json "$R/sweep$n.json" ;;
    lab) need "$LAB_BIN" && step "lab$n" 400 "$LAB_BIN" "${args[@]}" ;;
    run) need "$CLI_BIN" && step "run$n" 120 "$CLI_BIN" run "${args[@]}" ;;
    twin) step "twin$n" 200 bash -c "$TWIN_SCRIPT" twin "$R/twin$n" "${args[@]}" ;;
  esac
}

# The CUDA twin (--twin): nvcc, a timed run, then one launch under Nsight Compute (the clocks left
# alone, as ../shared/gpu/README.md asks), past the twin's 200 warm-up launches (a twin takes its
# timed iterations first, then its own arguments). "$1" the binary to build, "$2" the twin's name
# (checked when the arguments are read), the rest its arguments.
TWIN_SCRIPT='
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
  nvcc -O3 -arch=sm_90 -Xptxas -v "bench/gpu/twins/$2.cu" -o "$1" && "$1" 100 "${@:3}" || exit 1
  [[ -n $ncu ]] || { echo "no ncu here"; exit 1; }
  "$ncu" --clock-control none --print-details all --launch-skip 205 --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section SchedulerStats --section LaunchStats --section InstructionStats "$1" 10 "${@:3}"'

# ---------------------------------------------------------------- the check
if ((DRY)); then
  echo "dry run: budget $BUDGET s, build $BUILD, results to $OUT"
  ((TESTS)) && run_tests
  ((BENCH)) && run_bench
  ((NETWORK)) && run_network
  ((PYTHON)) && run_python
  for i in "${!EXTRA[@]}"; do run_extra $((i + 1)) "${EXTRA[$i]}"; done
  exit 0
fi

mkdir -p "$OUT/json" "$LAYER_ROOT" || die "cannot write $OUT"
# vkconv's tuning and pipeline caches: the check's own, empty at its start, never a user's.
export VKCONV_CACHE_DIR=$R/cache
echo "check.sh: budget $BUDGET s, build $BUILD, scratch $R, results to $OUT"
vulkan_env >"$R/vulkan.txt"   # not in a pipeline: its exports must stay in this shell
cat "$R/vulkan.txt"
# The binaries' commit is the one vkconv-bench's build recorded (the tree may travel without .git).
# The tree's is its .git's HEAD, "-dirty" where the files differ from it: the .git there can be a
# copy older than the files the device tool brought (seen: a HEAD several commits behind the files).
build_commit=$(sed -n 's/^#define VKCONV_GIT_COMMIT "\(.*\)"$/\1/p' "$BUILD/bench/generated/vkconv_git_commit.hpp" 2>/dev/null)
{
  echo "commit: binaries ${build_commit:-unknown}, tree $(git describe --always --dirty --exclude='*' 2>/dev/null || echo "unknown (no .git)")"
  echo "arguments: $ARGS"
} >>"$R/vulkan.txt"

if command -v nvidia-smi >/dev/null; then
  nvidia-smi -L | tee "$R/gpu.txt"
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,temperature.gpu,power.draw \
    --format=csv -lms 500 >"$R/nvidia-smi.csv" 2>&1 &
  SMI_PID=$!
fi
if [[ -x $CLI_BIN ]]; then
  step devices 30 "$CLI_BIN" devices
  # The library's description of the device, which kernel-lab --device-file ranks for offline.
  "$CLI_BIN" devices --json >"$R/devices.json" 2>&1
fi

((TESTS)) && run_tests
((BENCH)) && run_bench
((NETWORK)) && run_network
((PYTHON)) && run_python
for i in "${!EXTRA[@]}"; do run_extra $((i + 1)) "${EXTRA[$i]}"; done

[[ -n $SMI_PID ]] && kill "$SMI_PID" 2>/dev/null && SMI_PID=""
echo
if command -v python3 >/dev/null; then
  python3 bench/summarize_results.py "$R" | tee "$R/summary.txt" || STATUS=1
else  # the steps and the suite's last lines, without the tables
  { cat "$R/vulkan.txt" "$R/steps.tsv"; grep -ahE "validation layer:|^\[  (PASSED|FAILED|SKIPPED) " "$R"/*.log; } |
    tee "$R/summary.txt"
  echo "check.sh: no python3 here: the summary is the step list only"
fi
cp "$R/summary.txt" "$OUT/summary.txt"
for f in "$R/tests.json" "$R"/vkconv_*.json "$R/torch.json" "$R/python_bench.json"; do
  [[ -f $f ]] && cp "$f" "$OUT/json/"
done
tar czf "$OUT/results.tgz" -C "$R" --exclude=./layers --exclude=./test-cache --exclude=./cache . ||
  STATUS=1
echo "check.sh: exit $STATUS; $OUT holds summary.txt, results.tgz and json/"
exit $STATUS
