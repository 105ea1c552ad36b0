//! One analysis over many workers (issue 45.3): the rounds of runs of an analysis shared,
//! over PostgreSQL, with the idle workers of other processes (`bugrank worker` on any
//! machine). The analysis's holder cuts a round that is long enough into shards of about
//! [`SHARD_WORK`] of work (`--shard-ms`; `db/shards.rs`), makes the shards nobody took,
//! and collects the results of the others ([`SharedRounds`]); an idle worker of another
//! process compiles the analysis's class once and makes shards of it ([`Helper`]). Runs
//! are deterministic
//! and the holder judges every run, so the analysis is the same, byte for byte, whoever
//! made which run; a helper that dies leaves its shard to the next claimant once its
//! claim runs out ([`SHARD_LEASE_SECONDS`](super::db::SHARD_LEASE_SECONDS)).
//!
//! A shard's size is timed on the holder's own runs. The helper is an idle worker that is not the express one, one a
//! process; its compile of the class is refused if its programs' digest differs from the analysis's. What both the
//! holder and a helper grade or compile is `App::hand_ins` and `serve::settings` of the analysis's rows; `App::local`
//! fetches a problem folder or an analysis's outputs from the database into this process's `--data` when it is not
//! there yet.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use course::grade_batch::CompiledClass;
use course::problem_dir::ProblemDir;
use course::rounds::{RunsElsewhere, decode_bug_lists, decode_executions, encode_hand_ins, encode_runs};
use grader::{Execution, RunRequest};

use super::App;
use super::db::{Round, RoundKind, Shard};

/// About the least work of one shard on one worker: long enough that its database round
/// trips (a claim, a result, a look for results: some 0.3 ms on a local network) are a
/// small share of it, short enough that a round of a Python class's shrinking (every
/// hand-in on one input: 167 of them take some 25 ms on one thread) splits in five, which
/// two or four workers share evenly. A round that would make fewer than two shards is run
/// where it is (a C class's round of 300 runs takes a few milliseconds).
pub const SHARD_WORK: Duration = Duration::from_millis(5);

/// The most shards a round is cut into: a class of 1,000's round of random tests (some
/// 8,000 runs, a second and more) makes shards of tens of milliseconds, not hundreds of
/// shards of [`SHARD_WORK`], each with its round trips.
const MAX_SHARDS: usize = 32;

/// How often the holder looks for results while every shard of its round left is being
/// made elsewhere.
const RESULTS_POLL: Duration = Duration::from_millis(2);

/// How often a worker that helped lately looks for a shard (the holder opens its next
/// round within a millisecond of the last one's end, and a round of a class of 1,000 in
/// its shrinking takes some tens of milliseconds), and how long after its last shard:
/// then it goes back to the queue's pace. A look is one indexed query.
pub const HELP_POLL: Duration = Duration::from_millis(1);
const HELP_LINGER: Duration = Duration::from_secs(3);

/// The holder's side: rounds of the analysis `analysis` held by `owner`, shared out.
pub struct SharedRounds {
    app: Arc<App>,
    analysis: i64,
    owner: String,
    cancel: Arc<AtomicBool>,
    next_round: AtomicI64,
    /// Wall time a run takes on the holder's pool, in nanoseconds (a moving average of
    /// its rounds; 0 until the first).
    run_nanos: AtomicU64,
    /// Runs and bug lists made by other processes so far.
    elsewhere: AtomicU64,
}

impl std::fmt::Debug for SharedRounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedRounds(analysis {}, held by {})", self.analysis, self.owner)
    }
}

impl SharedRounds {
    /// The rounds of `analysis`, held by `owner`, which `cancel` stops sharing.
    pub fn new(app: Arc<App>, analysis: i64, owner: &str, cancel: Arc<AtomicBool>) -> SharedRounds {
        SharedRounds {
            app,
            analysis,
            owner: owner.to_owned(),
            cancel,
            next_round: AtomicI64::new(0),
            run_nanos: AtomicU64::new(0),
            elsewhere: AtomicU64::new(0),
        }
    }

    /// Runs and bug lists made by other processes so far.
    pub fn elsewhere(&self) -> u64 {
        self.elsewhere.load(Ordering::Relaxed)
    }

    /// `runs` made here, timed.
    fn timed(&self, runs: &[RunRequest<'_>], here: &(dyn Fn(&[RunRequest<'_>]) -> Vec<Execution> + Sync)) -> Vec<Execution> {
        let started = Instant::now();
        let made = here(runs);
        if !runs.is_empty() {
            let nanos = (started.elapsed().as_nanos() / runs.len() as u128).max(1) as u64;
            let before = self.run_nanos.load(Ordering::Relaxed);
            self.run_nanos.store(if before == 0 { nanos } else { (3 * before + nanos) / 4 }, Ordering::Relaxed);
        }
        made
    }

    /// The work of `count` items cut into shards of `per_shard` (`encode` gives a
    /// shard's work), shared out as a round of `kind` sharing `common`: the holder makes
    /// (`make`) the shards nobody took while it collects the others' results (`decode`,
    /// `None` when they cannot be read, or are not one for each item). Whatever it could
    /// not get (the store failed, a cancel) it makes here.
    #[allow(clippy::too_many_arguments)]
    fn shared<T: Clone>(
        &self,
        kind: RoundKind,
        programs: &[u8; 32],
        common: &[u8],
        count: usize,
        per_shard: usize,
        encode: &dyn Fn(std::ops::Range<usize>) -> Vec<u8>,
        make: &dyn Fn(std::ops::Range<usize>) -> Vec<T>,
        decode: &dyn Fn(&[u8]) -> Option<Vec<T>>,
    ) -> Vec<T> {
        let db = &self.app.db;
        let ranges: Vec<std::ops::Range<usize>> = (0..count).step_by(per_shard.max(1)).map(|s| s..count.min(s + per_shard.max(1))).collect();
        let round = self.next_round.fetch_add(1, Ordering::Relaxed);
        let key = Round { analysis: self.analysis, owner: &self.owner, round };
        let shards: Vec<Vec<u8>> = ranges.iter().map(|r| encode(r.clone())).collect();
        let mut made: Vec<Option<Vec<T>>> = vec![None; ranges.len()];
        let shared = (|| -> super::db::DbResult<()> {
            db.open_round(key, kind, programs, common, &shards)?;
            while made.iter().any(Option::is_none) && !self.cancel.load(Ordering::Relaxed) {
                for (shard, results) in db.take_results(key)? {
                    let Some(slot) = made.get_mut(shard as usize).filter(|slot| slot.is_none()) else { continue };
                    match decode(&results).filter(|items| items.len() == ranges[shard as usize].len()) {
                        Some(items) => {
                            self.elsewhere.fetch_add(items.len() as u64, Ordering::Relaxed);
                            *slot = Some(items);
                        }
                        // (Made here below instead.)
                        None => eprintln!("analysis {}: the results of shard {shard} of round {round} cannot be read; made here", self.analysis),
                    }
                }
                match db.claim_own_shard(key)? {
                    Some(shard) => {
                        let at = shard.shard as usize;
                        if made[at].is_none() {
                            made[at] = Some(make(ranges[at].clone()));
                        }
                        db.finish_shard(&shard, None)?;
                    }
                    None if made.iter().any(Option::is_none) => std::thread::sleep(RESULTS_POLL),
                    None => {}
                }
            }
            Ok(())
        })();
        if let Err(error) = shared {
            eprintln!("analysis {}: round {round} could not be shared ({error}); the rest is made here", self.analysis);
        }
        if let Err(error) = db.drop_round(key) {
            eprintln!("analysis {}: round {round} could not be deleted: {error}", self.analysis);
        }
        made.into_iter().zip(ranges).flat_map(|(made, range)| made.unwrap_or_else(|| make(range))).collect()
    }
}

impl RunsElsewhere for SharedRounds {
    fn run_all(&self, programs: &[u8; 32], runs: &[RunRequest<'_>], here: &(dyn Fn(&[RunRequest<'_>]) -> Vec<Execution> + Sync)) -> Vec<Execution> {
        let nanos = self.run_nanos.load(Ordering::Relaxed);
        // Until a round was timed here, the shards' size is unknown: the first is made here.
        let shard_runs = ((self.app.shard_work.as_nanos() as u64 / nanos.max(1)) as usize).max(runs.len().div_ceil(MAX_SHARDS)).max(1);
        if nanos == 0 || runs.len() < 2 * shard_runs || self.cancel.load(Ordering::Relaxed) {
            return self.timed(runs, here);
        }
        let (encode, make) = (|r: std::ops::Range<usize>| encode_runs(&runs[r]), |r: std::ops::Range<usize>| self.timed(&runs[r], here));
        self.shared(RoundKind::Runs, programs, &[], runs.len(), shard_runs, &encode, &make, &|bytes| decode_executions(bytes).ok())
    }

    fn bug_lists(&self, programs: &[u8; 32], analysis: &[u8], hand_ins: &[usize], here: &(dyn Fn(&[usize]) -> Vec<String> + Sync)) -> Vec<String> {
        // A bug list takes some tenths of a second and more (its explanations run the
        // program hundreds of times): one a shard.
        if hand_ins.len() < 2 || self.cancel.load(Ordering::Relaxed) {
            return here(hand_ins);
        }
        let (encode, make) = (|r: std::ops::Range<usize>| encode_hand_ins(&hand_ins[r]), |r: std::ops::Range<usize>| here(&hand_ins[r]));
        self.shared(RoundKind::BugLists, programs, analysis, hand_ins.len(), 1, &encode, &make, &|bytes| decode_bug_lists(bytes).ok())
    }
}

/// The start of the names of this process's holders (`host (pid N,`): a worker helps
/// only other processes' analyses (this one's share its cores already).
pub fn this_process(host: &str) -> String {
    format!("{host} (pid {},", std::process::id())
}

/// An idle worker's side: the class of the analysis it helps, compiled once.
pub struct Helper {
    holder: String,
    this_process: String,
    class: Option<Helping>,
    /// Analyses (with their programs' digest) this worker cannot help: its compile of the
    /// class failed or gave other programs.
    refused: HashSet<(i64, Vec<u8>)>,
    last_shard: Option<Instant>,
}

struct Helping {
    analysis: i64,
    problem_dir: ProblemDir,
    /// The problem as the analysis grades it.
    problem: grader::Problem,
    class: CompiledClass,
    digest: [u8; 32],
    /// The analysis whose bug lists it writes, read once a round.
    analysis_read: Option<((String, i64), grader::Analysis)>,
}

impl Helper {
    /// A helper for the worker `holder` of the process whose holders' names start with
    /// `this_process`.
    pub fn new(holder: &str, this_process: String) -> Helper {
        Helper { holder: holder.to_owned(), this_process, class: None, refused: HashSet::new(), last_shard: None }
    }

    /// Whether it made a shard lately: the worker then looks for the next every
    /// [`HELP_POLL`].
    pub fn lingering(&self) -> bool {
        self.last_shard.is_some_and(|at| at.elapsed() < HELP_LINGER)
    }

    /// Makes one shard of another process's analysis, if there is one it can make (its
    /// class compiled first, on `pool`): whether it did.
    pub fn help(&mut self, app: &Arc<App>, pool: &rayon::ThreadPool) -> bool {
        if !app.db.shares_rounds() {
            return false;
        }
        let shard = match app.db.claim_shard_to_help(&self.holder, &self.this_process) {
            Ok(Some(shard)) => shard,
            Ok(None) => return false,
            Err(error) => {
                eprintln!("worker: cannot claim a shard to help with: {error}");
                return false;
            }
        };
        self.last_shard = Some(Instant::now());
        // What it cannot make, it leaves: its claim runs out, and another makes it.
        match self.make(app, pool, &shard) {
            Ok(results) => {
                if let Err(error) = app.db.finish_shard(&shard, Some(&results)) {
                    eprintln!("worker: the results of a shard of analysis {} cannot be stored: {error}", shard.analysis);
                }
            }
            Err(error) => eprintln!("worker: a shard of analysis {} is left to others: {error:#}", shard.analysis),
        }
        true
    }

    /// `shard` made: its results, encoded.
    fn make(&mut self, app: &Arc<App>, pool: &rayon::ThreadPool, shard: &Shard) -> anyhow::Result<Vec<u8>> {
        let refused = (shard.analysis, shard.programs.clone());
        anyhow::ensure!(!self.refused.contains(&refused), "this worker cannot run its class");
        if self.class.as_ref().is_none_or(|helping| helping.analysis != shard.analysis) {
            self.class = None;
            match Helping::prepare(app, pool, shard.analysis) {
                Ok(helping) => self.class = Some(helping),
                Err(error) => {
                    self.refused.insert(refused);
                    return Err(error);
                }
            }
        }
        let helping = self.class.as_mut().expect("prepared above");
        if helping.digest[..] != shard.programs[..] {
            self.refused.insert(refused);
            anyhow::bail!("its class compiled here gives other programs than its holder's");
        }
        let Helping { problem_dir, class, problem, analysis_read: analysis, .. } = helping;
        let executor = class.executor(&app.tools, problem_dir);
        Ok(match shard.kind {
            Some(RoundKind::Runs) => pool.install(|| class.run_shard(&executor, &shard.work))?,
            Some(RoundKind::BugLists) => {
                if analysis.as_ref().is_none_or(|(round, _)| *round != (shard.owner.clone(), shard.round)) {
                    let common = app.db.round_common(shard)?;
                    *analysis = Some(((shard.owner.clone(), shard.round), serde_json::from_slice(&common)?));
                }
                let (_, graded) = analysis.as_ref().expect("read above");
                pool.install(|| class.bug_lists_shard(&app.tools, problem_dir, problem, graded, &shard.work))?
            }
            None => anyhow::bail!("a kind of shard this bugrank does not know"),
        })
    }
}

impl Helping {
    /// The class of `analysis` compiled here, as its holder compiled it.
    fn prepare(app: &Arc<App>, pool: &rayon::ThreadPool, analysis: i64) -> anyhow::Result<Helping> {
        let row = app.db.analysis(analysis)?.ok_or_else(|| anyhow::anyhow!("no such analysis"))?;
        let problem_dir = ProblemDir::load(&app.tools.sandbox, &app.tools.builder, &app.local(&row.problem_dir)?)?;
        let problem = course::grade_batch::problem_of(&problem_dir, &super::settings(&row))?;
        let hand_ins = App::hand_ins(app, &app.db.analysis_answers(analysis)?);
        let class = pool.install(|| CompiledClass::compile(&app.tools, &problem_dir, &hand_ins, &AtomicBool::new(false)))?;
        let digest = class.executor(&app.tools, &problem_dir).programs_digest();
        Ok(Helping { analysis, problem_dir, problem, class, digest, analysis_read: None })
    }
}
