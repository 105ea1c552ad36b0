//! The committed fixture modules, the vendored wasmtime and the C++ exceptions' runtime are
//! what their sources make.

use std::process::Command;

/// Runs `script` (under the repository) with `args`: it exits 0 when what is committed is
/// current, 3 when it cannot make the check here (a toolchain or a source missing: said,
/// and skipped), anything else when what is committed is stale (`stale` says what to do).
fn check(script: &str, args: &[&str], stale: &str) {
    let output = Command::new("bash").arg(end_to_end::root().join(script)).args(args).output().expect("bash runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {}
        Some(3) => eprintln!("SKIPPED: {script} cannot check here: {stderr}"),
        _ => panic!("{stale}:\n{}{stderr}", String::from_utf8_lossy(&output.stdout)),
    }
}

#[test]
fn committed_fixture_modules_match_their_sources() {
    check("fixtures/build.sh", &["--check"], "committed fixture modules are stale; run fixtures/build.sh and commit");
}

#[test]
fn the_vendored_wasmtime_is_the_release_with_its_one_patch() {
    // (It exits 3 when the release can be had neither from cargo's cache nor from crates.io.)
    check("vendor/check.sh", &[], "vendor/wasmtime is not the release of vendor/wasmtime.release with the patch of vendor/README.md");
}

#[test]
fn the_committed_cpp_exceptions_runtime_is_what_debians_llvm_source_builds_to() {
    // (It exits 3 without Debian's clang-19, or without LLVM's source and a way to fetch it.)
    check("toolchain/exceptions/build.sh", &["--check"], "toolchain/exceptions/cxxabi.o is stale; run toolchain/exceptions/build.sh and commit");
}
