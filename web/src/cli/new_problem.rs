//! `bugrank new-problem`: writes a working problem to start from (statement, reference,
//! generator, problem.toml, a correct and a buggy example), in C, Rust or Python, from the templates of
//! `web/templates/new-problem/` (and `web/templates/new-problem-functions/` for a function-level problem).

use std::path::Path;

use anyhow::{Context, bail};

#[derive(clap::Args)]
pub struct NewProblemArgs {
    /// The problem's name: the folder written (`./NAME`) and its title.
    pub name: String,
    /// The language of the reference, the generator and the example submissions.
    #[arg(long, value_enum, default_value = "c")]
    pub lang: AuthorLanguage,
    /// A function-level assignment instead: students hand in functions (a bounded
    /// stack's), which the problem's harness calls on generated command sequences.
    #[arg(long)]
    pub functions: bool,
}

/// The languages a problem can be written in with `new-problem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthorLanguage {
    C,
    Rust,
    Python,
}

/// The files of a new problem, by language: (path in the problem, text with `{{TITLE}}`).
fn template(language: AuthorLanguage) -> Vec<(&'static str, &'static str)> {
    let mut files = vec![
        ("statement.md", include_str!("../../templates/new-problem/statement.md")),
        ("problem.toml", include_str!("../../templates/new-problem/problem.toml")),
    ];
    files.extend(match language {
        AuthorLanguage::C => [
            ("reference.c", include_str!("../../templates/new-problem/reference.c")),
            ("generator.c", include_str!("../../templates/new-problem/generator.c")),
            ("bugrank_gen.h", toolchain::guest::C_HEADER),
            ("submissions/correct.c", include_str!("../../templates/new-problem/submissions/correct.c")),
            ("submissions/buggy.c", include_str!("../../templates/new-problem/submissions/buggy.c")),
        ],
        AuthorLanguage::Rust => [
            ("reference.rs", include_str!("../../templates/new-problem/reference.rs")),
            ("generator.rs", include_str!("../../templates/new-problem/generator.rs")),
            ("bugrank_gen.rs", toolchain::guest::RUST_CRATE),
            ("submissions/correct.rs", include_str!("../../templates/new-problem/submissions/correct.rs")),
            ("submissions/buggy.rs", include_str!("../../templates/new-problem/submissions/buggy.rs")),
        ],
        AuthorLanguage::Python => [
            ("reference.py", include_str!("../../templates/new-problem/reference.py")),
            ("generator.py", include_str!("../../templates/new-problem/generator.py")),
            ("bugrank_gen.py", toolchain::guest::PYTHON_MODULE),
            ("submissions/correct.py", include_str!("../../templates/new-problem/submissions/correct.py")),
            ("submissions/buggy.py", include_str!("../../templates/new-problem/submissions/buggy.py")),
        ],
    });
    files
}

/// The files of a new function-level problem (a bounded stack), by language.
fn functions_template(language: AuthorLanguage) -> Vec<(&'static str, &'static str)> {
    let mut files = vec![
        ("statement.md", include_str!("../../templates/new-problem-functions/statement.md")),
        ("problem.toml", include_str!("../../templates/new-problem-functions/problem.toml")),
    ];
    files.extend(match language {
        AuthorLanguage::C => [
            ("interface.h", include_str!("../../templates/new-problem-functions/interface.h")),
            ("harness.c", include_str!("../../templates/new-problem-functions/harness.c")),
            ("bugrank_harness.h", toolchain::harness::C_LIBRARY.1),
            ("reference.c", include_str!("../../templates/new-problem-functions/reference.c")),
            ("generator.c", include_str!("../../templates/new-problem-functions/generator.c")),
            ("bugrank_gen.h", toolchain::guest::C_HEADER),
            ("submissions/correct.c", include_str!("../../templates/new-problem-functions/submissions/correct.c")),
            ("submissions/buggy.c", include_str!("../../templates/new-problem-functions/submissions/buggy.c")),
        ]
        .to_vec(),
        AuthorLanguage::Rust => [
            ("harness.rs", include_str!("../../templates/new-problem-functions/harness.rs")),
            ("bugrank_harness.rs", toolchain::harness::RUST_LIBRARY.1),
            ("reference.rs", include_str!("../../templates/new-problem-functions/reference.rs")),
            ("generator.rs", include_str!("../../templates/new-problem-functions/generator.rs")),
            ("bugrank_gen.rs", toolchain::guest::RUST_CRATE),
            ("submissions/correct.rs", include_str!("../../templates/new-problem-functions/submissions/correct.rs")),
            ("submissions/buggy.rs", include_str!("../../templates/new-problem-functions/submissions/buggy.rs")),
        ]
        .to_vec(),
        AuthorLanguage::Python => [
            ("harness.py", include_str!("../../templates/new-problem-functions/harness.py")),
            ("bugrank_harness.py", toolchain::harness::PYTHON_LIBRARY.1),
            ("reference.py", include_str!("../../templates/new-problem-functions/reference.py")),
            ("generator.py", include_str!("../../templates/new-problem-functions/generator.py")),
            ("bugrank_gen.py", toolchain::guest::PYTHON_MODULE),
            ("submissions/correct.py", include_str!("../../templates/new-problem-functions/submissions/correct.py")),
            ("submissions/buggy.py", include_str!("../../templates/new-problem-functions/submissions/buggy.py")),
        ]
        .to_vec(),
    });
    files
}

/// Writes a working problem into `dir` (which must not exist yet), titled `title`: a
/// function-level one when `functions`.
pub fn new_problem(dir: &Path, title: &str, language: AuthorLanguage, functions: bool) -> anyhow::Result<()> {
    if dir.exists() {
        bail!("{} already exists: choose another name, or delete it first", dir.display());
    }
    // The title goes into a TOML string and a Markdown heading.
    if title.is_empty() || title.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
        bail!("`{title}`: a problem's name is one line without quotes or backslashes");
    }
    let files = match functions {
        false => template(language),
        true => functions_template(language),
    };
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a file in the problem")).with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(&path, text.replace("{{TITLE}}", title)).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub fn new_problem_command(args: &NewProblemArgs) -> anyhow::Result<()> {
    let dir = Path::new(&args.name);
    new_problem(dir, &args.name, args.lang, args.functions)?;
    let example = if args.functions { "a bounded stack whose functions the harness calls" } else { "the largest of a list of integers" };
    println!("wrote the problem {} (a working example: {example})", dir.display());
    println!("next: edit statement.md, the reference, the generator and the examples in submissions/, then");
    println!("  bugrank check-problem {}", dir.display());
    println!("  bugrank grade --problem {0} --submissions {0}/submissions --out {0}/results", dir.display());
    Ok(())
}
