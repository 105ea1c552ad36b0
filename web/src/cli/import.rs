//! `bugrank import`: a judge's problem package (Kattis / ICPC format) made into a bugrank
//! problem, with the list of what the author must still write.

use std::path::PathBuf;

use anyhow::Context;

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The package: a folder with `problem.yaml`, `data/sample`, `data/secret`,
    /// `submissions/accepted`, ...
    pub package: PathBuf,
    /// The problem folder to write (it must not exist). Default: the package's folder name,
    /// in the current folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn import_command(args: &ImportArgs) -> anyhow::Result<()> {
    let out = match &args.out {
        Some(out) => out.clone(),
        None => PathBuf::from(args.package.canonicalize().with_context(|| format!("cannot read {}", args.package.display()))?.file_name().context("the package has no folder name")?),
    };
    let imported = course::import::import_package(&args.package, &out)?;
    let examples: Vec<String> = imported.examples.iter().map(|(prefix, n)| format!("{n} {prefix}-…")).collect();
    println!(
        "imported {} into {}: {} tests, now the course's; examples {}",
        args.package.display(),
        out.display(),
        imported.tests,
        if examples.is_empty() { "none".to_owned() } else { examples.join(", ") }
    );
    println!("still to do (also in {}):", out.join("IMPORT.md").display());
    for (i, item) in imported.todo.iter().enumerate() {
        println!("  {}. {item}", i + 1);
    }
    if !imported.notes.is_empty() {
        println!("what did not map exactly, or was left out:");
        for note in &imported.notes {
            println!("  - {note}");
        }
    }
    println!("then: bugrank check-problem {}", out.display());
    Ok(())
}
