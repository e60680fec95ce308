#!/usr/bin/env bash
# Prepares here (Debian 12, amd64, after scripts/setup.sh) what bench/gpu/check.sh needs on the
# GPU machine, and checks that it fits the device tool's carry. From the repository root:
#
#   bash bench/gpu/prepare.sh [--build DIR] [--no-build] [--refetch]
#
# 1. .gl/: the Vulkan loader's Debian packages (libvulkan1, and the GL/EGL libraries some loaders
#    expect), which check.sh unpacks into / there; and .gl/layers/: vulkan-validationlayers from
#    Debian 13 (1.4.309: it knows VK_KHR_cooperative_matrix and Vulkan 1.4, which Debian 12's
#    1.3.239 predates, so that one would report the structures vkconv passes as unknown).
#    check.sh unpacks the layer into a scratch folder. Downloaded with `apt-get download` through
#    this machine's own apt sources: scripts/setup.sh lists Debian 13 there, pinned so that
#    nothing is installed from it. Skipped when .gl/ has both already (--refetch: download again).
# 2. DIR (default build-gpu): a Release build of vkconv_tests, the vkconv tool, vkconv-bench and
#    kernel-lab, and DIR/python-bundle for check.sh --python (--no-build: use DIR as it is).
# 3. The size of what a `run` carries (the working tree, .gl and DIR) against the 64 MiB limit,
#    and the carry list to give.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

BUILD=build-gpu BUILD_IT=1 REFETCH=0
while (($#)); do
  case "$1" in
    --build) BUILD=${2:?--build needs a folder}; BUILD=${BUILD%/}; shift ;;
    --no-build) BUILD_IT=0 ;;
    --refetch) REFETCH=1 ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "prepare.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
die() { echo "prepare.sh: $*" >&2; exit 1; }
[[ $(dpkg --print-architecture) == amd64 ]] || die "this machine is not amd64: the GPU machine needs amd64 packages and binaries"
if ! git check-ignore -q .gl/x || ! git check-ignore -q "$BUILD/x"; then
  die ".gl/ and $BUILD/ must be ignored by git (.gitignore), or they travel twice"
fi

# ---------------------------------------------------------------- 1. packages
# The loader is Debian 13's (1.4.309), like the layer: Debian 12's 1.3.239 asks the driver for
# vkGetPhysicalDeviceVideoEncodeQualityLevelPropertiesKHR through vkGetDeviceProcAddr, and the
# 1.4.309 layer reports that on every Context (seen on the H200).
LOADER_PKGS=(libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fetch() {  # fetch DIR PACKAGE...: apt-get download into DIR
  local dir=$1
  shift
  mkdir -p "$dir"
  (cd "$dir" && apt-get download -q "$@" 2>&1) | grep -v -e unsandboxed -e '^Get:' -e '^Fetched' || true
}
if ((REFETCH)); then rm -f .gl/*.deb .gl/layers/*.deb; fi
if ! compgen -G ".gl/libvulkan1_1.4*.deb" >/dev/null; then
  echo "== the Vulkan loader's packages into .gl/"
  rm -f .gl/libvulkan1_*.deb
  loader=$(apt-cache show libvulkan1/trixie 2>/dev/null | awk '/^Version:/ { print $2; exit }')
  [[ -n $loader ]] || die "apt knows no libvulkan1 in trixie: run scripts/setup.sh (it adds Debian 13, pinned), then apt-get update"
  fetch .gl "${LOADER_PKGS[@]}" "libvulkan1=$loader"
  compgen -G ".gl/libvulkan1_*.deb" >/dev/null || die "apt-get download libvulkan1 failed"
fi
if ! compgen -G ".gl/layers/vulkan-validationlayers_*.deb" >/dev/null; then
  echo "== Debian 13's vulkan-validationlayers into .gl/layers/"
  version=$(apt-cache show vulkan-validationlayers/trixie 2>/dev/null | awk '/^Version:/ { print $2; exit }')
  [[ -n $version ]] || die "apt knows no vulkan-validationlayers in trixie: run scripts/setup.sh (it adds Debian 13, pinned), then apt-get update"
  fetch .gl/layers "vulkan-validationlayers=$version"
  compgen -G ".gl/layers/vulkan-validationlayers_*.deb" >/dev/null || die "apt-get download vulkan-validationlayers=$version failed"
fi
ls -1 .gl/*.deb .gl/layers/*.deb

# ---------------------------------------------------------------- 2. build
TARGETS=(vkconv_tests vkconv_cli vkconv_bench kernel-lab)
if ((BUILD_IT)); then
  echo "== Release build of ${TARGETS[*]} in $BUILD"
  # shellcheck disable=SC1091
  . scripts/env.sh
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKCONV_BUILD_TESTS=ON \
    -DVKCONV_BUILD_TOOLS=ON -DVKCONV_BUILD_BENCH=ON "${launcher[@]}" >/dev/null
  cmake --build "$BUILD" -j "${VKCONV_JOBS:-2}" --target "${TARGETS[@]}"
  # check.sh --python builds the module there from this bundle (python/CMakeLists.txt).
  cmake --build "$BUILD" --target vkconv_python_bundle >/dev/null ||
    echo "== no $BUILD/python-bundle (the Python module is not configured: nanobind?): check.sh --python will not run"
fi
for f in tests/vkconv_tests tools/vkconv/vkconv bench/vkconv-bench tools/kernel-lab/kernel-lab; do
  [[ -x $BUILD/$f ]] || die "$BUILD/$f is missing: build it (without --no-build)"
done
grep -q '^CMAKE_BUILD_TYPE:STRING=Release' "$BUILD/CMakeCache.txt" || die "$BUILD is not a Release build"

# ---------------------------------------------------------------- 3. carry size
# What travels: tracked files, untracked files git does not ignore, and the carried paths.
# (A file deleted but not yet committed is listed and not there: stat skips it.)
tree_bytes=$( (git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -c %s -- 2>/dev/null || true) |
  awk '{ s += $1 } END { print s + 0 }')
carry_bytes=$(du -sb .gl "$BUILD" | awk '{ s += $1 } END { print s }')
total_mib=$(((tree_bytes + carry_bytes + 1048575) / 1048576))
printf '== carry: working tree %s + .gl %s + %s %s = %d MiB of 64\n' "$(numfmt --to=iec "$tree_bytes")" \
  "$(du -sh .gl | cut -f1)" "$BUILD" "$(du -sh "$BUILD" | cut -f1)" "$total_mib"
((total_mib <= 60)) || die "over 60 MiB: remove what $BUILD holds besides the four binaries' build (test logs, caches), or build fewer targets"
echo "run with carry [\".gl\", \"$BUILD\"] and command: bash bench/gpu/check.sh$([[ $BUILD != build-gpu ]] && echo " --build $BUILD") [STEPS]"
