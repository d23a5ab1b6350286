internal import GRDB

/// The journal's tables, one migration per schema version.
///
/// A released migration never changes: a new schema is a new migration appended here, with
/// a fixture file of the previous version under `Tests/SequencerJournalTests/Fixtures/` and a
/// test that opens it (see `MigrationTests`).
enum Schema {
    /// Marks a database as a Sequencer journal (`PRAGMA application_id`): "SEQJ".
    static let applicationID: Int32 = 0x5345_514A

    /// The versions this build knows, oldest first.
    static let versions = ["v1", "v2", "v3", "v4", "v5"]

    static var current: Int { versions.count }

    static func migrator(upTo last: String? = nil) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE runs (
                    id INTEGER PRIMARY KEY,
                    workflow TEXT NOT NULL,
                    info TEXT,
                    status TEXT NOT NULL,
                    started_at INTEGER NOT NULL,
                    ended_at INTEGER,
                    job_count INTEGER NOT NULL,
                    succeeded INTEGER NOT NULL DEFAULT 0,
                    failed INTEGER NOT NULL DEFAULT 0,
                    skipped INTEGER NOT NULL DEFAULT 0,
                    cancelled INTEGER NOT NULL DEFAULT 0,
                    timed_out INTEGER NOT NULL DEFAULT 0,
                    sessions INTEGER NOT NULL DEFAULT 1
                );
                CREATE INDEX runs_by_workflow ON runs(workflow, id);
                CREATE TABLE jobs (
                    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    status TEXT NOT NULL,
                    code TEXT,
                    error TEXT,
                    attempts INTEGER NOT NULL,
                    started_at INTEGER,
                    ended_at INTEGER,
                    result BLOB,
                    parent TEXT,
                    PRIMARY KEY (run_id, name)
                ) WITHOUT ROWID;
                """)
        }
        guard last != "v1" else { return migrator }
        migrator.registerMigration("v2") { db in
            // Jobs move from a row each to packed records (see `JobLog`): recording a row per
            // job cost more than the jobs of a no-op run. Per-attempt details (exit codes,
            // output files), up-to-date fingerprints and the file hash cache are new.
            try db.execute(sql: """
                CREATE TABLE run_sessions (
                    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    session INTEGER NOT NULL,
                    started_at INTEGER NOT NULL,
                    names BLOB NOT NULL,
                    PRIMARY KEY (run_id, session)
                ) WITHOUT ROWID;
                CREATE TABLE job_log (
                    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    session INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    records BLOB NOT NULL,
                    PRIMARY KEY (run_id, session, seq)
                ) WITHOUT ROWID;
                CREATE TABLE job_details (
                    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    session INTEGER NOT NULL,
                    position INTEGER NOT NULL,
                    name TEXT,
                    parent TEXT,
                    code TEXT,
                    error TEXT,
                    result BLOB,
                    result_kind INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (run_id, session, position)
                ) WITHOUT ROWID;
                CREATE TABLE attempts (
                    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    attempt INTEGER NOT NULL,
                    started_at INTEGER NOT NULL,
                    ended_at INTEGER NOT NULL,
                    exit TEXT NOT NULL,
                    exit_code INTEGER,
                    signal INTEGER,
                    output TEXT,
                    PRIMARY KEY (run_id, name, attempt)
                ) WITHOUT ROWID;
                CREATE TABLE fingerprints (
                    workflow TEXT NOT NULL,
                    name TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    parts TEXT NOT NULL,
                    outputs TEXT NOT NULL,
                    run_id INTEGER NOT NULL,
                    PRIMARY KEY (workflow, name)
                ) WITHOUT ROWID;
                CREATE TABLE file_hashes (
                    path TEXT PRIMARY KEY,
                    size INTEGER NOT NULL,
                    mtime INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    hash TEXT NOT NULL
                ) WITHOUT ROWID;
                """)
            try JobLog.migrateVersion1Jobs(db)
            try db.execute(sql: "DROP TABLE jobs")
        }
        guard last != "v2" else { return migrator }
        migrator.registerMigration("v3") { db in
            // The files as they were when every job of a workflow was last found up to date
            // (`UpToDateState`): a no-op run compares stamps with it instead of computing each
            // fingerprint. Any change to the workflow's fingerprints, by any writer, drops it.
            try db.execute(sql: """
                CREATE TABLE up_to_date_states (
                    workflow TEXT PRIMARY KEY,
                    state BLOB NOT NULL
                ) WITHOUT ROWID;
                CREATE TRIGGER fingerprint_inserted AFTER INSERT ON fingerprints
                    BEGIN DELETE FROM up_to_date_states WHERE workflow = NEW.workflow; END;
                CREATE TRIGGER fingerprint_updated AFTER UPDATE ON fingerprints
                    BEGIN DELETE FROM up_to_date_states WHERE workflow IN (OLD.workflow, NEW.workflow); END;
                CREATE TRIGGER fingerprint_deleted AFTER DELETE ON fingerprints
                    BEGIN DELETE FROM up_to_date_states WHERE workflow = OLD.workflow; END;
                """)
        }
        guard last != "v3" else { return migrator }
        migrator.registerMigration("v4") { db in
            // Each job a session checked: its fingerprint then, and why it ran in `--explain`'s
            // words (NULL: up to date), by session (a resumed run's later sessions have their
            // own); by name too, to find a job's fingerprint in the run that last checked it.
            // And whether a session checked its jobs at all: NULL for sessions recorded before
            // this version, 0 when nothing was checked (no job of the file declares outputs, or
            // the run is not a workflow file's).
            try db.execute(sql: """
                CREATE TABLE job_checks (
                    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    session INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    reason TEXT,
                    PRIMARY KEY (run_id, session, name)
                ) WITHOUT ROWID;
                CREATE INDEX job_checks_by_name ON job_checks(name, run_id);
                ALTER TABLE run_sessions ADD COLUMN checked INTEGER;
                """)
        }
        guard last != "v4" else { return migrator }
        migrator.registerMigration("v5") { db in
            // Each session's graph (`HistoryGraph`: lanes, needs, commands), kept once per
            // distinct graph and named by its digest, so that a run is drawn as it ran.
            try db.execute(sql: """
                CREATE TABLE graphs (
                    digest TEXT PRIMARY KEY,
                    graph BLOB NOT NULL
                ) WITHOUT ROWID;
                ALTER TABLE run_sessions ADD COLUMN graph TEXT;
                """)
        }
        return migrator
    }
}
