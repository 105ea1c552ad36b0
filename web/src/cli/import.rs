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
        None => PathBuf::from(
            args.package
                .canonicalize()
                .with_context(|| format!("cannot read {}", args.package.display()))?
                .file_name()
                .context("the package has no folder name")?,
        ),
    };
    let imported = course::import::import_package(&args.package, &out)?;
    // The reference, an accepted submission that passes the package's tests, and the judges'
    // time limit, from the accepted submissions' runs on them: both need them built, so a
    // machine without their compilers says so and goes on.
    let measured = super::cli_tools().and_then(|tools| {
        let reference = course::import::choose_reference(&tools.sandbox, &tools.builder, &out)?;
        Ok((reference, course::import::set_time_limit(&tools.sandbox, &tools.builder, &out, imported.time_rule)?))
    });
    let (reference, time_limit) = match measured {
        Ok((reference, limit)) => (reference, Ok(limit)),
        Err(error) => (Vec::new(), Err(error)),
    };
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
    for said in reference {
        println!("{said}");
    }
    match time_limit {
        Ok(Some(limit)) => println!("{}", limit.in_words(imported.time_rule)),
        Ok(None) => println!("no time limit set: no accepted submission passed a course's test (the budgets are relative to the reference)"),
        Err(error) => println!("no time limit set: {error:#} (the budgets are relative to the reference)"),
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
