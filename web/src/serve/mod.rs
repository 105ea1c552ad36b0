//! `bugrank serve`: the web service. Instructors log in, upload problems and batches, run
//! analyses in the background and read the results; students open their private link and
//! see their own bugs. Every page's data is also JSON under `/api/...`.
//!
//! Layout of `--data`: `bugrank.sqlite` (the store, see [`db`]), `modules/` (uploaded
//! modules by hash), `problems/` (problem directories), `analyses/<id>/` (outputs).
//!
//! Here are [`ServeArgs`], the shared [`App`] (store, database, sandbox, jobs, and a cache of
//! finished analyses, `analysis_cache.rs`), [`AppError`] (how a request fails) and the
//! start-up. Two deployments (`deploy/` has the units and manifests):
//!
//! ```text
//!  One machine (default)                    Several machines (PostgreSQL)
//!
//!  bugrank serve --data DIR                 bugrank serve --workers 0 ─┐  (any number: pages)
//!    pages + analyses (--workers N)         bugrank serve --workers 0 ─┤
//!         │                                                            ▼
//!         ▼                                 PostgreSQL: every row and every file (modules,
//!  DIR/bugrank.sqlite  (store, queue)         problem folders, outputs as rows), the queue
//!  DIR/modules, problems, analyses            with leases, progress, cancels; the
//!  DIR/compiled, builds (caches)              shards of running analyses' rounds
//!                                                                      ▲
//!                                           bugrank worker ──────────────┤  (any number:
//!                                           bugrank worker ──────────────┘   analyses, and
//!                                           each with its own --data:        shards of
//!                                           a cache it may lose              others')
//! ```

mod analysis_cache;
pub mod auth;
mod checks;
pub mod connections;
pub mod db;

mod first_start;
mod hand_ins;
mod local_queue;
pub mod lti;
pub mod mail;
mod pages;
mod rounds;
pub mod store;
mod upload;
pub use rounds::SHARD_WORK;
pub mod worker;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError, web};
use anyhow::Context;
use grader::Analysis;
use sandbox::Sandbox;

use self::db::Db;
use self::store::Store;
use self::worker::Jobs;

#[derive(clap::Args, Clone)]
pub struct ServeArgs {
    /// Where the store, the modules and the analyses' outputs live.
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// The database: a PostgreSQL URL (`postgres://user@host:port/name`; the password
    /// from `PGPASSWORD` or the URL) shared by every `bugrank serve` and `bugrank worker`
    /// of a deployment. Default: SQLite in `--data` (`bugrank.sqlite`), one process.
    #[arg(long, env = "BUGRANK_DATABASE")]
    pub database: Option<String>,
    /// Address to listen on; port 0 picks a free port (the URL is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Problems (each with submissions/ and roster.csv) loaded as demo data on first start
    /// (default: the paper's three problems and a function-level one, built into bugrank).
    #[arg(long)]
    pub demo: Option<PathBuf>,
    /// Start with an empty store instead of the demo data.
    #[arg(long)]
    pub no_demo: bool,
    /// Analyses run at the same time, sharing the cores alike (each uses `--threads`
    /// threads), beside an express worker for batches of at most 60 hand-ins. 0: this
    /// process serves pages only, and `bugrank worker` processes on the same --database run
    /// the analyses.
    #[arg(long, default_value_t = worker::ANALYSES_AT_ONCE)]
    pub workers: usize,
    /// Threads per analysis (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// On PostgreSQL: the least milliseconds of work of one shard of an analysis's rounds
    /// that other processes' idle workers may make. More where the workers reach the
    /// database over a slow network (each shard costs a few round trips).
    #[arg(long, default_value_t = rounds::SHARD_WORK.as_millis() as u64)]
    pub shard_ms: u64,
    /// The address students reach the service at (`https://grades.example.edu`, or with a
    /// path prefix): the base of every student's link that leaves the service, in emails
    /// and `links.csv`. Without it no email is sent (the links would carry whatever address
    /// the instructor's browser used, often one students cannot reach), and `links.csv`
    /// uses the browser's address and says so.
    #[arg(long, env = "BUGRANK_PUBLIC_URL", value_parser = public_url)]
    pub public_url: Option<String>,
    /// Mark the login cookies `Secure` (sent over HTTPS only): set it when a TLS proxy is
    /// in front, as it must be anywhere but on loopback (see deploy/README.md).
    #[arg(long, env = "BUGRANK_SECURE_COOKIES")]
    pub secure_cookies: bool,
    /// The most MiB one upload may carry (see [`MAX_UPLOAD_BYTES`]).
    #[arg(long, default_value_t = MAX_UPLOAD_BYTES >> 20)]
    pub max_upload_mib: usize,
    /// The TLS proxy's IP address: its connections are not bounded per address, and a
    /// request from it is counted against the client it names last in `X-Forwarded-For`
    /// (see [`connections`] and deploy/README.md). Without it, `X-Forwarded-For` is ignored.
    #[arg(long, env = "BUGRANK_TRUSTED_PROXY")]
    pub trusted_proxy: Option<std::net::IpAddr>,
}

/// Everything the handlers and workers share.
pub struct App {
    pub db: Db,
    pub store: Store,
    /// The sandbox, and the builder of students' sources (kept in `<data>/builds`: a
    /// restart builds nothing again).
    pub tools: course::Tools,
    pub jobs: Jobs,
    /// Uploaded problem bundles waiting for their check, or being checked (`checks.rs`).
    pub checks: checks::BundleChecks,
    /// Students' hand-ins waiting for their pre-check, and the problems loaded for them
    /// (`hand_ins.rs`).
    pub hand_ins: hand_ins::HandIns,
    /// The most bytes one upload may carry.
    pub max_upload_bytes: usize,
    /// Finished analyses read from their `analysis.json`, by id (they never change), within
    /// [`analysis_cache::MAX_CACHED_ANALYSIS_BYTES`].
    analyses: analysis_cache::AnalysisCache,
    /// Failed logins and the password checks running.
    pub logins: auth::LoginGuard,
    /// The LTI platforms' public keys, as last fetched.
    pub jwks: lti::jwks::JwksCache,
    /// Access tokens to the LTI platforms' services, while they last.
    pub lti_tokens: lti::services::AccessTokens,
    /// The SMTP server students' links are sent through, when the environment sets one
    /// ([`mail`]).
    pub mailer: Option<mail::Mailer>,
    /// Whether login cookies are `Secure` (HTTPS only): `serve --secure-cookies`.
    pub secure_cookies: bool,
    /// The address students reach the service at (`serve --public-url`), without a final
    /// `/`: see [`App::link_base`].
    pub public_url: Option<String>,
    /// The serving process's lock on the data directory, held while the app lives.
    pub(crate) lock: Option<std::fs::File>,
    /// The least work of one shard of an analysis's rounds shared with other processes
    /// (`--shard-ms`, default [`rounds::SHARD_WORK`]).
    pub shard_work: std::time::Duration,
}

impl App {
    pub fn open(data: &std::path::Path, database: Option<&str>, max_upload_bytes: usize) -> anyhow::Result<App> {
        let store = Store::open(data)?;
        let db = open_db(&store, database)?;
        // Compiled modules are kept in the data directory: a restart does not compile a
        // class again.
        let sandbox = Sandbox::new()?.with_disk_cache(data.join("compiled"))?;
        let builder = toolchain::Builder::new(Some(data.join("builds")));
        Ok(App {
            db,
            store,
            tools: course::Tools { sandbox, builder },
            jobs: Jobs::default(),
            checks: checks::BundleChecks::default(),
            hand_ins: hand_ins::HandIns::default(),
            max_upload_bytes,
            analyses: analysis_cache::AnalysisCache::default(),
            logins: auth::LoginGuard::default(),
            jwks: Default::default(),
            lti_tokens: Default::default(),
            mailer: mail::Mailer::from_env()?,
            secure_cookies: false,
            public_url: None,
            lock: None,
            shard_work: rounds::SHARD_WORK,
        })
    }

    /// The base of the students' links that leave the service (emails, `links.csv`): the
    /// public address when `--public-url` gives one, else (`Err`) the address `req` was made
    /// to, which only the instructor's browser is known to reach.
    pub fn link_base(&self, req: &actix_web::HttpRequest) -> Result<String, String> {
        match &self.public_url {
            Some(url) => Ok(url.clone()),
            None => {
                let info = req.connection_info();
                Err(format!("{}://{}", info.scheme(), info.host()))
            }
        }
    }

    /// Each student's name and email, by course and id: the rosters' (see
    /// [`course::exports::roster_contacts`]), and for what they leave empty, the LMS's.
    pub fn contacts(&self) -> Result<course::exports::Contacts, AppError> {
        let rosters: Vec<(i64, course::roster::RosterRow)> = self.db.rosters()?.into_iter().map(|(course, _, row)| (course, row)).collect();
        let mut contacts = course::exports::roster_contacts(&rosters);
        for (course, student, name, email) in self.db.lti_contacts()? {
            let known = contacts.entry((course, student)).or_default();
            for (kept, given) in [(&mut known.0, name), (&mut known.1, email)] {
                if kept.is_empty() {
                    *kept = given;
                }
            }
        }
        Ok(contacts)
    }

    /// Whether the store keeps files as rows too (PostgreSQL): then another process, on
    /// another machine, may need them, and finds them there.
    fn files_shared(&self) -> bool {
        self.db.engine() == db::Engine::Postgres
    }

    /// Stores a module (see [`Store::put_module`]) and returns its hash.
    pub fn put_module(&self, bytes: &[u8]) -> anyhow::Result<String> {
        let hash = self.store.put_module(bytes)?;
        if self.files_shared() {
            self.db.put_file(&Store::module_name(&hash), bytes)?;
        }
        Ok(hash)
    }

    /// A stored module's bytes, fetched from the database (and kept here) if another
    /// process stored it.
    pub fn module(&self, hash: &str) -> anyhow::Result<Vec<u8>> {
        match self.store.module(hash) {
            Err(missing) if self.files_shared() => {
                let bytes = self.db.file(&Store::module_name(hash))?.ok_or(missing)?;
                store::write_atomically(&self.store.resolve(&Store::module_name(hash)), &bytes)?;
                Ok(bytes)
            }
            found => found,
        }
    }

    /// Keeps every file under `dir` (a folder under the data folder: a problem's, an
    /// analysis's outputs) as rows too, when files are shared.
    pub fn publish(&self, dir: &std::path::Path) -> anyhow::Result<()> {
        if !self.files_shared() {
            return Ok(());
        }
        let mut pending = vec![dir.to_owned()];
        while let Some(folder) = pending.pop() {
            for entry in std::fs::read_dir(&folder).with_context(|| format!("cannot read {}", folder.display()))? {
                let path = entry?.path();
                if path.is_dir() {
                    pending.push(path);
                } else {
                    self.db.put_file(&self.store.relative(&path), &std::fs::read(&path)?)?;
                }
            }
        }
        Ok(())
    }

    /// An analysis's hand-ins as its answer rows name them, each module fetched from the
    /// store when it is compiled: what its holder grades and a helper compiles.
    pub(crate) fn hand_ins(app: &Arc<App>, rows: &[db::AnswerRow]) -> Vec<course::hand_in::HandIn> {
        rows.iter()
            .map(|a| {
                let (app, sha256) = (Arc::clone(app), a.sha256.clone());
                let fetch = move || app.module(&sha256).map_err(|e| format!("{e:#}"));
                let what = Ok(course::hand_in::Handed::Module(course::hand_in::ModuleSource::Fetched(Arc::new(fetch))));
                course::hand_in::HandIn { id: Some(a.student.clone()), file: a.student.clone(), what, late: false }
            })
            .collect()
    }

    /// The folder here of what the store names `stored` (see [`Store::resolve`]); when
    /// files are shared and it is not here yet, it is fetched from the database first
    /// (into a temporary folder renamed into place: all of it or nothing).
    pub fn local(&self, stored: &str) -> anyhow::Result<std::path::PathBuf> {
        let dir = self.store.resolve(stored);
        if dir.exists() || !self.files_shared() {
            return Ok(dir);
        }
        let name = self.store.relative(&dir);
        let files = self.db.files_under(&format!("{name}/"))?;
        anyhow::ensure!(!files.is_empty(), "{name} is neither here nor in the database");
        let parent = dir.parent().context("a stored folder has a parent")?;
        std::fs::create_dir_all(parent)?;
        let temp = tempfile::tempdir_in(parent)?;
        for (path, bytes) in files {
            let target = temp.path().join(path.strip_prefix(&format!("{name}/")).unwrap_or(&path));
            std::fs::create_dir_all(target.parent().unwrap_or(temp.path()))?;
            std::fs::write(&target, bytes)?;
        }
        match std::fs::rename(temp.keep(), &dir) {
            // Another thread fetched it meanwhile: the same files.
            Err(_) if dir.exists() => {}
            renamed => renamed.with_context(|| format!("cannot keep {}", dir.display()))?,
        }
        Ok(dir)
    }

    /// The folder of analysis `id`'s outputs, here.
    pub fn analysis_dir(&self, id: i64) -> anyhow::Result<std::path::PathBuf> {
        self.local(&self.store.relative(&self.store.analysis_dir(id)))
    }

    /// Deletes a stored module and what was made of it: a source's build (`builds/`) and
    /// the compiled code (`compiled/`).
    pub fn forget_module(&self, hash: &str) -> anyhow::Result<()> {
        if self.files_shared() {
            self.db.delete_files(&Store::module_name(hash))?;
        }
        if let Ok(bytes) = self.store.module(hash) {
            let module = match toolchain::Source::from_bytes(&bytes) {
                Some(source) => match self.tools.builder.forget(&source) {
                    Some(toolchain::Built::Module { wasm, .. }) => Some(wasm),
                    _ => None,
                },
                None => Some(bytes),
            };
            if let Some(module) = module {
                self.tools.sandbox.forget(&module).context("cannot delete a compiled module")?;
            }
        }
        self.store.remove_module(hash)
    }

    /// Deletes a batch (see [`Db::delete_batch`]) and the files only it used: its analyses'
    /// outputs and the modules no other batch, analysis or pending upload refers to.
    /// `Some(analysis)` when nothing was deleted because that analysis of the batch is
    /// queued or running.
    pub fn delete_batch(&self, batch: i64) -> anyhow::Result<Option<i64>> {
        let (analyses, modules) = match self.db.delete_batch(batch)? {
            db::Deleted::Busy(analysis) => return Ok(Some(analysis)),
            db::Deleted::Done { analyses, modules } => (analyses, modules),
        };
        for id in analyses {
            self.analyses.forget(id);
            let dir = self.store.analysis_dir(id);
            if self.files_shared() {
                self.db.delete_files(&self.store.relative(&dir))?;
            }
            if dir.exists() {
                std::fs::remove_dir_all(&dir).with_context(|| format!("cannot delete {}", dir.display()))?;
            }
        }
        modules.iter().try_for_each(|hash| self.forget_module(hash))?;
        Ok(None)
    }

    /// A finished analysis's result.
    pub fn analysis(&self, id: i64) -> anyhow::Result<Arc<Analysis>> {
        if let Some(found) = self.analyses.get(id) {
            return Ok(found);
        }
        let path = self.analysis_dir(id)?.join("analysis.json");
        let analysis: Arc<Analysis> = Arc::new(course::outputs::read_analysis(&path)?);
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
        self.analyses.keep(id, analysis.clone(), bytes);
        Ok(analysis)
    }
}

/// What a request can fail with: 404, 401 for the API or a redirect to the login page, 403
/// for a CSRF token missing or wrong, 400 with a message, 413, and 500, logged and not
/// shown. Messages are for the person who sent the request and never name another student.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("Not found")]
    NotFound,
    #[error("Log in first")]
    LoggedOut { api: bool },
    #[error("The form is out of date or not from this site (CSRF token missing or wrong): reload the page and try again")]
    Csrf,
    #[error("{0}")]
    BadRequest(String),
    /// 401: who the request says it is from was not proven (an LTI launch that fails a check).
    #[error("{0}")]
    Refused(String),
    /// 413: the request is larger than a limit.
    #[error("{0}")]
    TooLarge(String),
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl From<course::CourseError> for AppError {
    /// A batch, a zip or a roster that cannot be used is the request's fault (400, the
    /// message naming it); anything else is the service's.
    fn from(error: course::CourseError) -> AppError {
        match error {
            course::CourseError::Batch(message) => AppError::BadRequest(message),
            error => AppError::Internal(error.into()),
        }
    }
}

impl From<db::DbError> for AppError {
    fn from(error: db::DbError) -> AppError {
        AppError::Internal(error.into())
    }
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::NotFound => StatusCode::NOT_FOUND,
            AppError::LoggedOut { .. } => StatusCode::UNAUTHORIZED,
            AppError::Csrf => StatusCode::FORBIDDEN,
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Refused(_) => StatusCode::UNAUTHORIZED,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            AppError::LoggedOut { api: false } => HttpResponse::SeeOther().insert_header(("Location", "/login")).finish(),
            AppError::Internal(error) => {
                eprintln!("internal error: {error:#}");
                error_page("Something went wrong", "internal error (see the service's log)", self.status_code())
            }
            AppError::NotFound => error_page("Not found", "There is nothing here: the address is wrong, or what it named was deleted.", self.status_code()),
            other => error_page("Refused", &other.to_string(), other.status_code()),
        }
    }
}

/// An error as a page of the site: the reason and the way back. (Refused forms are shown
/// again under the reason instead, by their handlers: see [`pages::forms::form_again`](pages).)
fn error_page(title: &str, reason: &str, status: StatusCode) -> HttpResponse {
    let mut response = pages::layout::page(
        title,
        None,
        maud::html! {
            p.bad role="alert" { (pages::layout::with_code(reason)) }
            p { a href="/" { "Back to bugrank" } }
        },
    );
    *response.status_mut() = status;
    response
}

/// A handler's result.
pub type Page = Result<HttpResponse, AppError>;

/// `seconds` since the epoch in UTC: `(year, month, day, seconds into the day)` (civil from
/// days, Howard Hinnant's algorithm).
pub(crate) fn civil(seconds: i64) -> (i64, i64, i64, i64) {
    let days = seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day, seconds.rem_euclid(86_400))
}

/// The days since 1970-01-01 of a date of the proleptic Gregorian calendar (the inverse of
/// [`civil`]); `None` for a day the month does not have (2026-02-30).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> Option<i64> {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let (y2, m2, d2, _) = civil(days * 86_400);
    (y2 == year && m2 == month && d2 == day).then_some(days)
}

/// The store's database: PostgreSQL at `database`, else SQLite in the data directory.
pub(crate) fn open_db(store: &Store, database: Option<&str>) -> anyhow::Result<Db> {
    match database {
        Some(url) => Ok(Db::connect(url)?),
        None => {
            let path = store.database_path();
            Db::open(&path).with_context(|| format!("cannot open the store {}", path.display()))
        }
    }
}

/// `--public-url`: an `http` or `https` URL with a host, kept without a final `/` (a link
/// is the base, then `/s/<token>`); no query or fragment.
fn public_url(given: &str) -> Result<String, String> {
    let url = given.trim().trim_end_matches('/');
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    match rest {
        None => Err(format!("`{given}` is not an http:// or https:// address (such as https://grades.example.edu)")),
        Some(rest) if rest.is_empty() || rest.starts_with('/') => Err(format!("`{given}` has no host name")),
        Some(rest) if rest.contains(['?', '#', ' ']) => Err(format!("`{given}` has a query, a fragment or a space: give the address the links start with")),
        Some(_) => Ok(url.to_owned()),
    }
}

/// The most bytes one upload request may carry by default: a class of 300 modules of a
/// few hundred KiB each, zipped, fits; a runaway upload does not fill memory or disk.
pub const MAX_UPLOAD_BYTES: usize = 256 << 20;

/// A running service: its address and the handle that stops it.
pub struct Running {
    pub addr: SocketAddr,
    pub server: actix_web::dev::Server,
}

/// Opens the store, prepares the demo data on first start, starts the workers and binds
/// the HTTP server (not yet running: await `server`).
pub fn start(args: &ServeArgs) -> anyhow::Result<Running> {
    // First of all, before anything is requeued or written.
    let lock = store::lock_data(&args.data)?;
    let mut app = App::open(&args.data, args.database.as_deref(), args.max_upload_mib << 20)?;
    app.lock = Some(lock);
    app.secure_cookies = args.secure_cookies;
    app.public_url = args.public_url.clone();
    app.shard_work = std::time::Duration::from_millis(args.shard_ms.max(1));
    let app = Arc::new(app);
    app.db.exclusively(|| -> anyhow::Result<()> {
        if app.db.instructor_count()? == 0 {
            let password = auth::random_token()[..16].to_owned();
            app.db.add_instructor("instructor", &auth::hash_password(&password)?)?;
            println!("created the first instructor account: log in as `instructor` with password `{password}`");
            println!("(add others with `bugrank user add --data {} --login NAME`)", args.data.display());
        }
        Ok(())
    })?;
    anyhow::ensure!(
        args.workers > 0 || app.db.engine() == db::Engine::Postgres,
        "--workers 0 leaves the analyses to `bugrank worker` processes, which need a shared --database (PostgreSQL); with SQLite in --data this process must run them"
    );
    worker::start(app.clone(), args.workers, args.threads)?;
    checks::start(app.clone())?;
    hand_ins::start(app.clone())?;
    app.db.exclusively(|| -> anyhow::Result<()> {
        if !args.no_demo && app.db.problems()?.is_empty() {
            let (problems, _kept) = crate::demo_data::demo_problems(args.demo.as_deref())?;
            first_start::load(&app, &problems, args.workers > 0)?;
        }
        Ok(())
    })?;
    let data = web::Data::new(app);
    let trusted_proxy = args.trusted_proxy.map(|ip| ip.to_canonical());
    let per_address = connections::PerAddress::new(trusted_proxy);
    let (_descriptors, most_connections) = connections::connection_budget();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let server = actix_web::HttpServer::new(move || {
        let headers = pages::layout::SECURITY_HEADERS.iter().fold(actix_web::middleware::DefaultHeaders::new(), |h, &header| h.add(header));
        let bounds = actix_web::middleware::from_fn(move |req, next| connections::client_and_body_bounds(trusted_proxy, req, next));
        actix_web::App::new().wrap(headers).wrap(bounds).app_data(data.clone()).app_data(web::FormConfig::default().limit(64 << 10)).configure(pages::routes)
    })
    .on_connect(move |connection, extensions| per_address.on_connect(connection, extensions))
    .workers(threads)
    // actix counts connections per worker thread.
    .max_connections(most_connections.div_ceil(threads))
    .client_request_timeout(connections::REQUEST_HEAD_TIMEOUT)
    .client_disconnect_timeout(connections::DISCONNECT_TIMEOUT)
    .keep_alive(if connections::KEEP_ALIVE { actix_web::http::KeepAlive::default() } else { actix_web::http::KeepAlive::Disabled })
    .bind(&args.bind)
    .with_context(|| format!("cannot listen on {}", args.bind))?;
    let addr = *server.addrs().first().context("the server listens somewhere")?;
    Ok(Running { addr, server: server.run() })
}

/// How an analysis's row says to grade it: its seed, search, fuel factor and points (no
/// previous analysis, no bug lists).
pub(crate) fn settings(row: &db::AnalysisRow) -> course::Settings {
    course::Settings { stable_after: row.stable_after, fuel_factor: row.fuel_factor, max_points: row.max_points, ..course::Settings::seed(row.seed) }
}
