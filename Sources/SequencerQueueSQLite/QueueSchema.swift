import Foundation
internal import GRDB
import SequencerHistory

/// The queue's tables, one migration per schema version.
///
/// A released migration never changes: a new schema is a new migration appended here, with a
/// fixture file of the previous version under `Tests/SequencerQueueTests/Fixtures/` and a test
/// that opens it.
enum QueueSchema {
    /// Marks a database as a Sequencer queue (`PRAGMA application_id`): "SEQQ".
    static let applicationID: Int32 = 0x5345_5151

    static let versions = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"]

    static var current: Int { versions.count }

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // `state` holds DurableJobState's raw values: 0 waiting, 1 available, 2 running,
            // 3 succeeded and above ended. AUTOINCREMENT: an ID is never given twice, even after
            // the job was pruned. The partial indexes cover only the rows each query reads:
            // available jobs by priority for claims, running ones by lease for the reaper and by
            // owner for heartbeats, live jobs by lane (a lane's slots), live keys (unique: two live jobs never share one), ended
            // jobs by time for pruning.
            try db.execute(sql: """
                CREATE TABLE jobs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    input BLOB NOT NULL,
                    state INTEGER NOT NULL,
                    priority INTEGER NOT NULL,
                    lane TEXT,
                    key TEXT,
                    remaining INTEGER NOT NULL DEFAULT 0,
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
                    ended_at INTEGER
                );
                CREATE INDEX jobs_available ON jobs(priority DESC, id) WHERE state = 1;
                CREATE INDEX jobs_run_at ON jobs(run_at) WHERE state = 1;
                CREATE INDEX jobs_lease ON jobs(lease_until) WHERE state = 2;
                CREATE INDEX jobs_owner ON jobs(owner) WHERE state = 2;
                CREATE INDEX jobs_lane ON jobs(lane, state) WHERE lane IS NOT NULL AND state <= 2;
                CREATE UNIQUE INDEX jobs_live_key ON jobs(key) WHERE key IS NOT NULL AND state <= 2;
                CREATE INDEX jobs_ended ON jobs(ended_at) WHERE state >= 3;
                CREATE TABLE needs (
                    need INTEGER NOT NULL,
                    job INTEGER NOT NULL,
                    PRIMARY KEY (need, job)
                ) WITHOUT ROWID;
                CREATE TABLE lanes (
                    name TEXT PRIMARY KEY,
                    width INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2") { db in
            // Runs of a workflow kept in the queue (QueueRun): `run_jobs` names the jobs of a run
            // (a run's jobs are ordinary jobs; pruning leaves them to `deleteRuns`), `attempts`
            // is the log its workers write, one row per attempt, late ones included.
            try db.execute(sql: """
                CREATE TABLE runs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    workflow TEXT NOT NULL,
                    origin TEXT NOT NULL,
                    info TEXT,
                    created_at INTEGER NOT NULL,
                    cancelled_at INTEGER
                );
                CREATE INDEX runs_workflow ON runs(workflow, id);
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
                """)
        }
        migrator.registerMigration("v3") { db in
            // The fingerprints of workflow jobs' last successes, shared by the workers' up-to-date
            // checks; `parts` and `outputs` were JSON objects (until v5).
            try db.execute(sql: """
                CREATE TABLE fingerprints (
                    workflow TEXT NOT NULL,
                    job TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    parts TEXT NOT NULL,
                    outputs TEXT NOT NULL,
                    recorded_at INTEGER NOT NULL,
                    PRIMARY KEY (workflow, job)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4") { db in
            // `ahead`: the running job was claimed beyond its worker's free slots, to wait in the
            // worker for one; its worker's end is then no crash of its own. `lost_ahead`: such
            // a claim was taken back once; the job is never claimed ahead again (so a job that
            // kills its worker as it starts is counted, from its next claim on).
            try db.execute(sql: """
                ALTER TABLE jobs ADD COLUMN ahead INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE jobs ADD COLUMN lost_ahead INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v5") { db in
            // One encoding of fingerprints, the journal's (`Fingerprint`): parts and outputs
            // become text of one `KEY<TAB>VALUE` line per entry, sorted by key. A value that
            // does not decode as a JSON object of strings (written by hand) becomes empty: the
            // job then runs once, and is recorded anew.
            let rows = try Row.fetchAll(db, sql: "SELECT workflow, job, parts, outputs FROM fingerprints")
            for row in rows {
                func lines(_ json: String) -> String {
                    Fingerprint.encode((try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))) ?? [:])
                }
                try db.execute(
                    sql: "UPDATE fingerprints SET parts = ?, outputs = ? WHERE workflow = ? AND job = ?",
                    arguments: [lines(row[2]), lines(row[3]), row[0] as String, row[1] as String])
            }
        }
        migrator.registerMigration("v6") { db in
            // The column names of the PostgreSQL store: the count of a waiting job's needs that
            // have not succeeded yet is `pending_needs` in both.
            try db.execute(sql: "ALTER TABLE jobs RENAME COLUMN remaining TO pending_needs")
        }
        migrator.registerMigration("v7") { db in
            // What operating a queue reads, as in the PostgreSQL store's version 7: each
            // worker's last beat; the one process that reads the gauges, until when; when a
            // waiting job's last need ended (the wait in the queue is measured from then); the
            // trace context of a job's enqueueing, which its attempts' spans continue; and
            // the waiting jobs, which the gauges count (the other live states have their
            // indexes).
            try db.execute(sql: """
                CREATE TABLE workers (
                    owner TEXT PRIMARY KEY,
                    host TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    started_at INTEGER NOT NULL,
                    beat_at INTEGER NOT NULL,
                    holding INTEGER NOT NULL,
                    alive_until INTEGER NOT NULL
                );
                CREATE TABLE gauge_reader (
                    only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
                    reader TEXT NOT NULL,
                    held_until INTEGER NOT NULL
                );
                INSERT INTO gauge_reader (only_row, reader, held_until) VALUES (1, '', 0);
                ALTER TABLE jobs ADD COLUMN available_since INTEGER;
                ALTER TABLE jobs ADD COLUMN trace_context TEXT;
                CREATE INDEX jobs_waiting ON jobs (id) WHERE state = 0;
                """)
        }
        migrator.registerMigration("v8") { db in
            // What the queue page shows and records, as in the PostgreSQL store's version 8:
            // the kinds each worker runs (one a line), which the page offers to enqueue; and
            // every action an operator took from it.
            try db.execute(sql: """
                ALTER TABLE workers ADD COLUMN kinds TEXT NOT NULL DEFAULT '';
                CREATE TABLE actions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    action TEXT NOT NULL,
                    job INTEGER,
                    who TEXT NOT NULL,
                    address TEXT NOT NULL,
                    result TEXT NOT NULL
                );
                """)
        }
        return migrator
    }
}
