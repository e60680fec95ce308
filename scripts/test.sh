#!/usr/bin/env bash
# vkconv's test command (what CI runs: .ci/run).
#
#   bash scripts/test.sh [--quick]
#
# Run as root on Debian 12, no sudo. Stages:
#   1. scripts/setup.sh --with-mesa26   dependencies and the Mesa 26 root (fast once done)
#   2. configure + build (Release)      into build/, only what the tests need
#   3. ctest on the system lavapipe     every test is its own CTest test
#   3b. sanitizers: the core of the suite (fuzzing, API errors, planning, tuning cache, a subset
#      of fp32 correctness cases) built with AddressSanitizer + UndefinedBehaviorSanitizer into
#      build-sanitize/ (env VKCONV_SANITIZE_BUILD_DIR) and run on the system lavapipe
#   4. the test binary in the Mesa 26 root (VK_KHR_cooperative_matrix): the whole suite, with
#      VKCONV_REQUIRE_COOPMAT=1 so that a fast-path case without cooperative matrices fails;
#      any skipped test there fails the run, and so does any difference between the number of
#      cases that ran a cooperative-matrix kernel and the number the suite intends (its fast,
#      bf16, packed, breg, nhwc and nchw cases; the summary shows both). Then, in the same
#      root, the CLI test with --precision fast (cooperative matrices required) and a
#      cooperative-matrix `vkconv sweep` of a small problem (tests/sweep_e2e.sh)
#   5. the portability suite (tests/portability_test.cpp: every path and every shipped profile,
#      under the validation layer) and the grouped direct kernel's cases (tests/grouped_direct_test.cpp:
#      its staged and from-memory tiles) at lavapipe's subgroup sizes 4, 8 and 16
#      (LP_NATIVE_VECTOR_WIDTH=128/256/512), on the system lavapipe and in the Mesa 26 root; there
#      the cooperative-matrix path must run at size 8 (Mesa 26 offers none at 4, and vkconv refuses
#      size 16, where lavapipe crashes compiling it). Stages 3 and 4 leave the suite to this one.
#   6. the Python module's pytest suite (python/tests) on the system lavapipe, with Debian's
#      /usr/bin/python3 (python3-numpy, python3-pytest); not in the Mesa 26 root, which has no Python
#   7. a summary: per-stage times and "tests: P passed, F failed, S skipped" over all runs
# --quick leaves out the seeded random problems (the hand-picked ones, chunking, validation,
# API and planning tests still run). Exit status is non-zero on any failure.
#
# Environment: VKCONV_MESA26_ROOT (default /var/cache/vkconv/trixie-root), VKCONV_JOBS (2),
# CI (set: a missing validation layer fails instead of skipping), VKCONV_BUILD_DIR (default
# build/) and VKCONV_ROOT_DIR (where the binary goes in the root, default /opt/vkconv-tests):
# another pair lets a second checkout or build run the tests at the same time.
set -euo pipefail

QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="${VKCONV_BUILD_DIR:-$REPO/build}"
LOGS="$BUILD/test-logs"
MESA26_ROOT="${VKCONV_MESA26_ROOT:-/var/cache/vkconv/trixie-root}"
JOBS="${VKCONV_JOBS:-2}"
# Where the binary goes inside the Mesa 26 root.
ROOT_DIR="${VKCONV_ROOT_DIR:-/opt/vkconv-tests}"

log() { echo "[test] $*"; }
die() { echo "[test] ERROR: $*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || die "run as root (no sudo): the Mesa 26 stage uses chroot"

gtest_counts() {  # FILE -> "passed failed skipped", or nothing if the run did not finish
  local f=$1 p s x
  grep -q '^\[==========\] .* ran\.' "$f" || return 0
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$f" | tail -1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$f" | tail -1)
  x=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$f" | tail -1)
  echo "${p:-0} ${x:-0} ${s:-0}"
}
# The output of every failed test (from its "[ RUN" line to its "[  FAILED  ]" line).
print_failures() {
  awk '/^\[ RUN      \]/ { block = $0 "\n"; next }
       /^\[       OK \]|^\[  SKIPPED \]/ { block = ""; next }
       /^\[  FAILED  \] .*\(/ && block != "" { printf "%s%s\n", block, $0; block = ""; next }
       block != "" { block = block $0 "\n" }' "$1" | head -300
}

STAGES=()    # "name seconds" per stage, for the summary
RUNS=()      # "name passed failed skipped" per test run
FAILED=0
stage_start() { STAGE_T0=$SECONDS; log "== $1"; }
stage_end() { STAGES+=("$1 $((SECONDS - STAGE_T0))"); }

# ------------------------------------------------------------------ 1. setup
stage_start "setup (scripts/setup.sh --with-mesa26)"
bash "$REPO/scripts/setup.sh" --with-mesa26 || die "scripts/setup.sh --with-mesa26 failed"
# shellcheck disable=SC1091
. "$REPO/scripts/env.sh"
stage_end setup

# ------------------------------------------------------------------ 2. build
stage_start "configure + build (Release) in $BUILD"
# The CLI tests (tests/cli) run the vkconv tool, vkconv-bench (its problem flags) and kernel-lab's
# offline ranking (a few small files to compile); without them none is needed.
TOOLS=OFF
[[ -f "$REPO/tests/cli/CMakeLists.txt" ]] && TOOLS=ON
# The Python module for Debian's python3 (its NumPy and pytest are Debian packages; a pyenv or
# other python3 earlier on PATH would get a module it cannot import them with).
PYTHON=/usr/bin/python3
cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKCONV_BUILD_TESTS=ON \
  -DVKCONV_BUILD_BENCH=$TOOLS -DVKCONV_BUILD_TOOLS=$TOOLS \
  -DVKCONV_BUILD_PYTHON=ON -DPython_EXECUTABLE=$PYTHON >/dev/null || die "cmake configure failed"
TARGETS=(vkconv_tests vkconv_python_stub)   # the stub target builds the module first
[[ $TOOLS == ON ]] && TARGETS+=(vkconv_cli vkconv_bench kernel-lab)
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}" || die "build failed"
mkdir -p "$LOGS"
stage_end build

# vkconv's tuning and pipeline caches: the tests' own, never the user's (a user's tuning.json
# would change which configurations the tests run). Kept between runs: reruns compile less.
export VKCONV_CACHE_DIR="$BUILD/test-cache/host"
mkdir -p "$VKCONV_CACHE_DIR"

# ----------------------------------------------------------- 3. ctest, host
# Host lavapipe (Mesa 25) has no cooperative matrices: the fast-path cases skip with the reason.
stage_start "ctest on the system lavapipe"
CTEST_ARGS=(--test-dir "$BUILD" -j "$JOBS" --output-on-failure --output-junit "$LOGS/ctest-host.xml")
# The portability suite and the grouped direct kernel's cases run in stage 5, at every subgroup size.
# The Python suite (CTest's vkconv_python) runs in stage 6, where its tests are counted one by one.
if (( QUICK )); then CTEST_ARGS+=(-E 'random_seed|Portability|/GroupedDirect\.|vkconv_python')
else CTEST_ARGS+=(-E 'Portability|/GroupedDirect\.|vkconv_python'); fi
rc=0
ctest "${CTEST_ARGS[@]}" >"$LOGS/ctest-host.log" 2>&1 || rc=$?
# The per-test lines are in the log; show the summary and whatever failed.
sed -n '/tests passed/,$p' "$LOGS/ctest-host.log" | grep -v -e '(Skipped)$' -e '^The following tests did not run:$' || true
# ctest's JUnit file: <testsuite ... tests="N" failures="N" skipped="N" ...>.
if (( rc != 0 )); then
  log "output of the failed host tests:"
  awk '/^ *[0-9]+\/[0-9]+ Test +#[0-9]+:/ { show = ($0 ~ /\*\*\*Failed|\*\*\*Exception|\*\*\*Timeout|Not Run$/) }
       /^ *Start +[0-9]+:/ { show = 0 }
       show' "$LOGS/ctest-host.log" | head -300
fi
junit_attr() {
  tr '\n' ' ' <"$2" | grep -o '<testsuite [^>]*>' | head -1 \
    | grep -o "[[:space:]]$1=\"[0-9]*\"" | grep -o '[0-9][0-9]*'
}
total=$(junit_attr tests "$LOGS/ctest-host.xml" || true)
failed=$(junit_attr failures "$LOGS/ctest-host.xml" || true)
skipped=$(junit_attr skipped "$LOGS/ctest-host.xml" || true)
if [[ -z "$total" || -z "$failed" || -z "$skipped" || "$total" == 0 ]]; then
  log "could not read the test counts from $LOGS/ctest-host.xml (ctest exit $rc)"
  RUNS+=("host-lavapipe 0 1 0")
  FAILED=1
else
  RUNS+=("host-lavapipe $((total - failed - skipped)) $failed $skipped")
  (( rc == 0 && failed == 0 )) || FAILED=1
fi
stage_end ctest-host

# ------------------------------------------------ 3b. sanitizers, host lavapipe
# ASan + UBSan (any report aborts the test binary), on the tests that reach the most host code
# per second: the fuzzers, API errors, planning, the tuning cache, the file-safety and device-rules
# tests, and fp32 correctness cases of every kind of problem. LeakSanitizer is on too (lavapipe frees what it allocates by exit).
stage_start "sanitizers (ASan + UBSan) on the system lavapipe"
SAN_BUILD="${VKCONV_SANITIZE_BUILD_DIR:-$BUILD-sanitize}"
SAN_LOG="$LOGS/sanitizers.log"
SAN_FILTER='*Fuzz*:*ApiErrors*:PlanExecution*:*TuningCache*:TuningRules*:*FileSafety*:DeviceRules*'
for kind in k1x1 k11x11 depthwise grouped dilation stride prime pad; do
  SAN_FILTER+=":Problems/ConvCorrectness.MatchesReference/dev0_fp32_${kind}*"
done
rc=0
{ cmake -S "$REPO" -B "$SAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" \
    -DVKCONV_SANITIZE=ON -DVKCONV_BUILD_TESTS=ON -DVKCONV_BUILD_TOOLS=OFF -DVKCONV_BUILD_BENCH=OFF \
  && cmake --build "$SAN_BUILD" -j "$JOBS" --target vkconv_tests; } >"$LOGS/sanitizers-build.log" 2>&1 || rc=$?
if (( rc != 0 )); then
  log "sanitizer build failed; last lines of $LOGS/sanitizers-build.log:"
  tail -30 "$LOGS/sanitizers-build.log"
  RUNS+=("sanitizers 0 1 0")
  FAILED=1
else
  mkdir -p "$SAN_BUILD/test-cache"
  env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    VKCONV_CACHE_DIR="$SAN_BUILD/test-cache" "$SAN_BUILD/tests/vkconv_tests" --gtest_filter="$SAN_FILTER" \
    --gtest_color=no >"$SAN_LOG" 2>&1 || rc=$?
  counts=$(gtest_counts "$SAN_LOG")
  if [[ -z "$counts" ]]; then
    log "sanitizer run did not finish (exit $rc); last lines of $SAN_LOG:"
    tail -40 "$SAN_LOG"
    RUNS+=("sanitizers 0 1 0")
    FAILED=1
  else
    read -r p x s <<<"$counts"
    RUNS+=("sanitizers $p $x $s")
    log "sanitizers: $p passed, $x failed, $s skipped"
    if (( x > 0 || s > 0 )) || [[ $rc != 0 ]]; then
      log "sanitizers: failures or skips (exit $rc):"
      print_failures "$SAN_LOG"
      grep -A30 -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$SAN_LOG" | head -60 || true
      FAILED=1
    fi
  fi
fi
stage_end sanitizers

# --------------------------------------------------------- 4. Mesa 26 root
# The whole suite in one root, as 2 shards side by side (pipeline compiles are single-threaded).
stage_start "vkconv_tests in the Mesa 26 root ($MESA26_ROOT)"
[[ -x "$MESA26_ROOT/usr/bin/vulkaninfo" ]] || die "no Mesa 26 root at $MESA26_ROOT (scripts/setup.sh --with-mesa26)"
mkdir -p "$MESA26_ROOT$ROOT_DIR/cache"
cp "$BUILD/tests/vkconv_tests" "$MESA26_ROOT$ROOT_DIR/vkconv_tests"
FILTER='-*Portability*:*/GroupedDirect.*'
(( QUICK )) && FILTER='-*random_seed*:*Portability*:*/GroupedDirect.*'
SHARDS=$JOBS
pids=()
for ((i = 0; i < SHARDS; i++)); do
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 CI="${CI:-}" \
    VKCONV_REQUIRE_COOPMAT=1 VKCONV_CACHE_DIR="$ROOT_DIR/cache" GTEST_TOTAL_SHARDS="$SHARDS" GTEST_SHARD_INDEX="$i" \
    chroot "$MESA26_ROOT" "$ROOT_DIR/vkconv_tests" --gtest_filter="$FILTER" --gtest_color=no \
    >"$LOGS/mesa26-shard$i.log" 2>&1 &
  pids+=($!)
done
passed=0 failed=0 skipped=0 coop_ran=0 coop_intended=0
for ((i = 0; i < SHARDS; i++)); do
  rc=0
  wait "${pids[$i]}" || rc=$?
  f="$LOGS/mesa26-shard$i.log"
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$f" | tail -1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$f" | tail -1)
  x=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$f" | tail -1)
  if [[ -z "$p" ]] || ! grep -q '^\[==========\] .* ran\.' "$f"; then
    log "shard $i did not finish (exit $rc); last lines of $f:"
    tail -20 "$f"
    failed=$((failed + 1))
    continue
  fi
  passed=$((passed + p)); skipped=$((skipped + ${s:-0})); failed=$((failed + ${x:-0}))
  cr='' ci=''
  read -r cr ci < <(sed -n 's/^\[vkconv-tests\] cooperative-matrix cases: \([0-9]*\) ran, \([0-9]*\) intended$/\1 \2/p' "$f" | tail -1) || true
  coop_ran=$((coop_ran + ${cr:-0})); coop_intended=$((coop_intended + ${ci:-0}))
  [[ -n "${ci:-}" ]] || { log "shard $i printed no cooperative-matrix count"; failed=$((failed + 1)); }
  if [[ -n "$x" || $rc != 0 ]]; then
    log "shard $i: failures (exit $rc):"
    print_failures "$f"
    (( ${x:-0} > 0 )) || failed=$((failed + 1))
  fi
  if [[ -n "$s" ]]; then
    log "shard $i: skipped tests in the Mesa 26 root (nothing may skip there):"
    grep '^\[  SKIPPED \] [^0-9]' "$f" | sort -u | head -50
  fi
done
RUNS+=("mesa26-lavapipe $passed $failed $skipped")
log "Mesa 26: $passed passed, $failed failed, $skipped skipped"
# Every case the suite registers as a cooperative-matrix case (fast, bf16, packed, breg, nhwc, nchw) must have
# run one; a fast case that ran fp32 has already failed, this checks that none went missing.
COOP_LINE="$coop_ran ran a cooperative-matrix kernel, the suite intends $coop_intended"
log "Mesa 26 cooperative-matrix cases: $COOP_LINE"
if (( coop_ran != coop_intended || coop_intended == 0 )); then
  log "ERROR: the cooperative-matrix case count does not match"
  FAILED=1
fi
(( failed == 0 && skipped == 0 && passed > 0 )) || FAILED=1

# The CLI with --precision fast (driven from the host's Python, vkconv run inside the root), and
# a cooperative-matrix sweep of a small problem, then a run that uses what it measured.
cp "$BUILD/tools/vkconv/vkconv" "$MESA26_ROOT$ROOT_DIR/vkconv"
cp "$REPO/tests/sweep_e2e.sh" "$MESA26_ROOT$ROOT_DIR/sweep_e2e.sh"
rc=0
CI="${CI:-}" VKCONV_ROOT_CACHE_DIR="$ROOT_DIR/cache" /usr/bin/python3 "$REPO/tests/cli/test_cli.py" \
  --precision fast --require-coopmat --root "$MESA26_ROOT" "$ROOT_DIR/vkconv" >"$LOGS/mesa26-cli-fast.log" 2>&1 || rc=$?
if (( rc == 0 )); then
  RUNS+=("mesa26-cli-fast 1 0 0")
else
  log "CLI test --precision fast in the Mesa 26 root failed (exit $rc):"
  tail -40 "$LOGS/mesa26-cli-fast.log"
  RUNS+=("mesa26-cli-fast 0 1 0")
  FAILED=1
fi
rc=0
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 VKCONV_SWEEP_EXPECT_COOPMAT=1 \
  chroot "$MESA26_ROOT" bash "$ROOT_DIR/sweep_e2e.sh" "$ROOT_DIR/vkconv" >"$LOGS/mesa26-sweep.log" 2>&1 || rc=$?
if (( rc == 0 )); then
  RUNS+=("mesa26-sweep-coopmat 1 0 0")
else
  log "cooperative-matrix sweep in the Mesa 26 root failed (exit $rc):"
  tail -40 "$LOGS/mesa26-sweep.log"
  RUNS+=("mesa26-sweep-coopmat 0 1 0")
  FAILED=1
fi
rm -f "$MESA26_ROOT$ROOT_DIR/vkconv" "$MESA26_ROOT$ROOT_DIR/sweep_e2e.sh"
stage_end mesa26

# ------------------------------------------------- 5. portability, subgroup 4/8/16
# Each run: the portability suite alone, its own cache folder (a pipeline cache made at one
# vector width is never offered to another), at most $JOBS runs side by side.
stage_start "portability suite and grouped direct cases at subgroup sizes 4, 8, 16 (host lavapipe and Mesa 26)"
PORT_FILTER='*Portability*:*/GroupedDirect.*'
PORT_RUNS=()  # "name log", each run's exit status in log.rc once it is done
port_running() {
  local n=0 r name log
  for r in "${PORT_RUNS[@]}"; do read -r name log <<<"$r"; [[ -f "$log.rc" ]] || n=$((n + 1)); done
  echo "$n"
}
port_launch() {  # NAME WIDTH WHERE(host|root) REQUIRE_COOPMAT
  local name=$1 width=$2 where=$3 require=$4 log="$LOGS/portability-$1.log"
  while (( $(port_running) >= JOBS )); do sleep 0.5; done
  rm -f "$log.rc"
  if [[ $where == host ]]; then
    mkdir -p "$BUILD/test-cache/host-w$width"
    ( rc=0; env LP_NATIVE_VECTOR_WIDTH="$width" VKCONV_CACHE_DIR="$BUILD/test-cache/host-w$width" \
        VKCONV_REQUIRE_COOPMAT="$require" "$BUILD/tests/vkconv_tests" --gtest_filter="$PORT_FILTER" \
        --gtest_color=no >"$log" 2>&1 || rc=$?; echo "$rc" >"$log.rc" ) &
  else
    mkdir -p "$MESA26_ROOT$ROOT_DIR/cache-w$width"
    ( rc=0; env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 CI="${CI:-}" \
        LP_NATIVE_VECTOR_WIDTH="$width" VKCONV_CACHE_DIR="$ROOT_DIR/cache-w$width" \
        VKCONV_REQUIRE_COOPMAT="$require" chroot "$MESA26_ROOT" "$ROOT_DIR/vkconv_tests" \
        --gtest_filter="$PORT_FILTER" --gtest_color=no >"$log" 2>&1 || rc=$?; echo "$rc" >"$log.rc" ) &
  fi
  PORT_RUNS+=("$name $log")
}
port_launch host-sg4 128 host 0
port_launch host-sg8 256 host 0
port_launch host-sg16 512 host 0
port_launch mesa26-sg4 128 root 0
port_launch mesa26-sg8 256 root 1   # the cooperative-matrix path must run here
port_launch mesa26-sg16 512 root 0
wait
for r in "${PORT_RUNS[@]}"; do
  read -r name log <<<"$r"
  rc=$(cat "$log.rc" 2>/dev/null || echo "?")
  counts=$(gtest_counts "$log")
  if [[ -z "$counts" ]]; then
    log "portability $name did not finish (exit $rc); last lines of $log:"
    tail -20 "$log"
    RUNS+=("portability-$name 0 1 0")
    FAILED=1
    continue
  fi
  read -r p x s <<<"$counts"
  RUNS+=("portability-$name $p $x $s")
  # The suite's own summary table: which paths ran, passed and were skipped, and why.
  log "portability $name: $p passed, $x failed, $s skipped"
  sed -n '/^\[portability\] summary/,/^\[==========\]/p' "$log" | grep -v '^\[==========\]' | cut -c1-200
  if (( x > 0 )) || [[ $rc != 0 ]]; then
    log "portability $name: failures (exit $rc):"
    print_failures "$log"
    FAILED=1
  fi
done
stage_end portability
rm -f "$MESA26_ROOT$ROOT_DIR/vkconv_tests"

# ------------------------------------------------------- 6. Python module
# The pytest suite against the module just built, with its own cache folder. The Mesa 26 root has
# no Python, so the module's fast path is covered there only through the C++ suite it wraps.
stage_start "Python module: pytest on the system lavapipe"
mkdir -p "$BUILD/test-cache/python"
rc=0
env PYTHONPATH="$BUILD/python" PYTHONDONTWRITEBYTECODE=1 VKCONV_CACHE_DIR="$BUILD/test-cache/python" \
  "$PYTHON" -m pytest -q -rs -p no:cacheprovider --junitxml="$LOGS/pytest-host.xml" "$REPO/python/tests" \
  >"$LOGS/pytest-host.log" 2>&1 || rc=$?
tail -15 "$LOGS/pytest-host.log"
total=$(junit_attr tests "$LOGS/pytest-host.xml" || true)
failed=$(junit_attr failures "$LOGS/pytest-host.xml" || true)
errors=$(junit_attr errors "$LOGS/pytest-host.xml" || true)
skipped=$(junit_attr skipped "$LOGS/pytest-host.xml" || true)
if [[ -z "$total" || -z "$failed" || -z "$errors" || -z "$skipped" || "$total" == 0 ]]; then
  log "could not read the pytest counts from $LOGS/pytest-host.xml (pytest exit $rc); log: $LOGS/pytest-host.log"
  RUNS+=("python-host 0 1 0")
  FAILED=1
else
  RUNS+=("python-host $((total - failed - errors - skipped)) $((failed + errors)) $skipped")
  (( rc == 0 && failed + errors == 0 )) || FAILED=1
fi
stage_end python

# ------------------------------------------------------------------ 7. summary
echo
echo "== summary$( (( QUICK )) && echo ' (--quick)')"
total_s=0
for s in "${STAGES[@]}"; do
  read -r name secs <<<"$s"
  printf '  %-12s %4d s\n' "$name" "$secs"
  total_s=$((total_s + secs))
done
printf '  %-12s %4d s\n' total "$total_s"
P=0 F=0 S=0
for r in "${RUNS[@]}"; do
  read -r name p f s <<<"$r"
  printf '  %-24s %4d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$s"
  P=$((P + p)); F=$((F + f)); S=$((S + s))
done
[[ -n "${COOP_LINE:-}" ]] && echo "  Mesa 26 cooperative-matrix cases: $COOP_LINE"
echo "  (host skips: the fast path needs VK_KHR_cooperative_matrix, which Mesa 25 lacks;"
echo "   it runs in the Mesa 26 root, where nothing may skip; portability skips: paths a device"
echo "   lacks at that subgroup size, each with its reason in the tables above; python skips:"
echo "   the fast path's test on Mesa 25 (no cooperative matrices), torch when it is not installed)"
echo "  logs: $LOGS"
echo "tests: $P passed, $F failed, $S skipped"
(( FAILED == 0 && F == 0 )) || { echo "RESULT: FAILED"; exit 1; }
echo "RESULT: OK"
