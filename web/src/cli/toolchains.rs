//! `bugrank toolchains`: the compilers found for students' sources, and bugrank's Python.

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
            Ok(toolchain) if language == Language::Python => {
                println!("{:<6} {}", language.name(), toolchain.version);
                println!("       inside bugrank: each hand-in compiled to bytecode once, then run, in the WebAssembly sandbox");
            }
            Ok(toolchain) => {
                println!("{:<6} {}", language.name(), toolchain.version);
                println!("       {} {}", toolchain.program.display(), language.flags().join(" "));
            }
            Err(missing) => println!("{:<6} missing: {}; install: {}", language.name(), missing.reason, missing.install),
        }
    }
    Ok(())
}
