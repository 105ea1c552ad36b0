#!/usr/bin/env bash
# Checks that vendor/wasmtime is the crates.io release of wasmtime 48.0.8 with
# exactly the change vendor/README.md describes (vendor/wasmtime.patch). Exit 0
# if so, 1 if not, 3 if the release cannot be had (not in cargo's cache, and
# crates.io unreachable).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# The release's sha256, as crates.io's index records it.
SHA256=a2afcadb2e7d0417cb8f3f322c66eff49338b288f22290c0ca0bd3e9570732aa
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
crate="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/wasmtime-48.0.8.crate 2>/dev/null | sed -n 1p || true)"
if [ -z "$crate" ]; then
    crate="$work/wasmtime-48.0.8.crate"
    curl -sSfL -o "$crate" https://static.crates.io/crates/wasmtime/wasmtime-48.0.8.crate ||
        { echo "check.sh: wasmtime-48.0.8.crate is neither in cargo's cache nor downloadable" >&2; exit 3; }
fi
echo "$SHA256  $crate" | sha256sum -c --quiet - || { echo "check.sh: $crate is not the release" >&2; exit 1; }
tar -xzf "$crate" -C "$work"
rm -f "$work/wasmtime-48.0.8/.cargo-ok"
# The difference, with the copies' paths and times taken out of its file headers.
got="$(cd "$work" && diff -ru wasmtime-48.0.8 "$HERE/wasmtime" |
    sed -E -e '/^diff -ru /d' -e 's#^(---|\+\+\+) ([^[:space:]]*).*#\1 \2#' -e "s#$HERE/wasmtime#vendor/wasmtime#" || true)"
if [ "$got" != "$(cat "$HERE/wasmtime.patch")" ]; then
    echo "check.sh: vendor/wasmtime differs from the release by more (or less) than vendor/wasmtime.patch:" >&2
    diff <(echo "$got") "$HERE/wasmtime.patch" >&2 || true
    exit 1
fi
echo "check.sh: vendor/wasmtime is wasmtime 48.0.8 with vendor/wasmtime.patch"
