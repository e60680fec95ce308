#!/usr/bin/env bash
# vkconv dependency prefix (made by scripts/setup.sh).
#   . scripts/env.sh            exports VKCONV_DEPS_PREFIX, puts $PREFIX/bin on PATH
#   eval "$(scripts/env.sh)"    same, from the printed export lines
VKCONV_DEPS_PREFIX="${VKCONV_DEPS_PREFIX:-/opt/vkconv-deps}"
if (return 0 2>/dev/null); then   # sourced
  export VKCONV_DEPS_PREFIX
  case ":$PATH:" in *":$VKCONV_DEPS_PREFIX/bin:"*) ;; *) PATH="$VKCONV_DEPS_PREFIX/bin:$PATH"; export PATH ;; esac
else
  # shellcheck disable=SC2016 # $PATH is meant literally
  printf 'export VKCONV_DEPS_PREFIX="%s"\nexport PATH="%s/bin:$PATH"\n' "$VKCONV_DEPS_PREFIX" "$VKCONV_DEPS_PREFIX"
fi
