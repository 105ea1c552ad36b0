#!/usr/bin/env bash
# Rebuilds cxxabi.o: the C++ runtime of exceptions that bugrank links into a C++ program
# built with `-fwasm-exceptions` (see toolchain/src/exceptions.rs). Debian's wasm32
# libc++abi is built without exceptions (it has no `__cxa_throw`); this is the same
# libc++abi, and libunwind's WebAssembly unwinder, from Debian's own source of LLVM 19,
# built with exceptions, as one relocatable object (an object, not an archive: its
# definitions come before those of Debian's libc++.a, which holds a libc++abi of its own).
#
#   toolchain/exceptions/build.sh [--check] [LLVM-SOURCE-DIR]
#
# Needs Debian's clang-19 and lld-19 (packages clang-19, lld-19). Without a source
# directory the script fetches Debian's source package (apt-get source: a deb-src line for
# bookworm) into ${XDG_CACHE_HOME:-~/.cache}/bugrank/. The same source and compiler give
# the same bytes. With --check it builds into a temporary file and exits 0 when that is
# the committed cxxabi.o, 1 when not, 3 when it cannot build here (no clang-19, no source).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
version=19.1.7
package="llvm-toolchain-19"
debian_version="1:19.1.7-3~deb12u1"
llvm=/usr/lib/llvm-19/bin
"$llvm/clang" --version 2>/dev/null | grep -q "clang version $version" && [ -x "$llvm/wasm-ld" ] ||
  { echo "needs Debian's clang $version and its wasm-ld ($llvm: apt-get install clang-19 lld-19)" >&2; exit 3; }

source_dir="${1:-}"
if [ -z "$source_dir" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/bugrank/$package-$version"
  source_dir="$cache/${package}_$version"
  if [ ! -d "$source_dir/libcxxabi" ]; then
    mkdir -p "$cache"
    (cd "$cache" && apt-get source --download-only "$package=$debian_version" >/dev/null 2>&1 &&
      tar -xJf "${package}_$version.orig.tar.xz" --wildcards "${package}_$version/libcxx/*" "${package}_$version/libcxxabi/*" "${package}_$version/libunwind/*") ||
      { echo "cannot fetch Debian's source of $package $debian_version (apt-get source needs a deb-src line for bookworm)" >&2; exit 3; }
  fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# libc++'s headers as Debian's wasm32 package configures them (its __config_site).
mkdir -p "$work/include"
cp -r "$source_dir/libcxx/include/." "$work/include/"
cp "$source_dir/libcxx/vendor/llvm/default_assertion_handler.in" "$work/include/__assertion_handler"
cat > "$work/include/__config_site" <<'SITE'
#ifndef _LIBCPP___CONFIG_SITE
#define _LIBCPP___CONFIG_SITE
#define _LIBCPP_ABI_VERSION 2
#define _LIBCPP_ABI_NAMESPACE __2
#define _LIBCPP_HAS_NO_THREADS
#define _LIBCPP_HAS_MUSL_LIBC
#define _LIBCPP_HAS_NO_VENDOR_AVAILABILITY_ANNOTATIONS
#define _LIBCPP_HAS_NO_FILESYSTEM
#define _LIBCPP_PSTL_BACKEND_SERIAL
#define _LIBCPP_HARDENING_MODE_DEFAULT 2
#endif
SITE

flags=(--target=wasm32-wasi --sysroot=/usr -O2 -DNDEBUG -fwasm-exceptions "-ffile-prefix-map=$source_dir/=" "-ffile-prefix-map=$work/=")
mkdir -p "$work/objects"
"$llvm/clang" "${flags[@]}" -I"$source_dir/libunwind/include" -D_LIBUNWIND_HAS_NO_THREADS -D_LIBUNWIND_HIDE_SYMBOLS \
  -c "$source_dir/libunwind/src/Unwind-wasm.c" -o "$work/objects/Unwind-wasm.o"
for file in abort_message cxa_aux_runtime cxa_default_handlers cxa_demangle cxa_exception cxa_exception_storage cxa_guard \
  cxa_handlers cxa_personality cxa_vector cxa_virtual fallback_malloc private_typeinfo stdlib_exception stdlib_new_delete \
  stdlib_stdexcept stdlib_typeinfo; do
  "$llvm/clang" "${flags[@]}" -x c++ -std=c++20 -nostdinc++ -isystem "$work/include" -I"$source_dir/libcxxabi/include" \
    -I"$source_dir/libcxx/src" -I"$source_dir/libunwind/include" -D_LIBCXXABI_BUILDING_LIBRARY -D_LIBCPP_BUILDING_LIBRARY \
    -D_LIBCXXABI_HAS_NO_THREADS -c "$source_dir/libcxxabi/src/$file.cpp" -o "$work/objects/$file.o"
done
(cd "$work/objects" && "$llvm/wasm-ld" -r $(ls ./*.o | sort) -o "$work/cxxabi.o")
if [ "$check" = 1 ]; then
  cmp -s "$work/cxxabi.o" "$here/cxxabi.o" || { echo "toolchain/exceptions/cxxabi.o is not what its source builds to" >&2; exit 1; }
  echo "toolchain/exceptions/cxxabi.o is current"
  exit 0
fi
cp "$work/cxxabi.o" "$here/cxxabi.o"
echo "built $here/cxxabi.o ($(wc -c < "$here/cxxabi.o") bytes)"
