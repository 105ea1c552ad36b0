//! `bugrank`: grade a batch of WebAssembly submissions by the bugs they contain.

use clap::{Parser, Subcommand};
use web::grade;

#[derive(Parser)]
#[command(name = "bugrank", version, about = "Ranks programs by the bugs black-box testing infers in them")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Grade a batch of submissions against a problem's reference, and write the results.
    Grade(grade::GradeArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Grade(args) => grade::grade(&args),
    }
}
