#!/usr/bin/env bash
# vkconv's main job, from a fresh Debian 12 machine (as root) or any machine that already has a
# Vulkan loader and driver, Vulkan headers >= 1.3.255 and glslang >= 14:
#
#   bash scripts/run.sh [vkconv run flags...]
#
# installs what is missing (scripts/setup.sh; fast when everything is there), builds vkconv
# (Release, build/), and runs `vkconv run`: the alexnet1 layer by default, checked against the CPU
# reference, with its GPU time. Any flag of `vkconv run` may follow (see `vkconv run --help`).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ "$(id -u)" == 0 && -f /etc/debian_version ]]; then
  bash "$REPO/scripts/setup.sh"
fi
# shellcheck disable=SC1091
[[ -f "$REPO/scripts/env.sh" ]] && . "$REPO/scripts/env.sh"
cmake -S "$REPO" -B "$REPO/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKCONV_BUILD_TOOLS=ON >/dev/null
cmake --build "$REPO/build" -j "${VKCONV_JOBS:-2}" --target vkconv_cli
exec "$REPO/build/tools/vkconv/vkconv" run "$@"
