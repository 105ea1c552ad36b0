//! `bugrank toolchains`: the compilers found for students' sources.

use toolchain::{Builder, Language};

/// `bugrank toolchains`: each language with the compiler found and its fixed flags, or
/// the command that installs it; and whether compiles can be sandboxed here.
pub fn toolchains_command() -> anyhow::Result<()> {
    let builder = Builder::new(None);
    match builder.sandboxed() {
        Ok(()) => println!("sandbox: bubblewrap works: compiles run without network, host files or other students' files"),
        Err(why) => println!("sandbox: {why}\n  (no source is compiled here until it works; modules are still graded)"),
    }
    for language in Language::ALL {
        match builder.toolchains().get(language) {
            Ok(toolchain) => {
                println!("{:<5} {}", language.name(), toolchain.version);
                println!("      {} {}", toolchain.program.display(), language.flags().join(" "));
            }
            Err(missing) => println!("{:<5} missing: {}; install: {}", language.name(), missing.reason, missing.install),
        }
    }
    Ok(())
}
