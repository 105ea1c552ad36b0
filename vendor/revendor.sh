#!/usr/bin/env bash
# vendor/revendor.sh VERSION: makes vendor/wasmtime anew from the crates.io
# release VERSION of wasmtime with vendor/wasmtime.patch applied, and checks it.
#
#   1. the release's .crate, from cargo's cache or crates.io, is checked against
#      the sha256 crates.io's index records for it (and that pair is written to
#      vendor/wasmtime.release, which check.sh reads);
#   2. the patch is applied (`patch -p1`); if a hunk does not apply, nothing of
#      the project changes: the work folder with the `.rej` files is kept and
#      named, to port the change by hand (vendor/README.md says what each part
#      does and which test shows it);
#   3. vendor/wasmtime is replaced, wasmtime.patch regenerated (the same change,
#      with the new release's line numbers), the workspace's `wasmtime` and
#      `wasmtime-wasi` set to VERSION (they must be the same release) and
#      Cargo.lock updated;
#   4. vendor/check.sh and vendor/test.sh run.
#
# Then: run .ci/run (the sandbox's tests are the patch's other tests), update the
# version in vendor/README.md, and commit. Run with the same version it has, it
# changes nothing (a check of the script itself).
#
# Exit status: 0 done; 1 the patch does not apply or a check failed; 2 usage;
# 3 the release cannot be had.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 VERSION (e.g. 48.0.9)" >&2; exit 2; }
VERSION="$1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd "$HERE/.." && pwd -P)"
read -r OLD _ < "$HERE/wasmtime.release"
work="$(mktemp -d)"
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT

# (One JSON object a line; the index may space its colons.)
sha256="$(curl -sSf https://index.crates.io/wa/sm/wasmtime | grep -E "\"vers\": ?\"${VERSION//./\\.}\"" |
    sed -E 's/.*"cksum": ?"([0-9a-f]{64})".*/\1/' || true)"
[ -n "$sha256" ] || { echo "revendor.sh: crates.io's index has no wasmtime $VERSION (or cannot be reached)" >&2; exit 3; }
crate="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"wasmtime-$VERSION.crate" 2>/dev/null | sed -n 1p || true)"
if [ -z "$crate" ]; then
    crate="$work/wasmtime-$VERSION.crate"
    curl -sSfL -o "$crate" "https://static.crates.io/crates/wasmtime/wasmtime-$VERSION.crate" ||
        { echo "revendor.sh: wasmtime-$VERSION.crate cannot be downloaded" >&2; exit 3; }
fi
echo "$sha256  $crate" | sha256sum -c --quiet - || { echo "revendor.sh: $crate is not the release crates.io indexes" >&2; exit 1; }
tar -xzf "$crate" -C "$work"
rm -f "$work/wasmtime-$VERSION/.cargo-ok"
cp -r "$work/wasmtime-$VERSION" "$work/release"

if ! (cd "$work/wasmtime-$VERSION" && patch -p1 --no-backup-if-mismatch -s < "$HERE/wasmtime.patch"); then
    keep=1
    echo "revendor.sh: wasmtime.patch does not apply to wasmtime $VERSION; nothing was changed." >&2
    echo "  the patched copy, with the hunks that failed in *.rej: $work/wasmtime-$VERSION" >&2
    exit 1
fi

rm -rf "$HERE/wasmtime"
cp -r "$work/wasmtime-$VERSION" "$HERE/wasmtime"
# The patch as check.sh compares it: the copies' paths and times out of its headers.
(cd "$work" && diff -ru release "$HERE/wasmtime" |
    sed -E -e '/^diff -ru /d' -e 's#^(---|\+\+\+) ([^[:space:]]*).*#\1 \2#' \
        -e "s#^--- release#--- wasmtime-$VERSION#" -e "s#$HERE/wasmtime#vendor/wasmtime#" || true) > "$HERE/wasmtime.patch"
echo "$VERSION $sha256" > "$HERE/wasmtime.release"
if [ "$OLD" != "$VERSION" ]; then
    sed -i -E "s/^(wasmtime(-wasi)? = \\{ version = )\"$OLD\"/\\1\"$VERSION\"/" "$ROOT/Cargo.toml"
    sed -i "s/wasmtime $OLD with/wasmtime $VERSION with/" "$ROOT/Cargo.toml"
    (cd "$ROOT" && cargo update -p wasmtime -p wasmtime-wasi)
fi
"$HERE/check.sh"
"$HERE/test.sh"
echo "revendor.sh: vendor/wasmtime is wasmtime $VERSION with the patch; now run .ci/run, update vendor/README.md and commit" >&2
