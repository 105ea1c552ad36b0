#!/usr/bin/env bash
# Build CPython 3.13 for WebAssembly (a WASI preview 1 reactor), reproducibly:
# the interpreter bugrank runs Python hand-ins with.
#
#   toolchain/python/build.sh          build python.wasm and python313.zip
#                                      and install them beside this script
#                                      (with sources.txt: the sha256 of
#                                      bugrank's own sources they hold)
#   toolchain/python/build.sh --check  rebuild in a temporary directory and
#                                      compare with the committed files (by
#                                      sha256); exit 1 listing every file that
#                                      differs or is missing, 0 if identical
#
# What is built, from what:
#   python.wasm    CPython 3.13.5 from Debian trixie's source package
#                  python3.13 3.13.5-2+deb13u5 (upstream 3.13.5 plus Debian's
#                  patches, security fixes included), cross-compiled with
#                  CPython's own WASI support (a supported platform since 3.13:
#                  Tools/wasm/config.site-wasm32-wasi, --host=wasm32-wasip1) by
#                  Debian bookworm's clang 19, wasm-ld (lld 19) and compiler-rt
#                  wasm32 builtins, against trixie's wasi-libc (its .deb,
#                  pinned by sha256 and unpacked privately: bookworm's is of
#                  2022, and the C fixtures keep building with it). No
#                  threads, no dynamic loading: every extension module is built
#                  in (zlib from Debian's zlib 1:1.2.13.dfsg-1 source; expat and
#                  libmpdec as bundled with CPython). Linked as a reactor
#                  around bugrank_python.c (no main: the host calls
#                  _initialize, bugrank_init, then takes its snapshot, and
#                  runs programs with bugrank_compile and bugrank_run, or
#                  bugrank_prepare once and bugrank_run_prepared each run; the
#                  Python side is _bugrank.py, in the zip). Exports those and
#                  memory; imports bugrank.choice and bugrank.size (the
#                  generators' host functions, as the built-in module
#                  _bugrank_gen) and only wasi_snapshot_preview1 functions,
#                  exactly these 40 (checked after every build):
#                    environ_get environ_sizes_get
#                    clock_res_get clock_time_get fd_advise
#                    fd_close fd_datasync fd_fdstat_get fd_fdstat_set_flags
#                    fd_filestat_get fd_filestat_set_size
#                    fd_filestat_set_times fd_pread fd_prestat_get
#                    fd_prestat_dir_name fd_pwrite fd_read fd_readdir fd_seek
#                    fd_sync fd_tell fd_write path_create_directory
#                    path_filestat_get path_filestat_set_times path_link
#                    path_open path_readlink path_remove_directory path_rename
#                    path_symlink path_unlink_file poll_oneoff proc_exit
#                    sched_yield random_get sock_accept sock_recv sock_send
#                    sock_shutdown
#   python313.zip  the pure-Python standard library of the same source,
#                  compiled to .pyc (unchecked-hash, optimization level 0,
#                  co_filename /usr/local/lib/python313.zip/<module path>.py),
#                  without test suites, idlelib, tkinter, turtle, turtledemo,
#                  ensurepip, pydoc_data, venv, _pyrepl (the interactive
#                  prompt), and the packages whose C module this build lacks
#                  (ctypes, sqlite3, curses); plus _sysconfigdata__wasm32-wasi.
#
# How to run it (what the guest expects): preopen the directory holding
# python313.zip, read-only, as /usr/local/lib (bugrank_init sets the home
# /usr/local and the one search path /usr/local/lib/python313.zip); then
# nothing else is read. bugrank's sandbox does this (sandbox/src/interpreter.rs).
#
# Recursion: the module's own (shadow) stack is 8 MiB and the default
# recursion limit 1000, as in native CPython; Python-to-Python calls use no C
# stack (since 3.11), but recursion through C (functools.lru_cache, __init__,
# __repr__, ...) uses the runtime's native stack, which wasmtime bounds by
# max_wasm_stack (3.13 also counts it, up to Py_C_RECURSION_LIMIT, 5000 on
# WASI). Measured with 3.11: at wasmtime's default (512 KiB) 300 levels of lru_cache or
# __init__ recursion ran and 400 of __init__ trapped ("call stack
# exhausted") before RecursionError; at 2 MiB every depth up to the default
# limit ended in RecursionError as natively, and with a raised limit 1000
# lru_cache levels ran, 1500 trapped (natively 3000 ran). Deep recursion
# through C wants max_wasm_stack raised further (and a host thread stack to
# match); pure Python recursion only needs sys.setrecursionlimit.
#
# Flags beyond what CPython's configure sets for WASI (it already defines
# _WASI_EMULATED_SIGNAL/GETPID/PROCESS_CLOCKS and links -lwasi-emulated-*):
#   --sysroot=<private dir>   holding only wasi-libc's include/ and lib/ (links
#                             to /usr/include/wasm32-wasi, /usr/lib/wasm32-wasi):
#                             with --sysroot=/usr, clang also searches
#                             /usr/include and configure would find the host's
#                             zlib.h, bzlib.h, ... and fail to link them
#   PKG_CONFIG_LIBDIR=<none>  the host's .pc files are not the target's
#   ZLIB_CFLAGS/ZLIB_LIBS     the wasm32 libz.a built here
#   OPT=-fwrapv -O2 -Wall     -O2 instead of -O3, and no -g
#   --disable-test-modules    no _testcapi & co.
#   --with-pymalloc           (configure's WASI default is without, for no
#                             stated reason) measured here: 10-25% faster on
#                             loops and allocation-heavy code, a smaller
#                             linear memory (list(range(10**6)): 32 MiB
#                             instead of 46), and the same results from 115
#                             modules of CPython's test suite
#   -Wl,--strip-debug         Debian's wasi-libc and compiler-rt builtins
#                             carry DWARF; the name section is kept
#                             (function names in wasmtime's trap backtraces)
#   -z stack-size=8388608 -Wl,--initial-memory=16777216
#                             (after configure's -z stack-size=8388608
#                             -Wl,--stack-first -Wl,--initial-memory=20971520;
#                             wasm-ld takes the last one) 16 MiB to start with
#   -DPy_DEFAULT_RECURSION_LIMIT=1000   native CPython's limit (3.11's WASI
#                             default was 600); Python-to-Python calls use no C stack
#   -ffile-prefix-map=$WORK=/build, BUILD_DATE/BUILD_TIME (Debian's
#   reproducible-buildinfo patch) from the Debian changelog's date,
#   PYTHONHASHSEED=0 (marshal writes a set in hash order: neither the frozen
#   modules nor the .pyc may depend on a random seed),
#   LC_ALL=C TZ=UTC umask 022: the bytes do not depend on where or when.
# In _sysconfigdata__wasm32-wasi the work directory becomes /build and the
# build Python /build/build-python.
# Debian's patches touch configure.ac, so configure is regenerated with
# autoconf, as debian/rules does. No patch of ours is applied.
#
# Toolchain (Debian bookworm packages): clang-19 lld-19 llvm-19 (clang 19.1.7;
# llvm-ar) wasi-libc (0.0~git20220510) libclang-rt-dev-wasm32; autoconf
# dpkg-dev (dpkg-source) make; gcc and zlib1g-dev for the build Python; and
# a deb-src entry for trixie so that `apt-get source` finds python3.13 (and
# one for bookworm, zlib's); curl for trixie's wasi-libc .deb.
# The build Python: a cross build needs a CPython of the same version to
# freeze modules, and it compiles the .pyc and writes the zip; by default it
# is built natively from the same source (about 2.5 of the 4.5 minutes on 2
# cores). $BUILD_PYTHON names another CPython 3.13.5 to use instead.
# $CLANG overrides clang; $JOBS the make parallelism (default nproc).
# toolchain.txt records, at every build, the versions of what shapes the
# bytes; --check with other versions exits 3. $BUGRANK_PYTHON_KEEP=1 keeps
# the work directory (printed) for inspection.
#
# Updating the source. Debian replaces a security update in the archive by the
# next one (as bookworm's python3.11 went from deb12u8 to deb12u9), and the
# pinned version below then cannot be had: the script says so and lists the
# versions apt offers. To move the pin:
#   1. apt-cache showsrc python3.13 | grep ^Version   (the newest the archive
#      serves; a deb-src entry for trixie and trixie-security, apt-get update)
#   2. apt-get source --download-only python3.13=VERSION in an empty folder,
#      then sha256sum its .dsc (apt has checked it against the archive's signed
#      index: the sum pins those bytes from now on)
#   3. set PY_SRC_VERSION and PY_DSC_SHA256 below (and the version in the
#      header), run build.sh, and run the tests that read the interpreter:
#      cargo test -p sandbox --test interpreter, the Python cohorts'
#      end-to-end tests (`cargo test -p end-to-end --test end_to_end python`),
#      then .ci/run
#   4. commit python.wasm, python313.zip, sources.txt and toolchain.txt with
#      the pin, saying what changed in Debian's changelog and whether the
#      Python fixtures' analyses moved (a security fix that touches the
#      interpreter's C code changes the fuel of every run a little, and so the
#      budgets that follow the Python reference's fuel).
# zlib's pin moves the same way, and wasi-libc's (WASI_LIBC_DEB, its sha256:
# the pool's file of the version trixie serves).
#
# Exit status: 0 success; 1 --check found differences; 2 usage error or a
# build error; 3 a required tool or source is missing (named on stderr), or
# --check runs with other versions than toolchain.txt records.

set -euo pipefail

usage() {
    echo "usage: $0 [--check]" >&2
    exit 2
}

check=0
case $# in
    0) ;;
    1) [ "$1" = "--check" ] && check=1 || usage ;;
    *) usage ;;
esac

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
CLANG="${CLANG:-clang-19}"
JOBS="${JOBS:-$(nproc)}"

# The sources, pinned: apt verifies them against the signed archive, and
# these checksums of the .dsc files (which list the tarballs' checksums,
# verified by dpkg-source) pin the exact bytes.
PY_SRC=python3.13
PY_SRC_VERSION=3.13.5-2+deb13u5
PY_DSC_SHA256=4be84e20fb902354fa86955e2fbea6e8bdbd158f54833423488308a9b3532662
# wasi-libc: trixie's package (architecture all), fetched from the archive's pool.
WASI_LIBC_DEB=http://deb.debian.org/debian/pool/main/w/wasi-libc/wasi-libc_0.0~git20241209.574b88d-2_all.deb
WASI_LIBC_SHA256=b7716260051d289248b7667f81fa2792c125d888ff51da3fa09c6272cc0bd11d
ZLIB_SRC=zlib
ZLIB_SRC_VERSION=1:1.2.13.dfsg-1
ZLIB_DSC_SHA256=3fa1e6b2fc525062aa88207dda52fed8e045373c809d362fe8a2bfbf7cf515a8

OUTPUTS=(python.wasm python313.zip)

export LC_ALL=C TZ=UTC PYTHONHASHSEED=0
umask 022
# Nothing from the caller's environment may steer the compilers or Python.
unset CFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS CC CXX CPP AR RANLIB LD \
    MAKEFLAGS MFLAGS MAKELEVEL CONFIG_SITE PKG_CONFIG_PATH PKG_CONFIG_LIBDIR \
    PKG_CONFIG_SYSROOT_DIR PYTHONPATH PYTHONHOME PYTHONSTARTUP PYTHONSAFEPATH \
    PYTHONDONTWRITEBYTECODE PYTHONOPTIMIZE PYTHONUSERBASE PYTHONNOUSERSITE \
    _PYTHON_HOST_PLATFORM _PYTHON_SYSCONFIGDATA_NAME _PYTHON_PROJECT_BASE \
    SOURCE_DATE_EPOCH

fail() {
    echo "build.sh: $*" >&2
    exit 2
}

# ---------------------------------------------------------------------------
# Toolchain checks (exit 3)
# ---------------------------------------------------------------------------

missing=()
need() { # need COMMAND PACKAGE
    command -v "$1" >/dev/null 2>&1 || missing+=("$1 not found in PATH (Debian: apt-get install $2)")
}
need apt-get apt
need apt-cache apt
need dpkg-source dpkg-dev
need dpkg-parsechangelog dpkg-dev
need dpkg-query dpkg
need autoconf autoconf
need make make
need sha256sum coreutils
if [ -n "${BUILD_PYTHON:-}" ]; then
    if ! "$BUILD_PYTHON" -S -c 'import sys, zlib; sys.exit(sys.version_info[:3] != (3, 13, 5))' 2>/dev/null; then
        missing+=("\$BUILD_PYTHON ($BUILD_PYTHON) is not a CPython 3.13.5 with zlib")
    fi
else
    need gcc gcc
    [ -f /usr/include/zlib.h ] || missing+=("zlib.h not found (Debian: apt-get install zlib1g-dev; the build Python writes the zip with it)")
fi

need curl curl
need dpkg-deb dpkg
LLVM_AR=""
if ! command -v "$CLANG" >/dev/null 2>&1; then
    missing+=("clang ($CLANG) not found in PATH (Debian: apt-get install clang-19 lld-19)")
else
    if ! "$CLANG" -print-targets 2>/dev/null | grep '^ *wasm32 ' >/dev/null; then
        missing+=("clang ($CLANG) cannot target wasm32")
    fi
    ld="$("$CLANG" --target=wasm32-wasi -print-prog-name=wasm-ld 2>/dev/null || true)"
    if [ -z "$ld" ] || ! command -v "$ld" >/dev/null 2>&1; then
        missing+=("wasm-ld (lld) not found (Debian: apt-get install lld-19)")
    fi
    LLVM_AR="$(dirname "$(readlink -f "$(command -v "$CLANG")")")/llvm-ar"
    [ -x "$LLVM_AR" ] || missing+=("llvm-ar not found beside clang ($LLVM_AR) (Debian: apt-get install llvm-19)")
    rt="$("$CLANG" --target=wasm32-wasi -print-libgcc-file-name 2>/dev/null || true)"
    if [ -z "$rt" ] || [ ! -f "$rt" ]; then
        missing+=("compiler-rt builtins for wasm32 not found${rt:+ ($rt)} (Debian: apt-get install libclang-rt-19-dev-wasm32)")
    fi
fi
src_known() { # src_known PACKAGE VERSION
    apt-cache showsrc "$1" 2>/dev/null | grep -x "Version: $2" >/dev/null
}
if command -v apt-cache >/dev/null 2>&1; then
    for pv in "$PY_SRC=$PY_SRC_VERSION" "$ZLIB_SRC=$ZLIB_SRC_VERSION"; do
        if ! src_known "${pv%%=*}" "${pv#*=}"; then
            offered="$(apt-cache showsrc "${pv%%=*}" 2>/dev/null | sed -n 's/^Version: //p' | sort -u | tr '\n' ' ')"
            if [ -z "$offered" ]; then
                missing+=("source package $pv unknown to apt: add deb-src entries for trixie (python3.13) and bookworm (zlib) (copies of /etc/apt/sources.list.d/debian.sources with 'Types: deb-src' and the suite, in a new file) and run apt-get update")
            else
                missing+=("source package $pv is no longer served: apt offers ${offered% }; move the pin (other bytes): see 'Updating the source' at the top of this script")
            fi
        fi
    done
fi

if [ "${#missing[@]}" -gt 0 ]; then
    echo "build.sh: missing toolchain:" >&2
    printf '  - %s\n' "${missing[@]}" >&2
    exit 3
fi

# ---------------------------------------------------------------------------
# Toolchain versions: other versions give other bytes (toolchain.txt)
# ---------------------------------------------------------------------------

pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }
toolchain() {
    echo "source $PY_SRC $PY_SRC_VERSION"
    echo "source $ZLIB_SRC $ZLIB_SRC_VERSION"
    "$CLANG" --version | sed -n 1p
    "$("$CLANG" --target=wasm32-wasi -print-prog-name=wasm-ld)" --version | sed -n 1p
    "$LLVM_AR" --version | grep -m1 'LLVM version' | sed 's/^ *//'
    echo "wasi-libc ${WASI_LIBC_DEB##*/} sha256 $WASI_LIBC_SHA256"
    rtpkg="$(dpkg-query -S "$(readlink -f "$("$CLANG" --target=wasm32-wasi -print-libgcc-file-name)")" 2>/dev/null | cut -d: -f1 | sed -n 1p)"
    echo "compiler-rt wasm32 builtins ${rtpkg:-unknown} $(pkgver "${rtpkg:-unknown}")"
    autoconf --version | sed -n 1p
    echo "zlib1g $(pkgver zlib1g) (the build Python's zlib deflates the zip)"
}
TOOLCHAIN="$(toolchain)"
if [ "$check" -eq 1 ] && [ -f "$HERE/toolchain.txt" ] && [ "$TOOLCHAIN" != "$(cat "$HERE/toolchain.txt")" ]; then
    echo "build.sh --check: the committed files were built with another toolchain:" >&2
    sed 's/^/  committed: /' "$HERE/toolchain.txt" >&2
    printf '%s\n' "$TOOLCHAIN" | sed 's/^/  here:      /' >&2
    exit 3
fi

# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------

WORK="$(mktemp -d "${TMPDIR:-/tmp}/bugrank-python.XXXXXX")"
WORK="$(cd "$WORK" && pwd -P)"
if [ "${BUGRANK_PYTHON_KEEP:-0}" = 1 ]; then
    echo "build.sh: work directory $WORK (kept)" >&2
else
    trap 'rm -rf "$WORK"' EXIT
fi
OUT="$WORK/out"
mkdir -p "$WORK/dl" "$OUT"

step() { echo "build.sh: $* ($(date -u +%H:%M:%S))" >&2; }

step "downloading $PY_SRC $PY_SRC_VERSION and $ZLIB_SRC $ZLIB_SRC_VERSION"
(cd "$WORK/dl" && apt-get source --download-only -o APT::Sandbox::User=root -qq \
    "$PY_SRC=$PY_SRC_VERSION" "$ZLIB_SRC=$ZLIB_SRC_VERSION" >&2) ||
    { echo "build.sh: apt-get source failed" >&2; exit 3; }
verify_dsc() { # verify_dsc FILE SHA256
    [ -f "$1" ] || { echo "build.sh: $1 was not downloaded" >&2; exit 3; }
    echo "$2  $1" | sha256sum -c --quiet - >&2 || fail "$1 does not have the pinned sha256 $2"
}
PY_DSC="$WORK/dl/${PY_SRC}_${PY_SRC_VERSION#*:}.dsc"
ZLIB_DSC="$WORK/dl/${ZLIB_SRC}_${ZLIB_SRC_VERSION#*:}.dsc"
verify_dsc "$PY_DSC" "$PY_DSC_SHA256"
verify_dsc "$ZLIB_DSC" "$ZLIB_DSC_SHA256"
step "downloading trixie's wasi-libc"
curl -sSfL -o "$WORK/dl/wasi-libc.deb" "$WASI_LIBC_DEB" || { echo "build.sh: cannot download $WASI_LIBC_DEB" >&2; exit 3; }
echo "$WASI_LIBC_SHA256  $WORK/dl/wasi-libc.deb" | sha256sum -c --quiet - >&2 || fail "$WASI_LIBC_DEB does not have the pinned sha256"
dpkg-deb -x "$WORK/dl/wasi-libc.deb" "$WORK/wasi-libc" || fail "cannot unpack $WASI_LIBC_DEB"
SYSROOT_LIBC="$WORK/wasi-libc/usr/lib/wasm32-wasi"
SYSROOT_INC="$WORK/wasi-libc/usr/include/wasm32-wasi"
missing=()
if [ ! -f "$SYSROOT_LIBC/libc.a" ] || [ ! -f "$SYSROOT_LIBC/crt1.o" ] || [ ! -f "$SYSROOT_INC/stdio.h" ]; then
    missing+=("wasi-libc not found in /usr in the downloaded package")
fi
for lib in wasi-emulated-signal wasi-emulated-getpid wasi-emulated-process-clocks; do
    [ -f "$SYSROOT_LIBC/lib$lib.a" ] || missing+=("$SYSROOT_LIBC/lib$lib.a not found (wasi-libc too old?)")
done

if [ "${#missing[@]}" -gt 0 ]; then
    printf 'build.sh: %s\n' "${missing[@]}" >&2
    exit 3
fi

step "unpacking (dpkg-source applies Debian's patches)"
# (gpgv cannot check the maintainers' signatures without debian-keyring, and
# need not: apt checked the .dsc against the archive's signed index, and its
# sha256 is pinned above.)
for d in "$PY_DSC:cpython" "$ZLIB_DSC:zlib-src"; do
    dpkg-source -x "${d%:*}" "$WORK/${d##*:}" >"$WORK/${d##*:}.log" 2>&1 ||
        { cat "$WORK/${d##*:}.log" >&2; fail "dpkg-source -x ${d%:*} failed"; }
done

SRC="$WORK/cpython"
SOURCE_DATE_EPOCH="$(dpkg-parsechangelog -l "$SRC/debian/changelog" -STimestamp)"
export SOURCE_DATE_EPOCH
BUILD_DATE="$(date -u -d "@$SOURCE_DATE_EPOCH" '+%b %e %Y')"
BUILD_TIME="$(date -u -d "@$SOURCE_DATE_EPOCH" '+%H:%M:%S')"

step "regenerating configure (as debian/rules does: Debian's patches change configure.ac)"
(cd "$SRC" && rm -rf autom4te.cache configure && autoconf) >&2 || fail "autoconf failed"
# The pure-Python stdlib, taken before any build step writes __pycache__.
cp -a "$SRC/Lib" "$WORK/Lib"

# ---------------------------------------------------------------------------
# wasm32 sysroot and zlib
# ---------------------------------------------------------------------------

# A sysroot of wasi-libc alone: with --sysroot=/usr clang would also search
# /usr/include (the host's headers).
SYSROOT="$WORK/sysroot"
mkdir -p "$SYSROOT/include" "$SYSROOT/lib"
ln -s "$SYSROOT_INC" "$SYSROOT/include/wasm32-wasi"
ln -s "$SYSROOT_LIBC" "$SYSROOT/lib/wasm32-wasi"
WASM_CC="$CLANG --target=wasm32-wasi --sysroot=$SYSROOT"
PREFIX_MAP="-ffile-prefix-map=$WORK=/build"

step "building zlib for wasm32"
ZLIB="$WORK/zlib-wasm"
mkdir -p "$ZLIB/obj" "$ZLIB/include" "$ZLIB/lib"
for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback \
    inffast inflate inftrees trees uncompr zutil; do
    $WASM_CC -O2 -Wno-deprecated-non-prototype -DHAVE_UNISTD_H -DHAVE_STDARG_H $PREFIX_MAP \
        -c "$WORK/zlib-src/$f.c" -o "$ZLIB/obj/$f.o" || fail "failed to compile zlib's $f.c"
done
(cd "$ZLIB/obj" && "$LLVM_AR" rcsD "$ZLIB/lib/libz.a" adler32.o compress.o crc32.o \
    deflate.o gzclose.o gzlib.o gzread.o gzwrite.o infback.o inffast.o inflate.o \
    inftrees.o trees.o uncompr.o zutil.o) || fail "llvm-ar failed"
cp "$WORK/zlib-src/zlib.h" "$WORK/zlib-src/zconf.h" "$ZLIB/include/"

# ---------------------------------------------------------------------------
# The build Python (native, same source)
# ---------------------------------------------------------------------------

if [ -n "${BUILD_PYTHON:-}" ]; then
    BUILD_PY="$(command -v "$BUILD_PYTHON")"
    step "using $BUILD_PY as the build Python"
else
    step "building the native build Python"
    mkdir -p "$WORK/native"
    (cd "$WORK/native" && ../cpython/configure -C --without-ensurepip >configure.log 2>&1) ||
        { tail -n 30 "$WORK/native/configure.log" >&2; fail "native configure failed"; }
    (cd "$WORK/native" && make -j"$JOBS" >make.log 2>&1) ||
        { tail -n 30 "$WORK/native/make.log" >&2; fail "native make failed"; }
    BUILD_PY="$WORK/native/python"
fi
"$BUILD_PY" -c 'import sys, zlib; assert sys.version_info[:3] == (3, 13, 5)' ||
    fail "the native build Python does not run (or has no zlib)"

# ---------------------------------------------------------------------------
# python.wasm
# ---------------------------------------------------------------------------

step "configuring CPython for wasm32-wasi"
mkdir -p "$WORK/wasi"
(
    cd "$WORK/wasi"
    CONFIG_SITE=../cpython/Tools/wasm/config.site-wasm32-wasi \
    CC="$WASM_CC" CPP="$WASM_CC -E" AR="$LLVM_AR" RANLIB="$LLVM_AR s" \
    PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=/nonexistent \
    ZLIB_CFLAGS="-I$ZLIB/include" ZLIB_LIBS="-L$ZLIB/lib -lz" \
    OPT="-fwrapv -O2 -Wall" \
    CFLAGS="$PREFIX_MAP -DPy_DEFAULT_RECURSION_LIMIT=1000" \
    LDFLAGS="-Wl,--strip-debug" \
    ../cpython/configure -C \
        --host=wasm32-wasip1 \
        --build=x86_64-pc-linux-gnu \
        --with-build-python="$BUILD_PY" \
        --disable-test-modules \
        --with-pymalloc \
        >configure.log 2>&1
) || { tail -n 30 "$WORK/wasi/configure.log" >&2; fail "wasm32-wasi configure failed"; }

step "building python.wasm"
(cd "$WORK/wasi" && make -j"$JOBS" \
    BUILD_DATE="$BUILD_DATE" BUILD_TIME="$BUILD_TIME" \
    LDFLAGS_NODIST="-z stack-size=8388608 -Wl,--initial-memory=16777216" \
    >make.log 2>&1) ||
    { grep -E 'error|Error' "$WORK/wasi/make.log" | tail -n 30 >&2; fail "wasm32-wasi make failed"; }

# The interpreter bugrank runs: the same objects linked as a WASI reactor (no main:
# _initialize runs the C constructors) around bugrank_python.c's entry points instead of
# Programs/python.c's main, with the same flags as CPython's own python.wasm.
step "linking python.wasm as a reactor around bugrank_python.c"
cp "$HERE/bugrank_python.c" "$WORK/bugrank_python.c"
cat >"$WORK/wasi/bugrank.mk" <<'MK'
Programs/bugrank_python.o: $(BUGRANK_C)
	$(CC) -c $(PY_STDMODULE_CFLAGS) -o $@ $(BUGRANK_C)
bugrank-python.wasm: Programs/bugrank_python.o $(LINK_PYTHON_DEPS)
	$(LINKCC) $(PY_CORE_LDFLAGS) $(LINKFORSHARED) -mexec-model=reactor -o $@ Programs/bugrank_python.o $(LINK_PYTHON_OBJS) $(LIBS) $(MODLIBS) $(SYSLIBS)
MK
(cd "$WORK/wasi" && make -f Makefile -f bugrank.mk bugrank-python.wasm \
    BUGRANK_C="$WORK/bugrank_python.c" \
    BUILD_DATE="$BUILD_DATE" BUILD_TIME="$BUILD_TIME" \
    LDFLAGS_NODIST="-z stack-size=8388608 -Wl,--initial-memory=16777216" \
    >reactor.log 2>&1) ||
    { tail -n 30 "$WORK/wasi/reactor.log" >&2; fail "linking the reactor failed"; }
cp "$WORK/wasi/bugrank-python.wasm" "$OUT/python.wasm"

# The module's interface: a reactor (bugrank_python.c's entry points), only WASI preview 1 imports,
# exactly the ones listed in this file's header.
step "checking python.wasm's imports and exports"
"$BUILD_PY" -S - "$OUT/python.wasm" <<'PY' || fail "python.wasm's interface is not the expected one"
import sys
EXPECTED = """environ_get environ_sizes_get clock_res_get
clock_time_get fd_advise fd_close fd_datasync fd_fdstat_get
fd_fdstat_set_flags fd_filestat_get fd_filestat_set_size fd_filestat_set_times
fd_pread fd_prestat_get fd_prestat_dir_name fd_pwrite fd_read fd_readdir
fd_seek fd_sync fd_tell fd_write path_create_directory path_filestat_get
path_filestat_set_times path_link path_open path_readlink
path_remove_directory path_rename path_symlink path_unlink_file poll_oneoff
proc_exit sched_yield random_get sock_accept sock_recv sock_send
sock_shutdown""".split()
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\0asm\1\0\0\0", "not a wasm module"
pos = 8
def uleb():
    global pos
    result = shift = 0
    while True:
        b = data[pos]; pos += 1
        result |= (b & 0x7F) << shift; shift += 7
        if not b & 0x80:
            return result
def name():
    global pos
    n = uleb(); s = data[pos:pos + n].decode(); pos += n; return s
imports, exports = [], []
ok = True
while pos < len(data):
    sid = data[pos]; pos += 1
    size = uleb(); end = pos + size
    if sid == 2:
        for _ in range(uleb()):
            mod, field, kind = name(), name(), data[pos]; pos += 1
            imports.append((mod, field, kind))
            if kind == 0: uleb()                      # function: type index
            elif kind == 1: pos += 1; f = uleb(); uleb(); f & 1 and uleb()  # table
            elif kind == 2: f = uleb(); uleb(); f & 1 and uleb()            # memory
            elif kind == 3: pos += 2                  # global
    elif sid == 7:
        for _ in range(uleb()):
            field, kind = name(), data[pos]; pos += 1; uleb()
            exports.append((field, kind))
    pos = end
# (Besides WASI, the generators' two host functions and the harnesses' output, for _bugrank_gen.)
HOST = [("bugrank", "choice", 0), ("bugrank", "size", 0), ("bugrank", "output", 0)]
missing_host = [h for h in HOST if h not in imports]
imports = [i for i in imports if i not in HOST]
if missing_host:
    print("python.wasm does not import", missing_host, file=sys.stderr); ok = False
bad = [i for i in imports if i[0] != "wasi_snapshot_preview1" or i[2] != 0]
got = sorted(f for m, f, k in imports)
if bad:
    print("imports from elsewhere than wasi_snapshot_preview1 functions:", bad, file=sys.stderr); ok = False
if got != sorted(EXPECTED):
    print("WASI imports changed; expected", sorted(EXPECTED), "got", got, file=sys.stderr); ok = False
want = [(f, 0) for f in ("_initialize", "bugrank_init", "bugrank_alloc", "bugrank_compile",
                           "bugrank_run", "bugrank_prepare", "bugrank_run_prepared",
                           "bugrank_message")] + [("memory", 2)]
if any(w not in exports for w in want) or ("_start", 0) in exports:
    print("not the reactor's exports (", " ".join(f for f, k in want), "and no _start):",
          exports, file=sys.stderr); ok = False
print(f"python.wasm imports {len(got)} wasi_snapshot_preview1 functions, exports",
      " ".join(f for f, k in exports), file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# ---------------------------------------------------------------------------
# python313.zip
# ---------------------------------------------------------------------------

step "building python313.zip"
LIB="$WORK/Lib"
# Of no use in a sandbox, or needing a C module that this build lacks.
PRUNE=(
    test idlelib tkinter turtledemo turtle.py ensurepip pydoc_data
    venv ctypes sqlite3 curses site-packages __phello__ _pyrepl
)
for p in "${PRUNE[@]}"; do
    [ -e "$LIB/$p" ] || fail "nothing to prune at Lib/$p"
    rm -rf "${LIB:?}/$p"
done
# bugrank's side of the interpreter (compiles and runs students' programs), and the
# generators' guest library (toolchain/guest/bugrank_gen.py), which generators import, and
# the harnesses' (toolchain/guest/bugrank_harness.py), which harness.py imports.
cp "$HERE/_bugrank.py" "$LIB/_bugrank.py"
cp "$HERE/../guest/bugrank_gen.py" "$LIB/bugrank_gen.py"
cp "$HERE/../guest/bugrank_harness.py" "$LIB/bugrank_harness.py"
# Test suites inside the packages that stay (unittest/test, ...).
find "$LIB" -depth -type d \( -name test -o -name tests -o -name idle_test -o -name __pycache__ \) \
    -exec rm -rf {} +
# The configuration the build recorded, build paths rewritten.
sysconfigdata="$(cd "$WORK/wasi" && echo build/lib.*/_sysconfigdata_*.py)"
[ -f "$WORK/wasi/$sysconfigdata" ] || fail "no _sysconfigdata module in $WORK/wasi/build"
"$BUILD_PY" -S - "$WORK/wasi/$sysconfigdata" "$LIB/$(basename "$sysconfigdata")" "$WORK" "$BUILD_PY" <<'PY' ||
# Rewritten as sysconfig._generate_posix_vars writes it (pprint, whose line
# breaks depend on the strings' lengths), with the build Python's path and
# then the work directory replaced by fixed ones.
import pprint, sys
src, dst, work, build_py = sys.argv[1:]
ns = {}
with open(src, encoding="utf8") as f:
    exec(f.read(), ns)
def clean(v):
    if isinstance(v, str):
        return v.replace(build_py, "/build/build-python").replace(work, "/build")
    return v
build_time_vars = {k: clean(v) for k, v in ns["build_time_vars"].items()}
with open(dst, "w", encoding="utf8") as f:
    f.write('# system configuration generated and used by'
            ' the sysconfig module\n')
    f.write('build_time_vars = ')
    pprint.pprint(build_time_vars, stream=f)
PY
    fail "could not rewrite $sysconfigdata"
if grep -rlF -e "$WORK" -e "$BUILD_PY" "$LIB" >&2; then
    fail "the files above name the build directory or the build Python"
fi

"$BUILD_PY" -S - "$LIB" "$OUT/python313.zip" <<'PY' || fail "could not build python313.zip"
# Every .py compiled to a .pyc beside where the .py was (zipimport's layout),
# unchecked-hash, co_filename under /usr/local/lib/python313.zip; entries
# sorted, all dated SOURCE_DATE_EPOCH, fixed permissions, deflated.
import importlib.util, os, sys, time, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

lib, out = sys.argv[1], sys.argv[2]
ZIP_PATH = "/usr/local/lib/python313.zip"
date = time.gmtime(max(int(os.environ["SOURCE_DATE_EPOCH"]), 315532800))[:6]
entries = {}
for root, dirs, files in os.walk(lib):
    for f in files:
        rel = os.path.relpath(os.path.join(root, f), lib).replace(os.sep, "/")
        if not f.endswith(".py"):
            print(f"python313.zip: left out Lib/{rel} (not a Python source)", file=sys.stderr)
            continue
        with open(os.path.join(root, f), "rb") as fh:
            source = fh.read()
        code = compile(source, f"{ZIP_PATH}/{rel}", "exec", dont_inherit=True, optimize=0)
        pyc = _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)
        entries[rel[:-3] + ".pyc"] = bytes(pyc)
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            entries.setdefault("/".join(parts[:i]) + "/", None)

with zipfile.ZipFile(out, "w") as z:
    for name in sorted(entries):
        info = zipfile.ZipInfo(name, date_time=date)
        info.create_system = 3
        if name.endswith("/"):
            info.external_attr = (0o40755 << 16) | 0x10
            info.compress_type = zipfile.ZIP_STORED
            z.writestr(info, b"")
        else:
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, entries[name], compresslevel=9)
print(f"python313.zip: {sum(1 for n in entries if not n.endswith('/'))} modules", file=sys.stderr)
PY

for f in "${OUTPUTS[@]}"; do
    printf '  %-14s %10d bytes  sha256 %s\n' "$f" "$(stat -c %s "$OUT/$f")" \
        "$(sha256sum "$OUT/$f" | cut -d' ' -f1)" >&2
done

# ---------------------------------------------------------------------------
# Install or compare
# ---------------------------------------------------------------------------

if [ "$check" -eq 0 ]; then
    for f in "${OUTPUTS[@]}"; do
        # write next to the target, then rename: never a half-written file
        cp "$OUT/$f" "$HERE/$f.tmp.$$"
        chmod 0644 "$HERE/$f.tmp.$$"
        mv -f "$HERE/$f.tmp.$$" "$HERE/$f"
    done
    printf '%s\n' "$TOOLCHAIN" >"$HERE/toolchain.txt"
    # bugrank's own sources in the outputs: a test compares these with the files (a
    # change not yet built fails it, without a four-minute rebuild).
    (cd "$HERE" && sha256sum bugrank_python.c _bugrank.py ../guest/bugrank_gen.py ../guest/bugrank_harness.py) >"$HERE/sources.txt"
    step "built ${OUTPUTS[*]} in $HERE"
    exit 0
fi

bad=()
for f in "${OUTPUTS[@]}"; do
    if [ ! -f "$HERE/$f" ]; then
        bad+=("$f (not committed)")
    elif [ "$(sha256sum <"$OUT/$f")" != "$(sha256sum <"$HERE/$f")" ]; then
        bad+=("$f (differs from a fresh build)")
    fi
done
if [ "${#bad[@]}" -gt 0 ]; then
    echo "build.sh --check: ${#bad[@]} file(s) are not reproducible from source:" >&2
    printf '%s\n' "${bad[@]}"
    exit 1
fi
echo "build.sh --check: ${OUTPUTS[*]} are identical to a fresh build" >&2
exit 0
