#!/usr/bin/env bash
# Installs hlamesh's C++ SDK (the IEEE 1516-2010 C++ API) under PREFIX, building what it needs:
#
#   PREFIX/include/RTI/...                      the standard's 30 headers
#   PREFIX/lib/librti1516e.so.1.0.0             (+ librti1516e.so.1, librti1516e.so)
#   PREFIX/lib/libfedtime1516e.so.1.0.0         (+ libfedtime1516e.so.1, libfedtime1516e.so)
#   PREFIX/lib/pkgconfig/rti1516e.pc            c++ fed.cpp $(pkg-config --cflags --libs rti1516e)
#   PREFIX/lib/cmake/RTI1516e/RTI1516eConfig.cmake (+ ConfigVersion)   find_package(RTI1516e)
#
# Usage: deploy/install-sdk.sh PREFIX
#
# librti1516e is the Rust crate `hlamesh-rti1516e` (capi/): `cargo build --release`, which
# respects CARGO_TARGET_DIR. libfedtime1516e is compiled here from cpp/'s FEDTIME_SOURCES with
# $CXX (default c++) and linked against the installed librti1516e. Every step is bounded in
# time (HLAMESH_SDK_BUILD_TIMEOUT seconds for the cargo build, default 1800).
set -euo pipefail

SDK_VERSION=1.0.0
SDK_MAJOR=1

die() {
  echo "install-sdk: error: $*" >&2
  exit 1
}
say() { echo "install-sdk: $*"; }

[ $# -eq 1 ] && [ -n "$1" ] && [ "${1#-}" = "$1" ] || {
  echo "usage: $0 PREFIX   (e.g. $0 \$HOME/.local or $0 /opt/hlamesh)" >&2
  exit 2
}

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CXX="${CXX:-c++}"

command -v cargo >/dev/null 2>&1 || die "cargo not found (install the Rust toolchain: https://rustup.rs)"
command -v "$CXX" >/dev/null 2>&1 || die "C++ compiler '$CXX' not found (install g++, or set CXX)"
command -v timeout >/dev/null 2>&1 || die "'timeout' (coreutils) not found"
[ -f "$ROOT/capi/Cargo.toml" ] ||
  die "$ROOT/capi/Cargo.toml is missing: this checkout has no librti1516e crate (hlamesh-rti1516e)"

mkdir -p "$1" || die "cannot create $1"
PREFIX="$(cd "$1" && pwd)"

# Run from a cargo process (a test, a build script), the environment carries that package's
# variables (CARGO_PKG_NAME, CARGO_MANIFEST_DIR, OUT_DIR, ...). Build scripts that watch such
# variables would see them change, and this build and the caller's next one would each rebuild
# the other's dependencies; they mean nothing here, so they go.
for v in $(compgen -e); do
  case "$v" in
  CARGO_PKG_* | CARGO_MANIFEST_* | CARGO_CRATE_* | CARGO_BIN_* | CARGO_TARGET_TMPDIR | \
    CARGO_PRIMARY_PACKAGE | CARGO_RUSTC_CURRENT_DIR | OUT_DIR) unset "$v" ;;
  esac
done

# Where cargo puts its output: CARGO_TARGET_DIR, a .cargo/config setting, or target/.
TARGET_DIR="$(cd "$ROOT" && timeout 120 cargo metadata --format-version 1 --no-deps 2>/dev/null |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
[ -n "$TARGET_DIR" ] || die "cargo metadata failed in $ROOT (is this an hlamesh checkout?)"

say "building librti1516e (cargo build --release -p hlamesh-rti1516e, target dir $TARGET_DIR)"
start=$(date +%s)
(cd "$ROOT" && timeout "${HLAMESH_SDK_BUILD_TIMEOUT:-1800}" cargo build --release -p hlamesh-rti1516e) ||
  die "cargo build --release -p hlamesh-rti1516e failed or timed out (output above)"
RTI_SO="$TARGET_DIR/release/librti1516e.so"
[ -f "$RTI_SO" ] || die "the build produced no $RTI_SO"
if command -v readelf >/dev/null 2>&1; then
  soname="$(readelf -d "$RTI_SO" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
  [ "$soname" = "librti1516e.so.$SDK_MAJOR" ] ||
    die "$RTI_SO has SONAME '$soname', expected librti1516e.so.$SDK_MAJOR"
fi

INC="$PREFIX/include"
LIB="$PREFIX/lib"
install -d "$INC" "$LIB" "$LIB/pkgconfig" "$LIB/cmake/RTI1516e" || die "cannot write under $PREFIX"

say "installing headers into $INC/RTI"
rm -rf "$INC/RTI"
(cd "$ROOT/cpp/include" && find RTI -name '*.h' -print0 | while IFS= read -r -d '' h; do
  install -D -m 644 "$h" "$INC/$h"
done)
n="$(find "$INC/RTI" -name '*.h' | wc -l)"
[ "$n" -eq 30 ] || die "installed $n headers, expected the standard's 30"

say "installing librti1516e.so.$SDK_VERSION into $LIB"
install -m 755 "$RTI_SO" "$LIB/librti1516e.so.$SDK_VERSION"
# The release profile keeps line tables (about 65 MB); an installed library carries only its
# symbols unless HLAMESH_SDK_KEEP_DEBUG=1 asks for the debug information too.
if [ "${HLAMESH_SDK_KEEP_DEBUG:-0}" != 1 ] && command -v strip >/dev/null 2>&1; then
  strip --strip-debug "$LIB/librti1516e.so.$SDK_VERSION" ||
    die "strip --strip-debug failed on $LIB/librti1516e.so.$SDK_VERSION"
fi
ln -sfn "librti1516e.so.$SDK_VERSION" "$LIB/librti1516e.so.$SDK_MAJOR"
ln -sfn "librti1516e.so.$SDK_MAJOR" "$LIB/librti1516e.so"

# FEDTIME_SOURCES from cpp/sources.rs: the quoted paths between its name and the closing `];`.
mapfile -t FEDTIME < <(sed -n '/FEDTIME_SOURCES/,/\];/p' "$ROOT/cpp/sources.rs" |
  grep -o '"[^"]*\.cpp"' | tr -d '"')
[ ${#FEDTIME[@]} -gt 0 ] || die "found no FEDTIME_SOURCES in cpp/sources.rs"
say "building libfedtime1516e.so.$SDK_VERSION (${FEDTIME[*]})"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
srcs=()
for s in "${FEDTIME[@]}"; do srcs+=("$ROOT/cpp/$s"); done
timeout 300 "$CXX" -shared -fPIC -O2 -std=c++17 -fvisibility=hidden \
  -I "$INC" "${srcs[@]}" \
  -Wl,-soname,"libfedtime1516e.so.$SDK_MAJOR" -Wl,--no-undefined \
  -L "$LIB" -Wl,-rpath,'$ORIGIN' -lrti1516e \
  -o "$tmp/libfedtime1516e.so.$SDK_VERSION" ||
  die "building libfedtime1516e failed (compiler output above)"
install -m 755 "$tmp/libfedtime1516e.so.$SDK_VERSION" "$LIB/libfedtime1516e.so.$SDK_VERSION"
ln -sfn "libfedtime1516e.so.$SDK_VERSION" "$LIB/libfedtime1516e.so.$SDK_MAJOR"
ln -sfn "libfedtime1516e.so.$SDK_MAJOR" "$LIB/libfedtime1516e.so"

say "writing pkg-config and CMake package files"
subst() { sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$SDK_VERSION|g" "$1" >"$2"; }
subst "$ROOT/deploy/sdk/rti1516e.pc.in" "$LIB/pkgconfig/rti1516e.pc"
subst "$ROOT/deploy/sdk/RTI1516eConfig.cmake.in" "$LIB/cmake/RTI1516e/RTI1516eConfig.cmake"
subst "$ROOT/deploy/sdk/RTI1516eConfigVersion.cmake.in" \
  "$LIB/cmake/RTI1516e/RTI1516eConfigVersion.cmake"

# A federate's first lines, built the way the README says: the SDK links and runs.
cat >"$tmp/check.cpp" <<'EOF'
#include <RTI/RTI1516.h>
#include <memory>
int main() {
  std::unique_ptr<rti1516e::LogicalTimeFactory> f =
      rti1516e::LogicalTimeFactoryFactory::makeLogicalTimeFactory(L"HLAfloat64Time");
  rti1516e::RTIambassadorFactory factory;
  std::unique_ptr<rti1516e::RTIambassador> rti = factory.createRTIambassador();
  return f && rti ? 0 : 1;
}
EOF
timeout 300 "$CXX" -std=c++17 "$tmp/check.cpp" -I "$INC" -L "$LIB" -Wl,-rpath,"$LIB" \
  -lrti1516e -lfedtime1516e -o "$tmp/check" ||
  die "a test program does not build against the installed SDK (compiler output above)"
timeout 60 "$tmp/check" || die "a test program built against the installed SDK failed to run"

say "done in $(($(date +%s) - start)) s. Build a federate with:"
echo "  c++ -std=c++17 fed.cpp \$(PKG_CONFIG_PATH=$LIB/pkgconfig pkg-config --cflags --libs rti1516e)"
echo "  cmake -DCMAKE_PREFIX_PATH=$PREFIX ...   # find_package(RTI1516e)"
