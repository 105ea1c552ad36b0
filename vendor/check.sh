#!/usr/bin/env bash
# Checks that vendor/wasmtime is the crates.io release vendor/wasmtime.release
# names (its version and its .crate's sha256, as crates.io's index records it)
# with exactly the change vendor/README.md describes (vendor/wasmtime.patch).
# Exit 0 if so, 1 if not, 3 if the release cannot be had (not in cargo's cache,
# and crates.io unreachable).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
read -r VERSION SHA256 < "$HERE/wasmtime.release"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
crate="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/wasmtime-$VERSION.crate 2>/dev/null | sed -n 1p || true)"
if [ -z "$crate" ]; then
    crate="$work/wasmtime-$VERSION.crate"
    curl -sSfL -o "$crate" https://static.crates.io/crates/wasmtime/wasmtime-$VERSION.crate ||
        { echo "check.sh: wasmtime-$VERSION.crate is neither in cargo's cache nor downloadable" >&2; exit 3; }
fi
echo "$SHA256  $crate" | sha256sum -c --quiet - || { echo "check.sh: $crate is not the release" >&2; exit 1; }
tar -xzf "$crate" -C "$work"
rm -f "$work/wasmtime-$VERSION/.cargo-ok"
# The difference, with the copies' paths and times taken out of its file headers.
got="$(cd "$work" && diff -ru wasmtime-$VERSION "$HERE/wasmtime" |
    sed -E -e '/^diff -ru /d' -e 's#^(---|\+\+\+) ([^[:space:]]*).*#\1 \2#' -e "s#$HERE/wasmtime#vendor/wasmtime#" || true)"
if [ "$got" != "$(cat "$HERE/wasmtime.patch")" ]; then
    echo "check.sh: vendor/wasmtime differs from the release by more (or less) than vendor/wasmtime.patch:" >&2
    diff <(echo "$got") "$HERE/wasmtime.patch" >&2 || true
    exit 1
fi
echo "check.sh: vendor/wasmtime is wasmtime $VERSION with vendor/wasmtime.patch"
