# Source this on the GPU machine (bash): unpacks the Debian packages carried in .deps/ into a
# private prefix (never into /) and points CMake and the loader at it. A no-op where the
# libraries are already installed.
_fattn_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -d "$_fattn_root/.deps" ] && ! [ -f /usr/lib/x86_64-linux-gnu/cmake/hwy/hwy-config.cmake ]; then
  _fattn_prefix=/tmp/fattn-deps
  mkdir -p "$_fattn_prefix"
  for _deb in "$_fattn_root"/.deps/*.deb; do dpkg -x "$_deb" "$_fattn_prefix"; done
  export CMAKE_PREFIX_PATH="$_fattn_prefix/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$_fattn_prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export CPATH="$_fattn_prefix/usr/include${CPATH:+:$CPATH}"
fi
unset _fattn_root _fattn_prefix _deb
