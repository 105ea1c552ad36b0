//! One analysis's rounds of work, shared by every worker process on a PostgreSQL database
//! (issue 45.3; `migrations/postgres/0006_run_shards.sql`). The analysis's holder opens a
//! round as shards, makes those nobody else took, and collects the others' results; an
//! idle worker of another process claims a shard, makes it and writes its results. A
//! claim lasts [`SHARD_LEASE_SECONDS`]: a claimant that died leaves its shard to the next
//! claimant (the holder included), and a result written late is dropped. A SQLite store
//! has one process, and no shards: these queries are PostgreSQL's alone.

use super::sql::{DbResult, Engine, Row, args};
use super::{Db, row, rows};

/// How long a claim on a shard lasts before another process may make it: some hundred
/// times a shard's work (5 ms to some tens, `rounds.rs`), so that only a claimant that
/// died, or stalled for seconds, loses it; short enough that a killed helper costs its
/// analysis seconds, not minutes.
pub const SHARD_LEASE_SECONDS: i64 = 5;

/// A round of work: runs, or bug lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundKind {
    Runs,
    BugLists,
}

impl RoundKind {
    fn as_str(self) -> &'static str {
        match self {
            RoundKind::Runs => "runs",
            RoundKind::BugLists => "bug lists",
        }
    }
}

/// A shard claimed: which round of which analysis it is, what kind of work, the digest of
/// the programs it names, and its work (`course::rounds`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    pub analysis: i64,
    pub owner: String,
    pub round: i64,
    pub shard: i64,
    /// `None`: a kind this bugrank does not know (a newer one's): left to others.
    pub kind: Option<RoundKind>,
    pub programs: Vec<u8>,
    pub work: Vec<u8>,
}

/// The claim of the first free shard (not done; not claimed, or its claim ran out by the
/// database's clock) among those `filter` selects, for `?1` (the claimant), in one
/// statement: the shard with its round's kind and programs.
fn claim(filter: &str) -> String {
    let clock = Engine::Postgres.now();
    format!(
        "UPDATE run_shards s SET claimed_by = ?1, claimed_until = {clock} + {SHARD_LEASE_SECONDS}
         FROM run_rounds r
         WHERE (s.analysis_id, s.owner, s.round, s.shard) = (
             SELECT analysis_id, owner, round, shard FROM run_shards
             WHERE NOT done AND (claimed_until IS NULL OR claimed_until < {clock}) AND {filter}
             ORDER BY analysis_id, round, shard LIMIT 1 FOR UPDATE SKIP LOCKED)
         AND r.analysis_id = s.analysis_id AND r.owner = s.owner AND r.round = s.round
         RETURNING s.analysis_id, s.owner, s.round, s.shard, r.kind, r.programs, s.work"
    )
}

/// One round of an analysis's shared work: round `round` of `owner`'s holding of
/// `analysis`.
#[derive(Clone, Copy, Debug)]
pub struct Round<'a> {
    pub analysis: i64,
    pub owner: &'a str,
    pub round: i64,
}

impl Db {
    /// Whether this store shares rounds of work between processes: PostgreSQL's does.
    pub fn shares_rounds(&self) -> bool {
        self.0.engine() == Engine::Postgres
    }

    /// Opens `round`, of `kind`, as `shards` (each its work, encoded) of the programs with
    /// digest `programs`, sharing `common`.
    pub fn open_round(&self, round: Round, kind: RoundKind, programs: &[u8], common: &[u8], shards: &[Vec<u8>]) -> DbResult<()> {
        let Round { analysis, owner, round } = round;
        self.0.transaction(|c| {
            c.execute(
                "INSERT INTO run_rounds (analysis_id, owner, round, kind, programs, common) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                args![analysis, owner, round, kind.as_str(), programs, common],
            )?;
            for (shard, work) in shards.iter().enumerate() {
                c.execute(
                    "INSERT INTO run_shards (analysis_id, owner, round, shard, work) VALUES (?1, ?2, ?3, ?4, ?5)",
                    args![analysis, owner, round, shard as i64, work.as_slice()],
                )?;
            }
            Ok(())
        })
    }

    /// Claims for `holder` a free shard of an analysis whose holder is of another process
    /// than `this_process` (the start of its holders' names), the oldest analysis first:
    /// what an idle worker helps with.
    pub fn claim_shard_to_help(&self, holder: &str, this_process: &str) -> DbResult<Option<Shard>> {
        self.0.run(|c| row(c, &claim("strpos(owner, ?2) <> 1"), args![holder, this_process], shard_row))
    }

    /// Claims for `round`'s owner a free shard of its own `round`.
    pub fn claim_own_shard(&self, round: Round) -> DbResult<Option<Shard>> {
        let Round { analysis, owner, round } = round;
        self.0.run(|c| row(c, &claim("analysis_id = ?2 AND owner = ?1 AND round = ?3"), args![owner, analysis, round], shard_row))
    }

    /// What every shard of `shard`'s round shares.
    pub fn round_common(&self, shard: &Shard) -> DbResult<Vec<u8>> {
        self.0.run(|c| {
            c.query_one("SELECT common FROM run_rounds WHERE analysis_id = ?1 AND owner = ?2 AND round = ?3", args![shard.analysis, &shard.owner, shard.round])?
                .bytes(0)
        })
    }

    /// Marks `shard` done, with the `results` a helper made (the holder makes its own
    /// shards in memory: `None`). A shard already done is left as it is: its first
    /// maker's results stand (they are the same).
    pub fn finish_shard(&self, shard: &Shard, results: Option<&[u8]>) -> DbResult<()> {
        self.0.run(|c| {
            c.execute(
                "UPDATE run_shards SET done = TRUE, results = ?5 WHERE analysis_id = ?1 AND owner = ?2 AND round = ?3 AND shard = ?4 AND NOT done",
                args![shard.analysis, &shard.owner, shard.round, shard.shard, results],
            )
            .map(drop)
        })
    }

    /// The results helpers made of `round` since the last call, by shard; their rows are
    /// deleted (taken once).
    pub fn take_results(&self, round: Round) -> DbResult<Vec<(i64, Vec<u8>)>> {
        let Round { analysis, owner, round } = round;
        self.0.run(|c| {
            rows(
                c,
                "DELETE FROM run_shards WHERE analysis_id = ?1 AND owner = ?2 AND round = ?3 AND done AND results IS NOT NULL RETURNING shard, results",
                args![analysis, owner, round],
                |r| Ok((r.int(0)?, r.bytes(1)?)),
            )
        })
    }

    /// Deletes `round` with what is left of its shards.
    pub fn drop_round(&self, round: Round) -> DbResult<()> {
        let Round { analysis, owner, round } = round;
        self.0.run(|c| c.execute("DELETE FROM run_rounds WHERE analysis_id = ?1 AND owner = ?2 AND round = ?3", args![analysis, owner, round]).map(drop))
    }

    /// Deletes every round of the analysis, whoever opened it (it ended, or a new holder
    /// starts it again): nothing on SQLite, which has none.
    pub fn drop_rounds(&self, analysis: i64) -> DbResult<()> {
        if !self.shares_rounds() {
            return Ok(());
        }
        self.0.run(|c| c.execute("DELETE FROM run_rounds WHERE analysis_id = ?1", args![analysis]).map(drop))
    }
}

fn shard_row(r: &Row) -> DbResult<Shard> {
    let kind = match r.text(4)?.as_str() {
        "runs" => Some(RoundKind::Runs),
        "bug lists" => Some(RoundKind::BugLists),
        _ => None,
    };
    Ok(Shard { analysis: r.int(0)?, owner: r.text(1)?, round: r.int(2)?, shard: r.int(3)?, kind, programs: r.bytes(5)?, work: r.bytes(6)? })
}
