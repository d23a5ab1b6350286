-- A queue written by schema version 7 (Sequencer's SQLiteQueueStore): the version 6 fixture
-- (queue-v6.sql) as version 7 left it (workers, gauge_reader, available_since, trace_context),
-- with one worker's beat and job 2 failed. Opened by QueueMigrationTests.
PRAGMA application_id = 1397051729;
PRAGMA user_version = 7;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1');
INSERT INTO grdb_migrations VALUES('v2');
INSERT INTO grdb_migrations VALUES('v3');
INSERT INTO grdb_migrations VALUES('v4');
INSERT INTO grdb_migrations VALUES('v5');
INSERT INTO grdb_migrations VALUES('v6');
INSERT INTO grdb_migrations VALUES('v7');
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    input BLOB NOT NULL,
    state INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    lane TEXT,
    key TEXT,
    pending_needs INTEGER NOT NULL DEFAULT 0,
    run_at INTEGER NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    crashes INTEGER NOT NULL DEFAULT 0,
    retry TEXT,
    timeout_ms INTEGER,
    owner TEXT,
    lease_until INTEGER,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    output BLOB,
    error_code TEXT,
    error TEXT,
    cause INTEGER,
    enqueued_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    ahead INTEGER NOT NULL DEFAULT 0,
    lost_ahead INTEGER NOT NULL DEFAULT 0
, available_since INTEGER, trace_context TEXT);
INSERT INTO jobs VALUES(1,'fetch',X'7b2276616c7565223a317d',3,1,NULL,'fetch-1',0,1700000000000,1,0,NULL,NULL,NULL,NULL,0,X'7b2276616c7565223a226f6b227d',NULL,NULL,NULL,1700000000000,1700000000001,1700000000002,0,0,NULL,NULL);
INSERT INTO jobs VALUES(2,'fetch',X'7b2276616c7565223a377d',4,2,'network','fetch-7',0,1700000000000,1,0,'5 1000 2.0 30000 0.1',30000,NULL,NULL,0,NULL,'failed','boom',NULL,1700000000000,1700000000001,1700000000009,0,0,NULL,NULL);
INSERT INTO jobs VALUES(3,'apply',X'7b2276616c7565223a377d',0,1,NULL,'apply-7',1,1700000000000,0,0,NULL,NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,1700000000000,NULL,NULL,0,0,NULL,NULL);
INSERT INTO jobs VALUES(4,'apply',X'7b2276616c7565223a387d',1,1,NULL,NULL,0,1700000000000,0,0,NULL,NULL,NULL,NULL,0,NULL,NULL,NULL,NULL,1700000000000,NULL,NULL,0,0,NULL,NULL);
CREATE TABLE needs (
    need INTEGER NOT NULL,
    job INTEGER NOT NULL,
    PRIMARY KEY (need, job)
) WITHOUT ROWID;
INSERT INTO needs VALUES(2,3);
CREATE TABLE lanes (
    name TEXT PRIMARY KEY,
    width INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO lanes VALUES('network',2);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workflow TEXT NOT NULL,
    origin TEXT NOT NULL,
    info TEXT,
    created_at INTEGER NOT NULL,
    cancelled_at INTEGER
);
CREATE TABLE run_jobs (
    run INTEGER NOT NULL,
    name TEXT NOT NULL,
    job INTEGER NOT NULL UNIQUE,
    PRIMARY KEY (run, name)
) WITHOUT ROWID;
CREATE TABLE attempts (
    job INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    worker TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    exit_code INTEGER,
    signal INTEGER,
    summary TEXT NOT NULL,
    output BLOB,
    PRIMARY KEY (job, attempt, worker)
) WITHOUT ROWID;
CREATE TABLE fingerprints (
    workflow TEXT NOT NULL,
    job TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    parts TEXT NOT NULL,
    outputs TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (workflow, job)
) WITHOUT ROWID;
INSERT INTO fingerprints VALUES('app','compile','f1',replace('command	c1\ninput:src/a.c	h1','\n',char(10)),'out/a.o	10:20:30',1700000000000);
INSERT INTO fingerprints VALUES('app','odd','f2','','',1700000000000);
CREATE TABLE workers (owner TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, started_at INTEGER NOT NULL, beat_at INTEGER NOT NULL, holding INTEGER NOT NULL, alive_until INTEGER NOT NULL);
INSERT INTO workers VALUES('old-worker','h',42,1700000000000,1700000000005,1,4000000000000);
CREATE TABLE gauge_reader (only_row INTEGER PRIMARY KEY CHECK (only_row = 1), reader TEXT NOT NULL, held_until INTEGER NOT NULL);
INSERT INTO gauge_reader VALUES(1,'',0);
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('jobs',4);
CREATE INDEX jobs_available ON jobs(priority DESC, id) WHERE state = 1;
CREATE INDEX jobs_run_at ON jobs(run_at) WHERE state = 1;
CREATE INDEX jobs_lease ON jobs(lease_until) WHERE state = 2;
CREATE INDEX jobs_owner ON jobs(owner) WHERE state = 2;
CREATE INDEX jobs_lane ON jobs(lane, state) WHERE lane IS NOT NULL AND state <= 2;
CREATE UNIQUE INDEX jobs_live_key ON jobs(key) WHERE key IS NOT NULL AND state <= 2;
CREATE INDEX jobs_ended ON jobs(ended_at) WHERE state >= 3;
CREATE INDEX runs_workflow ON runs(workflow, id);
CREATE INDEX jobs_waiting ON jobs (id) WHERE state = 0;
COMMIT;
