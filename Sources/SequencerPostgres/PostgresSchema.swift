/// The queue's tables in PostgreSQL, in the schema `sequencer`, one migration per version.
///
/// A released migration never changes: a new schema is a new migration appended here. Each
/// applied version is a row of `sequencer.migrations`; a database with a version this build
/// does not know was written by a newer Sequencer, and is refused and left untouched.
enum PostgresSchema {
    /// The schema that holds the queue's tables, so that they never meet the application's.
    static let name = "sequencer"

    /// The key of the advisory lock under which the schema is created or migrated: "SEQQ", as
    /// the SQLite store's application ID. Two workers starting at once take turns; the second
    /// finds the tables made.
    static let lockKey: Int64 = 0x5345_5151

    /// The statements of each version, in order (the extended protocol runs one statement per
    /// query).
    static let migrations: [[String]] = [v1, v2, v3, v4, v5, v6, v7, v8]

    static var current: Int { migrations.count }

    /// `state` holds DurableJobState's raw values: 0 waiting, 1 available, 2 running,
    /// 3 succeeded and above ended. An identity column never gives an ID twice, even after the
    /// job was pruned.
    ///
    /// Storage: a job's row is updated several times in its life (claimed, renewed by every
    /// heartbeat, ended) and deleted when pruned. `fillfactor = 70` leaves 30 % of each page
    /// free, so that a new version of a row fits on its own page: a heartbeat, which sets only
    /// `lease_until` (no index holds it: the reaper finds expired leases through the small
    /// index of running jobs), is a HOT update that writes no index entry; state changes, which
    /// do touch indexed columns, still stay on the page. The autovacuum thresholds are lowered
    /// from 20 % of the table to 2 %, without a cost delay: the table's live part (waiting,
    /// available, running jobs) is small next to its churn, and dead versions left for long make
    /// every claim's index scan step over them.
    static let v1 = [
        """
        CREATE TABLE sequencer.jobs (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            kind TEXT NOT NULL,
            input BYTEA NOT NULL,
            state INTEGER NOT NULL,
            priority INTEGER NOT NULL,
            lane TEXT,
            key TEXT,
            pending_needs INTEGER NOT NULL DEFAULT 0,
            run_at BIGINT NOT NULL,
            attempt INTEGER NOT NULL DEFAULT 0,
            crashes INTEGER NOT NULL DEFAULT 0,
            retry TEXT,
            timeout_ms BIGINT,
            owner TEXT,
            lease_until BIGINT,
            cancel_requested BOOLEAN NOT NULL DEFAULT false,
            output BYTEA,
            error_code TEXT,
            error TEXT,
            cause BIGINT,
            enqueued_at BIGINT NOT NULL,
            started_at BIGINT,
            ended_at BIGINT
        ) WITH (
            fillfactor = 70,
            autovacuum_vacuum_scale_factor = 0.02,
            autovacuum_vacuum_insert_scale_factor = 0.02,
            autovacuum_analyze_scale_factor = 0.02,
            autovacuum_vacuum_cost_delay = 0
        )
        """,
        // Partial indexes cover only the rows each query reads: available jobs in claim order,
        // and by run time; running jobs by owner (heartbeats, and the reaper's scan); live jobs
        // by lane (a lane's slots); live keys (unique: two live jobs never share one); ended
        // jobs by time (pruning).
        "CREATE INDEX jobs_available ON sequencer.jobs (priority DESC, id) WHERE state = 1",
        "CREATE INDEX jobs_run_at ON sequencer.jobs (run_at) WHERE state = 1",
        "CREATE INDEX jobs_running ON sequencer.jobs (owner) WHERE state = 2",
        "CREATE INDEX jobs_lane ON sequencer.jobs (lane) WHERE lane IS NOT NULL AND state <= 2",
        "CREATE UNIQUE INDEX jobs_live_key ON sequencer.jobs (key) WHERE key IS NOT NULL AND state <= 2",
        "CREATE INDEX jobs_ended ON sequencer.jobs (ended_at) WHERE state >= 3",
        """
        CREATE TABLE sequencer.needs (
            need BIGINT NOT NULL,
            job BIGINT NOT NULL,
            PRIMARY KEY (need, job)
        ) WITH (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02)
        """,
        "CREATE TABLE sequencer.lanes (name TEXT PRIMARY KEY, width INTEGER NOT NULL)",
    ]

    /// Runs of a workflow kept in the queue (``QueueRun``), as in the SQLite store's version 2:
    /// `run_jobs` names the jobs of a run (ordinary jobs, which pruning leaves to
    /// `deleteRuns`), `attempts` is the log its workers write, one row per attempt, late ones
    /// included. An attempt's output (up to 8 MiB) is stored out of line by PostgreSQL (TOAST),
    /// so the log's rows stay small to scan.
    static let v2 = [
        """
        CREATE TABLE sequencer.runs (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            workflow TEXT NOT NULL,
            origin TEXT NOT NULL,
            info TEXT,
            created_at BIGINT NOT NULL,
            cancelled_at BIGINT
        )
        """,
        "CREATE INDEX runs_workflow ON sequencer.runs (workflow, id)",
        """
        CREATE TABLE sequencer.run_jobs (
            run BIGINT NOT NULL,
            name TEXT NOT NULL,
            job BIGINT NOT NULL UNIQUE,
            PRIMARY KEY (run, name)
        )
        """,
        """
        CREATE TABLE sequencer.attempts (
            job BIGINT NOT NULL,
            attempt INTEGER NOT NULL,
            worker TEXT NOT NULL,
            started_at BIGINT NOT NULL,
            ended_at BIGINT NOT NULL,
            outcome TEXT NOT NULL,
            exit_code INTEGER,
            signal INTEGER,
            summary TEXT NOT NULL,
            output BYTEA,
            PRIMARY KEY (job, attempt, worker)
        )
        """,
    ]

    /// The fingerprints of workflow jobs' last successes, shared by the workers' up-to-date
    /// checks, as in the SQLite store's version 3 (their parts and outputs JSON then; see
    /// ``v5``).
    static let v3 = [
        """
        CREATE TABLE sequencer.fingerprints (
            workflow TEXT NOT NULL,
            job TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            parts JSONB NOT NULL,
            outputs JSONB NOT NULL,
            recorded_at BIGINT NOT NULL,
            PRIMARY KEY (workflow, job)
        )
        """,
    ]

    /// Claims ahead, as in the SQLite store's version 4: `ahead`, the running job was claimed
    /// beyond its worker's free slots (its worker's end is no crash of its own); `lost_ahead`,
    /// such a claim was taken back once, and the job is claimed only into a slot from then on.
    /// Constant defaults: PostgreSQL adds both without rewriting the table.
    static let v4 = [
        "ALTER TABLE sequencer.jobs ADD COLUMN ahead BOOLEAN NOT NULL DEFAULT false, ADD COLUMN lost_ahead BOOLEAN NOT NULL DEFAULT false",
    ]

    /// One encoding of fingerprints, as in the SQLite store's version 5 and the journal: a
    /// fingerprint's parts and outputs become text of one `KEY<TAB>VALUE` line per entry,
    /// sorted by key (``SequencerHistory/Fingerprint``), converted from the JSON objects of ``v3``.
    static let v5 = [
        "ALTER TABLE sequencer.fingerprints ADD COLUMN parts_text TEXT, ADD COLUMN outputs_text TEXT",
        """
        UPDATE sequencer.fingerprints SET
            parts_text = coalesce((SELECT string_agg(key || E'\\t' || value, E'\\n' ORDER BY key COLLATE "C") FROM jsonb_each_text(parts)), ''),
            outputs_text = coalesce((SELECT string_agg(key || E'\\t' || value, E'\\n' ORDER BY key COLLATE "C") FROM jsonb_each_text(outputs)), '')
        """,
        "ALTER TABLE sequencer.fingerprints DROP COLUMN parts, DROP COLUMN outputs",
        "ALTER TABLE sequencer.fingerprints RENAME COLUMN parts_text TO parts",
        "ALTER TABLE sequencer.fingerprints RENAME COLUMN outputs_text TO outputs",
        "ALTER TABLE sequencer.fingerprints ALTER COLUMN parts SET NOT NULL, ALTER COLUMN outputs SET NOT NULL",
    ]

    /// One encoding of retry policies, as in the SQLite store: `retry` holds the five numbers
    /// (``SequencerQueue/StoredRetry``), converted from version 1's JSON objects. A value that
    /// is not such an object (written by hand) is left, and reads as no retry, as before.
    static let v6 = [
        """
        UPDATE sequencer.jobs SET retry = concat_ws(' ', retry::jsonb->>'maxAttempts', retry::jsonb->>'initialMilliseconds',
            retry::jsonb->>'multiplier', retry::jsonb->>'maximumMilliseconds', retry::jsonb->>'jitter')
        WHERE retry IS NOT NULL AND retry LIKE '{%' AND retry::jsonb ?& array['maxAttempts', 'initialMilliseconds', 'multiplier', 'maximumMilliseconds', 'jitter']
        """,
    ]

    /// What operating a queue reads, as in the SQLite store's version 7:
    /// - `workers`: each worker's last beat (``SequencerQueue/WorkerBeat``), renewed with its
    ///   heartbeat and deleted when it stops;
    /// - `gauge_reader`: one row, the process that reads the gauges until `held_until`;
    /// - `available_since`: when a waiting job's last need ended (the wait in the queue is
    ///   measured from then; `run_at` is left alone, so that no other process's clock decides
    ///   when it may be claimed);
    /// - `trace_context`: the trace context of the job's enqueueing (W3C `traceparent`), which
    ///   its attempts' spans continue;
    /// - `jobs_waiting`: the waiting jobs, which the gauges count (the other live states have
    ///   their indexes); a job enqueued with no needs never enters it.
    static let v7 = [
        """
        CREATE TABLE sequencer.workers (
            owner TEXT PRIMARY KEY,
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started_at BIGINT NOT NULL,
            beat_at BIGINT NOT NULL,
            holding INTEGER NOT NULL,
            alive_until BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE sequencer.gauge_reader (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            reader TEXT NOT NULL,
            held_until BIGINT NOT NULL
        )
        """,
        "INSERT INTO sequencer.gauge_reader (reader, held_until) VALUES ('', 0)",
        "ALTER TABLE sequencer.jobs ADD COLUMN available_since BIGINT, ADD COLUMN trace_context TEXT",
        "CREATE INDEX jobs_waiting ON sequencer.jobs (id) WHERE state = 0",
    ]

    /// What the queue page shows and records, as in the SQLite store's version 8: the kinds
    /// each worker runs (one a line), which the page offers to enqueue; and every action an
    /// operator took from it.
    static let v8 = [
        "ALTER TABLE sequencer.workers ADD COLUMN kinds TEXT NOT NULL DEFAULT ''",
        """
        CREATE TABLE sequencer.actions (
            id BIGSERIAL PRIMARY KEY,
            at BIGINT NOT NULL,
            action TEXT NOT NULL,
            job BIGINT,
            who TEXT NOT NULL,
            address TEXT NOT NULL,
            result TEXT NOT NULL
        )
        """,
    ]
}
