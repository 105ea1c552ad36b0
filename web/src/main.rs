//! `bugrank`: grade a batch of submissions (WebAssembly modules, or C, C++ and Rust
//! sources) by the bugs they contain. Each command is a file of [`web::cli`].

use clap::{Parser, Subcommand};
use web::cli::{bugs, check_problem, demo, grade, grade_tests, import, lti, new_problem, report, serve, stability, toolchains, user, worker};

#[derive(Parser)]
#[command(name = "bugrank", version, about = "Ranks programs by the bugs black-box testing infers in them")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Grade a batch of submissions against a problem's model answer (its reference), and write the results.
    Grade(grade::GradeArgs),
    /// Grade the same batch with several seeds and report how stable the results are
    /// (Paper III, section 5.1).
    Stability(stability::StabilityArgs),
    /// Write each student's own bug list (Markdown and JSON) from a finished analysis.
    Bugs(bugs::BugsArgs),
    /// Compare two cohorts' scores per problem: Welch's t-test, effect size, correlations.
    Report(report::ReportArgs),
    /// Grade the students' own test suites: one point per submission they find a bug in.
    GradeTests(grade_tests::GradeTestsArgs),
    /// Grade every fixture problem with its cohort and write the experiment report.
    Demo(demo::DemoArgs),
    /// Run the web service: instructors upload and grade batches, students see their bugs.
    Serve(web::serve::ServeArgs),
    /// Run queued analyses of a shared PostgreSQL database, beside `bugrank serve`
    /// processes on any machine (which may then serve pages only: `--workers 0`).
    Worker(worker::WorkerArgs),
    /// List the compilers found for students' sources (C, C++, Rust), with their fixed
    /// flags, or the command that installs each one missing.
    Toolchains,
    /// Write a working problem into ./NAME to start from: statement, reference, generator,
    /// problem.toml, and a correct and a buggy example submission.
    NewProblem(new_problem::NewProblemArgs),
    /// Build a problem and check that it is ready for a class: the generator replays, the
    /// reference handles 1,000 inputs, the checker accepts it, the examples do as named.
    CheckProblem(check_problem::CheckProblemArgs),
    /// Make a judge's problem package (Kattis / ICPC format: problem.yaml, data/, submissions/)
    /// into a problem: its tests become the course's, its submissions examples; then says
    /// what is left to write (the generator, at least).
    Import(import::ImportArgs),
    /// Manage instructor accounts of the web service.
    #[command(subcommand)]
    User(UserCommand),
    /// Register LMSs (LTI 1.3 platforms) whose students and instructors launch into the
    /// service, and list them with the values to give an LMS.
    #[command(subcommand)]
    Lti(LtiCommand),
}

#[derive(Subcommand)]
enum LtiCommand {
    /// Register an LMS (or update the one of the same issuer and client id) with the values
    /// it shows once bugrank is added to it.
    AddPlatform(lti::AddPlatformArgs),
    /// List the LMSs registered, and the tool's URLs an LMS asks for.
    Platforms(lti::PlatformsArgs),
}

#[derive(Subcommand)]
enum UserCommand {
    /// Add an instructor (or set the password of an existing one).
    Add(user::UserArgs),
}

/// Runs the command; an error is said in one line of words on stderr (its causes joined by
/// `: `), exit status 1, and never with a backtrace: whatever `RUST_BACKTRACE` says, an
/// error a user can fix (a missing file, a bad problem) is not a crash. (A panic, a bug of
/// bugrank's, still prints its backtrace when asked.)
fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Grade(args) => grade::grade(&args),
        Command::Stability(args) => stability::stability_command(&args),
        Command::Bugs(args) => bugs::bugs_command(&args),
        Command::Report(args) => report::report_command(&args),
        Command::GradeTests(args) => grade_tests::grade_tests_command(&args),
        Command::Demo(args) => demo::demo_command(&args),
        Command::Serve(args) => serve::serve_command(&args),
        Command::Worker(args) => worker::worker_command(&args),
        Command::Toolchains => toolchains::toolchains_command(),
        Command::NewProblem(args) => new_problem::new_problem_command(&args),
        Command::CheckProblem(args) => check_problem::check_problem_command(&args),
        Command::Import(args) => import::import_command(&args),
        Command::User(UserCommand::Add(args)) => user::user_command(&args),
        Command::Lti(LtiCommand::AddPlatform(args)) => lti::add_platform_command(&args),
        Command::Lti(LtiCommand::Platforms(args)) => lti::platforms_command(&args),
    }
}
