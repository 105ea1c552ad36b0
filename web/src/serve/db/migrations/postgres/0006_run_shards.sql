-- Issue 45.3: one analysis's rounds of work, in shards that every worker process on the
-- database may make (PostgreSQL only: a SQLite store has one process). A round belongs to
-- the holder of the analysis that opened it (`owner`): a holder that lost its lease
-- cannot mix its rounds with its successor's. A round is of runs, or of bug lists; what
-- every shard of it shares (`common`: the analysis, for bug lists) is kept once, with the
-- digest of the programs its shards name. `claimed_until` is the database clock's second
-- at which a claim runs out (the claimant died): another then makes the shard. `results`
-- are what a helper made; the owner deletes a round once it has them all.
CREATE TABLE run_rounds (
    analysis_id BIGINT NOT NULL REFERENCES analyses(id),
    owner TEXT NOT NULL,
    round BIGINT NOT NULL,
    kind TEXT NOT NULL,
    programs BYTEA NOT NULL,
    common BYTEA NOT NULL,
    PRIMARY KEY (analysis_id, owner, round)
);
CREATE TABLE run_shards (
    analysis_id BIGINT NOT NULL,
    owner TEXT NOT NULL,
    round BIGINT NOT NULL,
    shard BIGINT NOT NULL,
    work BYTEA NOT NULL,
    claimed_by TEXT,
    claimed_until BIGINT,
    done BOOLEAN NOT NULL DEFAULT FALSE,
    results BYTEA,
    PRIMARY KEY (analysis_id, owner, round, shard),
    FOREIGN KEY (analysis_id, owner, round) REFERENCES run_rounds (analysis_id, owner, round) ON DELETE CASCADE
);
CREATE INDEX run_shards_open ON run_shards (analysis_id) WHERE NOT done;
