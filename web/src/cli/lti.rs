//! `bugrank lti`: registering an LMS (an LTI 1.3 platform) from the command line, and
//! what to give the LMS. The same as the service's page `/lti/platforms`.

use crate::cli::StoreArgs;
use crate::serve::lti::Registration;
use crate::serve::open_db;
use crate::serve::store::Store;

#[derive(clap::Args)]
pub struct AddPlatformArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub platform: Registration,
}

/// Registers the platform (or updates the one of the same issuer and client id).
pub fn add_platform_command(args: &AddPlatformArgs) -> anyhow::Result<()> {
    let platform = args.platform.check().map_err(anyhow::Error::msg)?;
    let db = open_db(&Store::open(&args.store.data)?, args.store.database.as_deref())?;
    let id = db.add_lti_platform(&platform)?;
    println!(
        "LMS `{}` (issuer {}, client id {}) is registered as platform {id}: its launches of deployments {} are accepted",
        platform.name,
        platform.issuer,
        platform.client_id,
        platform.deployment_ids.join(", ")
    );
    Ok(())
}

#[derive(clap::Args)]
pub struct PlatformsArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The address students reach the service at (as `serve --public-url`): the tool's
    /// URLs an LMS asks for start with it.
    #[arg(long)]
    pub public_url: Option<String>,
}

/// Lists the platforms registered, and the tool's URLs to give an LMS.
pub fn platforms_command(args: &PlatformsArgs) -> anyhow::Result<()> {
    let db = open_db(&Store::open(&args.store.data)?, args.store.database.as_deref())?;
    let base = args.public_url.as_deref().unwrap_or("https://<bugrank's address>").trim_end_matches('/');
    println!("Give the LMS: login initiation URL {base}/lti/login, redirect URI and target link URI {base}/lti/launch, public keys (JWKS) {base}/lti/jwks");
    for platform in db.lti_platforms()? {
        println!(
            "platform {}: `{}`, issuer {}, client id {}, deployments {}",
            platform.id,
            platform.name,
            platform.issuer,
            platform.client_id,
            platform.deployment_ids.join(", ")
        );
    }
    Ok(())
}
