#!/usr/bin/env bash
# vkconv dependency setup for Debian 12 (bookworm).
#
#   scripts/setup.sh [--with-mesa26]
#
# Installs build/test packages from bookworm (+ Mesa 25 lavapipe from
# bookworm-backports) and builds a small dependency prefix OUTSIDE the clone
# (default /opt/vkconv-deps, env VKCONV_DEPS_PREFIX) holding:
#   include/vulkan, include/vk_video  Vulkan headers from Debian 13 (coopmat/coopmat2 aware)
#   include/vk_mem_alloc.h            VMA from Debian 13
#   bin/glslangValidator, bin/glslang glslang 15.x built from Debian 13's source package
#   share/nanobind                    nanobind 2.5 (Debian 13's nanobind-dev; Debian 12 has none),
#                                     for the Python module
# With --with-mesa26 (or VKCONV_MESA26=1) it also debootstraps a Debian 13 root
# (default /var/cache/vkconv/trixie-root, env VKCONV_MESA26_ROOT) with Mesa 26
# lavapipe from trixie-backports, for VK_KHR_cooperative_matrix testing.
#
# Idempotent: every step checks its result (or a stamp) first, so a re-run on a
# complete machine takes a few seconds. Any failure exits non-zero, loudly.
set -euo pipefail

PREFIX="${VKCONV_DEPS_PREFIX:-/opt/vkconv-deps}"
MESA26_ROOT="${VKCONV_MESA26_ROOT:-/var/cache/vkconv/trixie-root}"
WITH_MESA26="${VKCONV_MESA26:-0}"
JOBS="${VKCONV_JOBS:-2}"

for arg in "$@"; do
  case "$arg" in
    --with-mesa26) WITH_MESA26=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

log() { echo "[setup] $*" >&2; }
die() { echo "[setup] ERROR: $*" >&2; exit 1; }

# One scratch dir per run; also never leave /proc mounted in the Mesa 26 root.
WORK=$(mktemp -d); chmod 755 "$WORK"   # _apt (apt-get download sandbox) must reach it
cleanup() {
  rm -rf "$WORK"
  if mountpoint -q "$MESA26_ROOT/proc" 2>/dev/null; then umount "$MESA26_ROOT/proc" || true; fi
}
trap cleanup EXIT

# Wait for a concurrent apt/dpkg run instead of failing at once.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
export DEBIAN_FRONTEND=noninteractive
# Keep the user's pyenv etc. out of builds: numpy is installed for /usr/bin/python3.
SYS_PY=/usr/bin/python3

SOURCES_FILE=/etc/apt/sources.list.d/vkconv.sources
PIN_FILE=/etc/apt/preferences.d/vkconv.pref
GLSLANG_STAMP="$PREFIX/.stamp-glslang"
HEADERS_STAMP="$PREFIX/.stamp-headers"
MESA26_STAMP="$MESA26_ROOT/.vkconv-mesa26-done"
NANOBIND_STAMP="$PREFIX/.stamp-nanobind"

HOST_PKGS=(g++ cmake ninja-build pkg-config dpkg-dev
           libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
           python3-numpy libvulkan1 libvulkan-dev vulkan-tools vulkan-validationlayers
           debootstrap
           python3-dev python3-pytest)  # the Python module (nanobind: see install_nanobind)
# Debian 13 binary packages whose headers we only unpack (dpkg-deb -x) into $PREFIX.
# Trixie has no separate Vulkan headers package: vulkan_core.h and vk_video/ ship
# in libvulkan-dev (source vulkan-loader, Architecture: amd64, but the headers are
# arch-independent); VMA is libvulkan-memory-allocator-dev (Architecture: all).
TRIXIE_HEADER_PKGS=(libvulkan-dev libvulkan-memory-allocator-dev)

prefix_complete() {
  [[ -f "$GLSLANG_STAMP" && -f "$HEADERS_STAMP" && -x "$PREFIX/bin/glslangValidator" ]] || return 1
  [[ -f "$NANOBIND_STAMP" ]] || return 1
  [[ "$WITH_MESA26" != 1 || -f "$MESA26_STAMP" ]]
}

# ---------------------------------------------------------------- preflight
check_host() {
  local why=""
  [[ "$(id -u)" == 0 ]] || why="must run as root"
  if [[ -z "$why" ]]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    [[ "${ID:-}" == debian && "${VERSION_ID:-}" == 12 ]] || why="needs Debian 12 (found ${PRETTY_NAME:-unknown})"
  fi
  if [[ -n "$why" ]]; then
    if prefix_complete; then
      log "$why; prefix $PREFIX is already complete, only reporting versions"
      return 1
    fi
    die "$why (and $PREFIX is not complete yet)"
  fi
  return 0
}

# --------------------------------------------------------- apt sources/pins
# Prints the archive URI of the Debian 'bookworm' suite from the existing apt
# configuration (one-line .list files and deb822 .sources files).
find_debian_uri() {
  local f uri
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    # deb [options] URI suite components...
    uri=$(awk '$1=="deb" { i=2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                           if ($(i+1)=="bookworm") { print $i; exit } }' "$f")
    [[ -n "$uri" ]] && { echo "${uri%/}"; return 0; }
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" && "$f" != "$SOURCES_FILE" ]] || continue
    # Stanzas are separated by blank lines; pick one whose Suites has 'bookworm'.
    uri=$(awk 'BEGIN { RS=""; FS="\n" }
      { u=""; s=0; t=0; en=1
        for (i=1; i<=NF; i++) {
          if ($i ~ /^URIs:/)    { split(substr($i,6), a, " "); u=a[1] }
          if ($i ~ /^Suites:/)  { n=split(substr($i,8), b, " "); for (j=1;j<=n;j++) if (b[j]=="bookworm") s=1 }
          if ($i ~ /^Types:/)   { if ($i ~ /(^|[ \t])deb([ \t]|$)/) t=1 }
          if ($i ~ /^Enabled:[ \t]*no/) en=0
        }
        if (u!="" && s && t && en) { print u; exit } }' "$f")
    [[ -n "$uri" ]] && { echo "${uri%/}"; return 0; }
  done
  return 1
}

setup_apt_sources() {
  local uri need_update=0
  if [[ ! -f "$SOURCES_FILE" ]]; then
    uri=$(find_debian_uri) || die "no 'bookworm' suite found in /etc/apt/sources.list{,.d/*.list,.d/*.sources}"
    log "adding bookworm-backports and trixie (pinned to 1) from $uri"
    cat > "$SOURCES_FILE.tmp" <<EOF
# Written by vkconv scripts/setup.sh. Trixie is pinned to 1 in $PIN_FILE:
# used only for explicit 'apt-get download/source' of headers and glslang.
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    mv "$SOURCES_FILE.tmp" "$SOURCES_FILE"
    need_update=1
  fi
  if [[ ! -f "$PIN_FILE" ]]; then
    cat > "$PIN_FILE" <<'EOF'
# Written by vkconv scripts/setup.sh: never take anything from trixie implicitly.
Package: *
Pin: release n=trixie
Pin-Priority: 1

# bookworm-backports keeps its default (NotAutomatic) priority; use -t to pick it.
Package: *
Pin: release n=bookworm-backports
Pin-Priority: 100
EOF
  fi
  # Lists missing (fresh machine, apt-get clean of lists, ...) -> update too.
  compgen -G '/var/lib/apt/lists/*_dists_trixie_InRelease' >/dev/null || need_update=1
  compgen -G '/var/lib/apt/lists/*_dists_trixie_main_source_Sources*' >/dev/null || need_update=1
  compgen -G '/var/lib/apt/lists/*_dists_bookworm-backports_InRelease' >/dev/null || need_update=1
  if (( need_update )); then
    log "apt-get update"
    apt-get "${APT_OPTS[@]}" update -qq || die "apt-get update failed"
  fi
}

# ------------------------------------------------------------ host packages
install_host_packages() {
  local missing=() p st mesa_ver cand
  for p in "${HOST_PKGS[@]}"; do
    st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    [[ "$st" == ii* ]] || missing+=("$p")
  done
  if (( ${#missing[@]} )); then
    log "installing: ${missing[*]}"
    apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}" \
      || die "apt-get install ${missing[*]} failed"
  fi
  # Mesa 25.x lavapipe from bookworm-backports (bookworm itself has 22.3).
  mesa_ver=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' mesa-vulkan-drivers 2>/dev/null || true)
  if [[ ! "$mesa_ver" =~ ^ii\ +(2[5-9]|[3-9][0-9])\. ]]; then
    cand=$(apt-cache "${APT_OPTS[@]}" -t bookworm-backports policy mesa-vulkan-drivers | awk '/Candidate:/ { print $2 }')
    [[ "$cand" =~ ^25\. ]] || die "bookworm-backports offers mesa-vulkan-drivers '$cand', expected 25.x"
    log "installing mesa-vulkan-drivers $cand from bookworm-backports"
    apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers \
      || die "apt-get install -t bookworm-backports mesa-vulkan-drivers failed"
  fi
}

# -------------------------------------------------- Debian 13 headers (no dpkg -i)
install_trixie_headers() {
  local want have tmp p deb
  want=$(for p in "${TRIXIE_HEADER_PKGS[@]}"; do
           printf '%s=%s ' "$p" "$(apt-cache show "$p/trixie" 2>/dev/null | awk '/^Version:/ { print $2; exit }')"
         done)
  have=$(cat "$HEADERS_STAMP" 2>/dev/null || true)
  [[ "$have" == "$want" && -f "$PREFIX/include/vulkan/vulkan_core.h" && -f "$PREFIX/include/vk_mem_alloc.h" ]] && return 0

  log "unpacking Debian 13 headers: $want"
  mkdir -p "$PREFIX/include"
  tmp="$WORK/headers"; mkdir -p "$tmp"
  # apt-get download drops privileges to _apt; let it write into the temp dir.
  chown _apt "$tmp" 2>/dev/null || true
  for p in "${TRIXIE_HEADER_PKGS[@]}"; do
    (cd "$tmp" && apt-get "${APT_OPTS[@]}" download -qq "$p/trixie") || die "apt-get download $p/trixie failed"
  done
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  [[ -f "$tmp/root/usr/include/vulkan/vulkan_core.h" ]] || die "trixie ${TRIXIE_HEADER_PKGS[*]} did not contain vulkan/vulkan_core.h"
  [[ -f "$tmp/root/usr/include/vk_mem_alloc.h" ]] || die "trixie libvulkan-memory-allocator-dev did not contain vk_mem_alloc.h"
  rm -rf "$PREFIX/include/vulkan" "$PREFIX/include/vk_video"
  cp -a "$tmp/root/usr/include/vulkan" "$PREFIX/include/"
  [[ -d "$tmp/root/usr/include/vk_video" ]] && cp -a "$tmp/root/usr/include/vk_video" "$PREFIX/include/"
  cp -a "$tmp/root/usr/include/vk_mem_alloc.h" "$PREFIX/include/"
  for ext in VK_KHR_cooperative_matrix VK_NV_cooperative_matrix2; do
    grep -q "#define ${ext} " "$PREFIX/include/vulkan/vulkan_core.h" || die "headers lack $ext"
  done
  echo "$want" > "$HEADERS_STAMP"
}

# ------------------------------------------------ nanobind from Debian 13 (no dpkg -i)
# nanobind-dev (Architecture: all) holds nanobind's CMake package, headers, sources and
# stubgen.py; it is unpacked into $PREFIX/share/nanobind, where CMake finds it through
# VKCONV_DEPS_PREFIX. nanobind 2.5 needs tsl::robin_map >= 1.3 (Debian 12 has 1.2.1): Debian 13's
# robin-map-dev headers go where nanobind looks for its bundled copy (ext/robin_map/include).
NANOBIND_PKGS=(nanobind-dev robin-map-dev)
install_nanobind() {
  local want tmp p deb nb="$PREFIX/share/nanobind"
  want=$(for p in "${NANOBIND_PKGS[@]}"; do
           printf '%s=%s ' "$p" "$(apt-cache show "$p/trixie" 2>/dev/null | awk '/^Version:/ { print $2; exit }')"
         done)
  [[ "$(cat "$NANOBIND_STAMP" 2>/dev/null || true)" == "$want" && -f "$nb/cmake/nanobind-config.cmake" \
     && -f "$nb/ext/robin_map/include/tsl/robin_map.h" ]] && return 0
  log "unpacking Debian 13 nanobind into $nb: $want"
  tmp="$WORK/nanobind"; mkdir -p "$tmp"
  chown _apt "$tmp" 2>/dev/null || true
  for p in "${NANOBIND_PKGS[@]}"; do
    (cd "$tmp" && apt-get "${APT_OPTS[@]}" download -qq "$p/trixie") || die "apt-get download $p/trixie failed"
  done
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  [[ -f "$tmp/root/usr/share/nanobind/cmake/nanobind-config.cmake" && -f "$tmp/root/usr/share/nanobind/stubgen.py" ]] \
    || die "nanobind-dev lacks cmake/nanobind-config.cmake or stubgen.py"
  [[ -f "$tmp/root/usr/include/tsl/robin_map.h" ]] || die "robin-map-dev lacks tsl/robin_map.h"
  mkdir -p "$tmp/root/usr/share/nanobind/ext/robin_map/include"
  cp -a "$tmp/root/usr/include/tsl" "$tmp/root/usr/share/nanobind/ext/robin_map/include/"
  mkdir -p "$PREFIX/share"
  rm -rf "$nb"
  cp -a "$tmp/root/usr/share/nanobind" "$PREFIX/share/"
  echo "$want" > "$NANOBIND_STAMP"
}

# ----------------------------------------------------- glslang from trixie source
glslang_selftest() {
  local glslang="$1" t
  t="$WORK/selftest"; mkdir -p "$t"
  cat > "$t/khr.comp" <<'EOF'
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float16_t d[]; };
void main() {
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
  coopMatLoad(a, d, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
  coopMatStore(a, d, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}
EOF
  cat > "$t/nv2.comp" <<'EOF'
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float16_t d[]; };
void main() {
  tensorLayoutNV<2> tl = createTensorLayoutNV(2);
  tl = setTensorLayoutDimensionNV(tl, 64, 64);
  coopmat<float16_t, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseA> a;
  coopMatLoadTensorNV(a, d, 0, sliceTensorLayoutNV(tl, 0, 16, 0, 16));
  coopMatStoreTensorNV(a, d, 0, sliceTensorLayoutNV(tl, 16, 16, 0, 16));
}
EOF
  local ok=0
  "$glslang" --target-env vulkan1.3 -o "$t/khr.spv" "$t/khr.comp" >"$t/log" 2>&1 \
    && "$glslang" --target-env vulkan1.3 -o "$t/nv2.spv" "$t/nv2.comp" >>"$t/log" 2>&1 || ok=1
  (( ok == 0 )) || { cat "$t/log" >&2; return 1; }
}

build_glslang() {
  local ver src bld
  ver=$(apt-cache showsrc glslang 2>/dev/null | awk '/^Version:/ { print $2 }' | sort -V | tail -1)
  [[ "$ver" =~ ^15\. ]] || die "trixie glslang source version is '$ver', expected 15.x (deb-src for trixie missing?)"
  if [[ "$(cat "$GLSLANG_STAMP" 2>/dev/null || true)" == "$ver" && -x "$PREFIX/bin/glslangValidator" ]]; then
    return 0
  fi
  log "building glslang $ver from Debian 13 source into $PREFIX"
  src="$PREFIX/src"; bld="$PREFIX/build/glslang"
  rm -rf "$src" "$bld"; mkdir -p "$src" "$bld"
  chown _apt "$src" 2>/dev/null || true
  (cd "$src" && apt-get "${APT_OPTS[@]}" source -qq --download-only "glslang=$ver") \
    || die "apt-get source glslang=$ver failed"
  # Debian's patches make SPIRV-Tools (via pkg-config) mandatory; we want the
  # pristine upstream tree, which builds without it when ENABLE_OPT=OFF.
  local dir="$src/glslang"
  # (its "cannot verify inline signature" warning is noise: apt already checked
  # the .dsc against the signed Sources index; tarball checksums are still verified)
  dpkg-source --skip-patches -x "$src"/glslang_*.dsc "$dir" >"$src/unpack.log" 2>&1 \
    || { cat "$src/unpack.log" >&2; die "dpkg-source -x glslang failed"; }
  # No SPIRV-Tools optimizer and no external deps: glslang carries its own copy
  # of the SPIR-V headers, so nothing else is needed.
  cmake -S "$dir" -B "$bld" -G Ninja -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib \
    -DENABLE_OPT=OFF -DALLOW_EXTERNAL_SPIRV_TOOLS=OFF -DBUILD_EXTERNAL=OFF \
    -DGLSLANG_TESTS=OFF -DGLSLANG_ENABLE_INSTALL=ON -DENABLE_GLSLANG_BINARIES=ON \
    -DBUILD_SHARED_LIBS=OFF -DPython3_EXECUTABLE="$SYS_PY" >"$bld.configure.log" 2>&1 \
    || { tail -40 "$bld.configure.log" >&2; die "glslang cmake configure failed (log: $bld.configure.log)"; }
  cmake --build "$bld" -j "$JOBS" >"$bld.build.log" 2>&1 \
    || { tail -40 "$bld.build.log" >&2; die "glslang build failed (log: $bld.build.log)"; }
  cmake --install "$bld" >/dev/null || die "glslang install failed"
  [[ -x "$PREFIX/bin/glslangValidator" ]] || die "glslang install produced no $PREFIX/bin/glslangValidator"
  glslang_selftest "$PREFIX/bin/glslangValidator" || die "glslang $ver cannot compile coopmat / coopmat2 test shaders"
  rm -rf "$PREFIX/build" "$src"
  echo "$ver" > "$GLSLANG_STAMP"
}

# -------------------------------------------------------- Mesa 26 trixie root
# vulkaninfo inside the root, with a clean environment and /proc mounted.
chroot_run() {
  local rc=0
  mountpoint -q "$MESA26_ROOT/proc" || mount -t proc proc "$MESA26_ROOT/proc"
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    chroot "$MESA26_ROOT" "$@" || rc=$?
  umount "$MESA26_ROOT/proc" 2>/dev/null || true
  return $rc
}

verify_mesa26() {
  local sum full
  # Capture first: 'vulkaninfo | grep -q' would die of SIGPIPE under pipefail.
  sum=$(chroot_run vulkaninfo --summary 2>/dev/null) || { echo "vulkaninfo --summary failed in $MESA26_ROOT" >&2; return 1; }
  grep -q 'llvmpipe' <<<"$sum" || { echo "no llvmpipe device in $MESA26_ROOT" >&2; return 1; }
  grep -Eq 'driverInfo *= *Mesa 26\.' <<<"$sum" || { echo "lavapipe in $MESA26_ROOT is not Mesa 26: $(grep driverInfo <<<"$sum")" >&2; return 1; }
  full=$(chroot_run vulkaninfo 2>/dev/null) || { echo "vulkaninfo failed in $MESA26_ROOT" >&2; return 1; }
  grep -q 'VK_KHR_cooperative_matrix ' <<<"$full" \
    || { echo "lavapipe in $MESA26_ROOT does not list VK_KHR_cooperative_matrix" >&2; return 1; }
}

setup_mesa26_root() {
  [[ -f "$MESA26_STAMP" ]] && return 0
  local uri
  uri=$(find_debian_uri) || die "no 'bookworm' suite found in apt sources"
  # A root left behind by an interrupted run: start over (only if nothing is mounted in it).
  if [[ -d "$MESA26_ROOT" && ! -f "$MESA26_ROOT/.vkconv-debootstrap-done" ]]; then
    umount "$MESA26_ROOT/proc" 2>/dev/null || true
    findmnt -rn -o TARGET | grep -q "^$MESA26_ROOT/" && die "something is mounted under $MESA26_ROOT; refusing to delete it"
    log "removing incomplete $MESA26_ROOT"
    rm -rf --one-file-system "$MESA26_ROOT"
  fi
  if [[ ! -f "$MESA26_ROOT/.vkconv-debootstrap-done" ]]; then
    log "debootstrap trixie into $MESA26_ROOT (a few minutes)"
    mkdir -p "$(dirname "$MESA26_ROOT")"
    debootstrap --variant=minbase trixie "$MESA26_ROOT" "$uri" >"$MESA26_ROOT.debootstrap.log" 2>&1 \
      || { tail -30 "$MESA26_ROOT.debootstrap.log" >&2; die "debootstrap trixie failed (log: $MESA26_ROOT.debootstrap.log)"; }
    touch "$MESA26_ROOT/.vkconv-debootstrap-done"
  fi
  cat > "$MESA26_ROOT/etc/apt/sources.list.d/vkconv-backports.sources" <<EOF
Types: deb
URIs: $uri
Suites: trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # Name resolution for apt inside the root.
  cp -L /etc/resolv.conf "$MESA26_ROOT/etc/resolv.conf" 2>/dev/null || true
  log "installing Mesa 26 (trixie-backports) into $MESA26_ROOT"
  # No /dev/pts in the root: tell dpkg not to try a pty for its log.
  local CAPT=("${APT_OPTS[@]}" -o Dpkg::Use-Pty=0)
  chroot_run apt-get "${CAPT[@]}" update -qq || die "apt-get update in $MESA26_ROOT failed"
  chroot_run apt-get "${CAPT[@]}" install -y -qq --no-install-recommends -t trixie-backports \
    mesa-vulkan-drivers libvulkan1 || die "installing mesa-vulkan-drivers from trixie-backports in $MESA26_ROOT failed"
  chroot_run apt-get "${CAPT[@]}" install -y -qq --no-install-recommends \
    vulkan-tools vulkan-validationlayers || die "installing vulkan-tools in $MESA26_ROOT failed"
  chroot_run apt-get clean
  verify_mesa26 || die "Mesa 26 root verification failed"
  touch "$MESA26_STAMP"
}

# ------------------------------------------------------------------ report
# "driverInfo; coopmat extensions" from a vulkaninfo command (host or chroot).
lavapipe_info() {
  local sum full ext
  sum=$("$@" --summary 2>/dev/null || true)
  full=$("$@" 2>/dev/null || true)
  ext=$(grep -oE 'VK_(KHR|NV)_cooperative_matrix2? ' <<<"$full" | sort -u | tr -d ' ' | paste -sd, -)
  echo "$(awk -F'= *' '/driverInfo/ { print $2; exit }' <<<"$sum"); coopmat: ${ext:-none}"
}

report() {
  local v
  local h="$PREFIX/include/vulkan/vulkan_core.h" api
  v=$("$PREFIX/bin/glslangValidator" --version 2>/dev/null | awk '/^Glslang Version/ { sub(/.*:/, "", $3); print $3 }')
  echo "glslang:        ${v:-?} (Debian source $(cat "$GLSLANG_STAMP" 2>/dev/null); $PREFIX/bin/glslangValidator)"
  v=$(awk '$1=="#define" && $2=="VK_HEADER_VERSION" { print $3 }' "$h" 2>/dev/null)
  # VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, 1, 4, VK_HEADER_VERSION) -> 1.4
  api=$(sed -n 's/^#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, *\([0-9]*\), *\([0-9]*\),.*/\1.\2/p' "$h" 2>/dev/null)
  echo "vulkan-headers: ${api:-?}.${v:-?} ($h)"
  echo "nanobind:       $(cat "$NANOBIND_STAMP" 2>/dev/null || echo '?') ($PREFIX/share/nanobind)"
  echo "vma:            $(grep -m1 -o 'Version [0-9.]*' "$PREFIX/include/vk_mem_alloc.h" 2>/dev/null || echo '?') ($PREFIX/include/vk_mem_alloc.h)"
  echo "host lavapipe:  $(lavapipe_info env -u VK_ICD_FILENAMES -u VK_DRIVER_FILES vulkaninfo)"
  if [[ "$WITH_MESA26" == 1 || -f "$MESA26_STAMP" ]]; then
    if [[ "$(id -u)" == 0 ]]; then
      v=$(lavapipe_info chroot_run vulkaninfo)
    else
      v="(needs root to query)"
    fi
    echo "mesa26 root:    ${v:-NOT FOUND} ($MESA26_ROOT)"
  fi
}

# -------------------------------------------------------------------- main
if check_host; then
  setup_apt_sources
  install_host_packages
  install_trixie_headers
  install_nanobind
  build_glslang
  [[ "$WITH_MESA26" == 1 ]] && setup_mesa26_root
fi
report
