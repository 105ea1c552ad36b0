//! A throwaway PostgreSQL server for the tests: Debian's `postgresql` package, `initdb` in
//! a temporary folder, listening on a free loopback port, one database per data directory.
//!
//! PostgreSQL refuses to run as root, so under root the server runs as `nobody` (through
//! `setpriv`). It dies with the test process (`--pdeathsig`, from a thread that lives as
//! long as the process), and its folder is removed by the next run that finds it orphaned.
//! Without PostgreSQL installed the tests that need it say so and pass, except under `CI`,
//! where they fail: `.ci/run` installs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A running throwaway server.
pub struct Postgres {
    bin: PathBuf,
    port: u16,
    /// Databases made so far, by the data directory they belong to.
    databases: Mutex<Vec<PathBuf>>,
}

/// Where Debian installs PostgreSQL's programs: the newest version's.
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false)
}

/// `program` run as the server's user: `nobody` under root, else ourselves.
fn as_server_user(program: &Path) -> Command {
    if running_as_root() {
        let mut command = Command::new("setpriv");
        command.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--pdeathsig", "KILL", "--"]).arg(program);
        command
    } else {
        let mut command = Command::new("setpriv");
        command.args(["--pdeathsig", "KILL", "--"]).arg(program);
        command
    }
}

/// Removes the folders of earlier runs whose process is gone.
fn remove_orphans(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("bugrank-test-pg-")).and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Postgres {
    /// The server of this test process, started on first use.
    pub fn shared() -> &'static Postgres {
        static SERVER: OnceLock<Postgres> = OnceLock::new();
        SERVER.get_or_init(|| match bin_dir() {
            Some(bin) => Postgres::start(bin),
            None => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb): `.ci/run` installs Debian's postgresql"
                );
                // Every test of the binary needs it: end the binary, saying why.
                eprintln!("SKIPPED: every PostgreSQL test: PostgreSQL is not installed (`apt-get install postgresql`, which .ci/run does)");
                std::process::exit(0)
            }
        })
    }

    fn start(bin: PathBuf) -> Postgres {
        let parent = std::env::temp_dir();
        remove_orphans(&parent);
        let dir = parent.join(format!("bugrank-test-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        if running_as_root() {
            let status = Command::new("chown").args(["nobody:nogroup"]).arg(&dir).status().unwrap();
            assert!(status.success(), "chown of {} to nobody", dir.display());
        }
        let data = dir.join("data");
        let init = as_server_user(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "bugrank", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"])
            .output()
            .unwrap();
        assert!(init.status.success(), "initdb: {}", String::from_utf8_lossy(&init.stderr));
        let port = free_port();
        // The server is the child of a thread that lives as long as the process: with
        // --pdeathsig it dies when that thread does, that is with the test process.
        let (started, ready) = std::sync::mpsc::channel();
        let (postgres, socket_dir) = (bin.join("postgres"), dir.clone());
        std::thread::spawn(move || {
            let log = std::fs::File::create(socket_dir.join("log")).unwrap();
            let child = as_server_user(&postgres)
                .arg("-D")
                .arg(socket_dir.join("data"))
                .args(["-p", &port.to_string(), "-k"])
                .arg(&socket_dir)
                // A test server: durability is not what is tested.
                .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off"])
                .args(["-c", "full_page_writes=off", "-c", "max_connections=200"])
                .stdout(Stdio::null())
                .stderr(log)
                .spawn();
            started.send(child.map(|_| ())).unwrap();
            loop {
                std::thread::park();
            }
        });
        ready.recv().unwrap().expect("postgres starts");
        let server = Postgres { bin, port, databases: Mutex::default() };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !server.tool("pg_isready").output().is_ok_and(|o| o.status.success()) {
            assert!(Instant::now() < deadline, "PostgreSQL did not start: {}", std::fs::read_to_string(dir.join("log")).unwrap_or_default());
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// One of PostgreSQL's client programs, pointed at this server.
    fn tool(&self, name: &str) -> Command {
        let mut command = Command::new(self.bin.join(name));
        command.args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "bugrank"]);
        command
    }

    /// The URL of the database of `data` (created on first use): a service restarted on the
    /// same data directory finds the same database.
    pub fn database_for(&self, data: &Path) -> String {
        let mut databases = self.databases.lock().unwrap_or_else(|p| p.into_inner());
        let index = match databases.iter().position(|d| d == data) {
            Some(index) => index,
            None => {
                let name = format!("test{}", databases.len());
                let created = self.tool("createdb").arg(&name).output().unwrap();
                assert!(created.status.success(), "createdb {name}: {}", String::from_utf8_lossy(&created.stderr));
                databases.push(data.to_owned());
                databases.len() - 1
            }
        };
        format!("postgres://bugrank@127.0.0.1:{}/test{index}", self.port)
    }

    /// What `sql` prints in `psql`'s unaligned form, on the database of `data`.
    pub fn query(&self, data: &Path, sql: &str) -> String {
        let url = self.database_for(data);
        let name = url.rsplit('/').next().unwrap();
        let out = self.tool("psql").args(["-At", "-d", name, "-c", sql]).output().unwrap();
        assert!(out.status.success(), "psql: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }
}
