-- The journal-v1.sqlite fixture: schema version 1 as Sequencer wrote it, with a failed run
-- (a and b succeeded, b with a JSON result; c failed) and an interrupted one. Made with:
--     sqlite3 journal-v1.sqlite < journal-v1.sql

PRAGMA application_id = 1397051722;
PRAGMA journal_mode = WAL;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);

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
                
INSERT INTO grdb_migrations VALUES ('v1');
INSERT INTO runs (id, workflow, info, status, started_at, ended_at, job_count, succeeded, failed, skipped)
  VALUES (1, 'fixture', NULL, 'failed', 1795000000000000000, 1795000001000000000, 3, 2, 1, 0);
INSERT INTO runs (id, workflow, info, status, started_at, ended_at, job_count)
  VALUES (2, 'fixture', NULL, 'running', 1795000100000000000, NULL, 3);
INSERT INTO jobs (run_id, name, position, status, attempts, started_at, ended_at) VALUES (1, 'a', 0, 'succeeded', 1, 1795000000100000000, 1795000000200000000);
INSERT INTO jobs (run_id, name, position, status, attempts, started_at, ended_at, result) VALUES (1, 'b', 1, 'succeeded', 1, 1795000000200000000, 1795000000300000000, CAST('{"limit":1,"name":"b"}' AS BLOB));
INSERT INTO jobs (run_id, name, position, status, code, error, attempts, started_at, ended_at) VALUES (1, 'c', 2, 'failed', 'failed', 'Flaky()', 1, 1795000000300000000, 1795000000400000000);
INSERT INTO jobs (run_id, name, position, status, attempts, started_at) VALUES (2, 'a', 0, 'running', 0, 1795000100100000000);
PRAGMA user_version = 1;
