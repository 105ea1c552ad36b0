//! `bugrank serve`: runs the web service ([`crate::serve::start`]) until it is stopped.

use anyhow::Context;

use crate::serve::{ServeArgs, start};

pub fn serve_command(args: &ServeArgs) -> anyhow::Result<()> {
    actix_web::rt::System::new().block_on(async {
        let running = start(args)?;
        println!("bugrank is listening on http://{}/", running.addr);
        running.server.await.context("the server stopped")
    })
}
