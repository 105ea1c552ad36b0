//! `bugrank user add`: adds an instructor account (or sets its password).

use crate::cli::StoreArgs;
use crate::serve::store::Store;
use crate::serve::{auth, open_db};

#[derive(clap::Args)]
pub struct UserArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The instructor's login name.
    #[arg(long)]
    pub login: String,
    /// Read the password from the first line of stdin (default: generate and print one).
    #[arg(long)]
    pub password_stdin: bool,
}

/// Adds the instructor, with the password read from stdin or generated and printed.
pub fn user_command(args: &UserArgs) -> anyhow::Result<()> {
    let db = open_db(&Store::open(&args.store.data)?, args.store.database.as_deref())?;
    let password = if args.password_stdin {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        let line = line.trim_end_matches(['\r', '\n']).to_owned();
        anyhow::ensure!(line.len() >= 8, "the password must have at least 8 characters");
        line
    } else {
        auth::random_token()[..16].to_owned()
    };
    db.add_instructor(&args.login, &auth::hash_password(&password)?)?;
    if args.password_stdin {
        println!("instructor `{}` can log in", args.login);
    } else {
        println!("instructor `{}` can log in with password `{password}`", args.login);
    }
    Ok(())
}
