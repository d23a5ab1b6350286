#!/usr/bin/env python3
"""The PostgreSQL job-queue peers of Sequencer's durable queue, side by side on this machine.

    python3 Scripts/bench-postgres-peers.py [--url postgres://USER:PASSWORD@HOST:PORT/DB]
        [--jobs 100000] [--workers 4] [--rate 200] [--seconds 10]
        [--peers pgqueuer,procrastinate] [--procrastinate-concurrency 1]
        [--sequencer-command "COMMAND ..." [--dag]] [--json FILE]

Creates a virtual environment under /tmp (once), installs PgQueuer and Procrastinate into it with
pip (pinned below), and measures them against one real PostgreSQL. Without --url it starts a
throwaway server with Scripts/postgres.sh (Debian's binaries, a temporary data directory, stopped
at the end, also on an error or Ctrl-C); with --url, the user must be allowed to CREATE DATABASE.
It prints the server's version, `synchronous_commit` (the server's default, `on`, is what this
measures: a commit waits for its WAL flush) and `fsync`. Every measurement gets a fresh database
(CREATE DATABASE, dropped after it), so the peers do not disturb each other.

What is measured, for each peer (and for Sequencer with --sequencer-command):

1. burn-down: N no-op jobs (--jobs, default 100,000) enqueued first, in batches of 1,000 with
   the peer's batch enqueue; then the database is vacuumed and analyzed (as autovacuum would do
   after the inserts) and a CHECKPOINT is taken, so that every system pays the full-page images
   of its first touch of each page alike, whether or not a timed checkpoint fell in its run. Then
   W worker processes (--workers, default 4) are started, and, once all of them have connected
   and said `ready`, told to go at once: jobs/s is N over the time from that go to the queue
   empty. Empty: this process runs the peer's "unfinished jobs" query (below) every 50 ms on
   its own connection until it returns 0. The enqueue rate is printed as well; it includes the
   start of the enqueueing process (about half a second for Python).
2. cost, during the burn-down (read before the workers start and after they have exited):
   commits per job and per second from `pg_stat_database.xact_commit` of the peer's database
   (every transaction, read-only ones too; read from another database, so the reading does not
   count; the 50 ms probes, one commit each, are subtracted), and WAL bytes per job from `pg_stat_wal.wal_bytes` (the whole server:
   nothing else runs on it meanwhile; autovacuum of the peer's tables counts, it is the peer's
   churn). Backends send their statistics when they go idle or exit, so "after" is read once the
   workers and the probe have disconnected and the figure has stopped moving. And CPU seconds from
   the go to the workers' exit, of the server (its processes in /proc, those that ended included;
   "n/a" when it runs on another machine) and of the workers: which side limits the rate, next to
   the cores times the drain's seconds.
3. latency, enqueue to start, in steady state: W workers running; one producer process enqueues
   `stamp` jobs one at a time (one transaction each) at a fixed rate (--rate 200/s for
   --seconds 10); each job's input is the wall-clock time taken just before its enqueue call, and
   its body records `time.time()` minus that (same machine, same clock) in its worker's memory;
   the workers print them when stopped. So the figure includes the enqueue's own commit (a job
   cannot be seen before it). The workers get 1 s after their go before the first job. p50, p99
   and the maximum are over every stamped job. The producer's achieved rate is printed: with one
   connection and a commit (a WAL flush) per job it may fall short of --rate on a loaded
   machine; it then enqueues late rather than skipping, one job at a time all the same.

What each peer does per job (read from their SQL in the pinned releases):

- PgQueuer 1.6.0 (asyncpg; the worker is `PgQueuer.run()` with the defaults of `pgq run`:
  `batch_size=10`, no `max_concurrent_tasks`, so a worker keeps claiming batches of 10 while any
  job is queued and runs them all as asyncio tasks; `dequeue_timeout` 30 s as the fallback poll).
  Enqueue: `Queries.enqueue([entrypoint...], [payload...], [priority...])`, one statement per
  batch that inserts the jobs and one `queued` row each into `pgqueuer_log`. Claim: one statement
  per batch of up to 10: rows `FOR UPDATE SKIP LOCKED` (queued ones, and picked ones whose
  heartbeat is stale) updated to `picked`, plus a `picked` log row each. End: the results are
  buffered (up to 10, or 0.1 s) and written by one statement that DELETEs the jobs and inserts a
  `successful` log row each. So 0.2 commits per job do the work: a job row inserted, updated and
  deleted, and three log rows inserted. But a statement-level trigger on the queue table NOTIFYs
  the channel after every insert, update and delete statement, so each claim and each end wakes
  every listening worker, which tries to claim; when a claim comes back empty the worker runs one
  to three count queries before it waits. Counted with `log_statement=all` at 2,000 jobs: 200
  end statements, 327 claims (about 127 of them empty) and about 220 count queries, so about 0.55
  commits per job. The log is folded into `pgqueuer_statistics` every 30 s; jobs whose heartbeat
  is older than 30 s are re-picked (no-op jobs never get there).
- Procrastinate 3.10.0 (psycopg 3 and psycopg_pool, whose default pool has 4 connections and
  checks each one it lends with an empty round trip; the worker is `App.run_worker_async` with
  `concurrency` --procrastinate-concurrency, default 1, which is Procrastinate's default:
  one job at a time per worker; with more, a worker still fetches one job per statement, in turn,
  and runs up to that many at once; `delete_jobs` is left at its default, "never", so finished
  jobs stay in the table with status `succeeded`). Enqueue: `Task.batch_defer_async(*kwargs)`,
  one `procrastinate_defer_jobs_v1(array)` call per batch, an INSERT whose row triggers insert a
  `deferred` row into `procrastinate_events` and send two NOTIFYs (the queue's channel and the
  any-queue channel) per job. Claim: one `procrastinate_fetch_job_v2` call per job (the oldest
  highest-priority `todo` job whose lock is free, `FOR UPDATE SKIP LOCKED`, updated to `doing`;
  a trigger inserts a `started` event). End: one `procrastinate_finish_job_v1` call per job
  (updated to `succeeded`, or deleted with `delete_jobs`; a trigger inserts a `succeeded`
  event). Each call runs in BEGIN ... COMMIT on a connection the pool first checks with an empty
  query, which PostgreSQL counts as a transaction too: 8 round trips and 4 commits per job
  (counted with `log_statement=all`), the job row inserted and updated twice, and three event
  rows. Workers also send a heartbeat every 10 s and poll for aborted jobs every 5 s.

Settings that would change the figures, left at their defaults here: PgQueuer's `batch_size`
(claims and ends per statement) and its `durability` (`balanced` makes the log tables UNLOGGED,
`volatile` the queue too: less WAL, lost on a crash); Procrastinate's `concurrency` (a list of
values gives a row each), `delete_jobs="successful"` (deletes the row at the end instead of
keeping it) and the pool's size and check.

The "unfinished jobs" queries: PgQueuer, any row left in `pgqueuer` (a job's row is deleted in
the same statement that records its end); Procrastinate, any job `todo` or `doing`.

Sequencer's row (--sequencer-command, left for the Swift side to fill in). COMMAND is split like
a shell line; the bench appends one of these and measures it exactly as the peers, which this
script itself serves through the same five calls (see `peer_main`):

    COMMAND install URL          create the schema in the (empty) database at URL; exit 0
    COMMAND pending-sql          print one SQL query that returns the number of unfinished jobs
                                 (0 once every enqueued job has ended); cheap: it runs every 50 ms
    COMMAND enqueue URL N        enqueue N jobs of kind `noop` (no input, a body that returns at
                                 once) with the batch enqueue, in batches of 1,000; exit 0
    COMMAND produce URL RATE S   enqueue RATE*S jobs of kind `stamp`, one `enqueue` call each, at
                                 RATE per second (the i-th at start + i/RATE, late rather than
                                 skipped); the input of each is the wall-clock time in seconds
                                 since 1970 (a Double) read just before its enqueue call; print
                                 `produced COUNT SECONDS` at the end
    COMMAND enqueue-dag URL N    (with --dag) enqueue the DESIGN.md graph of N `noop` jobs (each
                                 needing up to three earlier ones; `sequencer-bench`'s RandomDAG,
                                 seed 42) in batches of 1,000; its row is "Sequencer, DAG", and
                                 the flat row is the same jobs with the needs left out
    COMMAND worker URL           connect, then print `ready` (one line, flushed) and wait for one
                                 line on standard input before claiming anything; run both kinds
                                 with the worker's normal concurrency until SIGTERM, then stop
                                 gracefully (every claimed job ended and recorded), print
                                 `latencies [x, ...]` (JSON: for each `stamp` job it ran, the
                                 wall-clock time at the start of its body minus its input, in
                                 seconds) and exit 0

for example `--sequencer-command .build/release/queue-peer`. Its row is
named "Sequencer".

Output: a table per measurement, one row per system, and with --json FILE the same figures.
Exit status 1 with a one-line error for a wrong URL, a server that cannot be started, pip that
cannot install, or a worker that fails. Nothing is committed: the venv lives in /tmp.
"""
import argparse
import asyncio
import json
import os
import resource
import shlex
import signal
import subprocess
import sys
import time
import urllib.parse

VENV = "/tmp/sequencer-bench-pg-peers-venv"
PACKAGES = ["pgqueuer==1.6.0", "procrastinate==3.10.0", "psycopg[binary]==3.3.9",
            "psycopg-pool==3.3.3", "asyncpg==0.32.0"]
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 1_000
PROBE_INTERVAL = 0.05


class BenchError(Exception):
    """A problem to report in one line, exit status 1."""


# --- The peers' side: `peer NAME[/SETTING] CALL ARGS...`, run by the bench in the venv. ---------

async def serve(start, stop, latencies):
    """The worker protocol: `ready`, wait for a line, run until SIGTERM, print the latencies."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)
    print("ready", flush=True)
    if not await loop.run_in_executor(None, sys.stdin.readline) or stopping.is_set():
        print("latencies []", flush=True)  # stopped before it started
        return
    task = asyncio.create_task(start())
    stopped = asyncio.create_task(stopping.wait())
    await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
        raise RuntimeError("the worker stopped before it was told to")
    stop(task)
    try:
        await task
    except asyncio.CancelledError:
        pass
    print("latencies " + json.dumps(latencies), flush=True)


async def produce(enqueue_one, rate, seconds):
    """Calls `enqueue_one(now)` rate*seconds times at a fixed rate; late rather than skipped."""
    count = int(rate * seconds)
    start = time.perf_counter()
    for index in range(count):
        delay = start + index / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        await enqueue_one(time.time())
    print(f"produced {count} {time.perf_counter() - start:.3f}", flush=True)


async def pgqueuer_call(call, setting, args):
    import asyncpg
    from pgqueuer import AsyncpgDriver, PgQueuer, Queries
    if call == "pending-sql":
        print("SELECT count(*) FROM (SELECT 1 FROM pgqueuer LIMIT 1) AS left_over")
        return
    connection = await asyncpg.connect(args[0])
    queries = Queries(AsyncpgDriver(connection))
    if call == "install":
        await queries.install()
    elif call == "enqueue":
        jobs = int(args[1])
        for first in range(0, jobs, BATCH):
            count = min(BATCH, jobs - first)
            await queries.enqueue(["noop"] * count, [None] * count, [0] * count)
    elif call == "produce":
        await produce(lambda now: queries.enqueue("stamp", repr(now).encode()), float(args[1]), float(args[2]))
    elif call == "worker":
        pgq = PgQueuer(queries.driver, queries=queries)
        latencies = []

        @pgq.entrypoint("noop")
        async def noop(job):
            pass

        @pgq.entrypoint("stamp")
        async def stamp(job):
            latencies.append(time.time() - float(job.payload))

        await serve(pgq.run, lambda task: pgq.shutdown.set(), latencies)
    await connection.close()


async def procrastinate_call(call, setting, args):
    import logging
    import procrastinate
    # It warns that the app is made in __main__, for workers that import tasks by path: these do not.
    logging.getLogger("procrastinate.blueprints").setLevel(logging.ERROR)
    if call == "pending-sql":
        print("SELECT count(*) FROM (SELECT 1 FROM procrastinate_jobs WHERE status IN ('todo', 'doing') LIMIT 1)"
              " AS left_over")
        return
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=args[0]))
    latencies = []

    @app.task(name="noop")
    async def noop():
        pass

    @app.task(name="stamp")
    async def stamp(at):
        latencies.append(time.time() - at)

    async with app.open_async():
        if call == "install":
            await app.schema_manager.apply_schema_async()
        elif call == "enqueue":
            jobs = int(args[1])
            for first in range(0, jobs, BATCH):
                await noop.batch_defer_async(*({} for _ in range(min(BATCH, jobs - first))))
        elif call == "produce":
            await produce(lambda now: stamp.defer_async(at=now), float(args[1]), float(args[2]))
        elif call == "worker":
            concurrency = int(setting or 1)
            await serve(lambda: app.run_worker_async(concurrency=concurrency, install_signal_handlers=False),
                        lambda task: task.cancel(), latencies)


PEER_CALLS = {"pgqueuer": pgqueuer_call, "procrastinate": procrastinate_call}


def peer_main(argv):
    """`peer NAME[/SETTING] CALL ARGS...`: one call of the protocol in the docstring."""
    name, _, setting = argv[0].partition("/")
    asyncio.run(PEER_CALLS[name](argv[1], setting, argv[2:]))


# --- The bench's side. -----------------------------------------------------------------------

def ensure_venv():
    """Re-runs this script inside the venv, creating it first when needed."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    stamp = os.path.join(VENV, "installed")
    try:
        with open(stamp) as file:
            installed = file.read().split()
    except OSError:
        installed = []
    if installed != PACKAGES:
        print(f"creating {VENV} and installing {', '.join(PACKAGES)}", file=sys.stderr)
        subprocess.run(["rm", "-rf", VENV], check=True)
        steps = [[sys.executable, "-m", "venv", VENV],
                 [python, "-m", "pip", "install", "-q", "--retries", "2", "--timeout", "20", *PACKAGES]]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
                subprocess.run(["rm", "-rf", VENV])
                raise BenchError(f"could not install {', '.join(PACKAGES)} into {VENV} "
                                 f"(`{' '.join(step[:4])}` failed): {lines[-1]}")
        with open(stamp, "w") as file:
            file.write("\n".join(PACKAGES) + "\n")
    os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])


def redacted(url):
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(":" + parts.password + "@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def with_database(url, database):
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(path="/" + database))


def connect(url):
    import psycopg
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as error:
        reason = " ".join(line.strip() for line in str(error).splitlines()) or type(error).__name__
        raise BenchError(f"cannot connect to {redacted(url)}: {reason}")


class Server:
    """The PostgreSQL to measure on: --url, or a throwaway one from Scripts/postgres.sh."""

    def __init__(self, url, script):
        self.url, self.script, self.directory = url, script, None

    def __enter__(self):
        if self.url:
            return self
        if not os.path.isfile(self.script):
            raise BenchError(f"{self.script} not found: give --url postgres://... of a server to use")
        # Its own session: a Ctrl-C in the terminal reaches this script, which stops the server.
        starting = subprocess.Popen(["bash", self.script, "start", "--watch", str(os.getpid())],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
        try:
            output, errors = starting.communicate()
        except BaseException:
            self.read(starting.communicate()[0])  # let it finish, to stop what it started
            self.__exit__()
            raise
        if starting.returncode != 0:
            lines = errors.strip().splitlines() or ["no output"]
            raise BenchError(f"could not start PostgreSQL with {self.script}: {lines[-1]}")
        self.read(output)
        if not self.url:
            self.__exit__()
            raise BenchError(f"{self.script} start printed no SEQUENCER_TEST_POSTGRES_URL")
        return self

    def read(self, output):
        for line in output.splitlines():
            name, _, value = line.removeprefix("export ").partition("=")
            if name == "SEQUENCER_TEST_POSTGRES_URL":
                self.url = value
            elif name == "SEQUENCER_TEST_POSTGRES_DIR":
                self.directory = value

    def __exit__(self, *exception):
        if self.directory:
            subprocess.run(["bash", self.script, "stop", self.directory], capture_output=True)


class System:
    """One measured system, reached through the five calls of the protocol in the docstring."""

    def __init__(self, name, command):
        self.name, self.command = name, command
        self.slug = "".join(c if c.isalnum() else "_" for c in name.lower())

    def spawn(self, *arguments, **options):
        try:
            return subprocess.Popen([*self.command, *arguments], stdout=subprocess.PIPE, text=True,
                                    start_new_session=True, **options)
        except OSError as error:
            raise BenchError(f"{self.name}: cannot run {self.command[0]}: {error.strerror}")

    def run(self, *arguments):
        process = self.spawn(*arguments)
        try:
            output, _ = process.communicate()
        except BaseException:
            process.kill()
            process.wait()
            raise
        if process.returncode != 0:
            raise BenchError(f"{self.name}: `{arguments[0]}` exited with {process.returncode} (its errors are above)")
        return output

    def start_workers(self, url, count):
        workers = []
        try:
            for _ in range(count):
                workers.append(self.spawn("worker", url, stdin=subprocess.PIPE))
            for index, worker in enumerate(workers):
                line = worker.stdout.readline()
                while line and line.strip() != "ready":  # what else it prints first is passed on
                    print(line, end="", file=sys.stderr)
                    line = worker.stdout.readline()
                if not line:
                    raise BenchError(f"{self.name}: worker {index + 1} did not say `ready` (its errors are above)")
        except BaseException:
            for worker in workers:
                worker.kill()
                worker.wait()
            raise
        return workers


def go(workers):
    for worker in workers:
        try:
            worker.stdin.write("go\n")
            worker.stdin.flush()
        except BrokenPipeError:
            pass  # it has exited: check_alive says so


def check_alive(system, workers):
    for index, worker in enumerate(workers):
        if worker.poll() is not None:
            raise BenchError(f"{system.name}: worker {index + 1} exited with {worker.returncode} (its errors are above)")


def stop_workers(system, workers):
    """SIGTERM, then each worker's latencies; kills what does not stop within 60 s.

    `communicate` closes standard input: a worker still waiting for its go ends there.
    """
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    latencies = []
    for index, worker in enumerate(workers):
        try:
            output, _ = worker.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
            raise BenchError(f"{system.name}: worker {index + 1} did not stop within 60 s of SIGTERM")
        if worker.returncode != 0:
            raise BenchError(f"{system.name}: worker {index + 1} exited with {worker.returncode} (its errors are above)")
        for line in output.splitlines():
            if line.startswith("latencies "):
                latencies += json.loads(line.removeprefix("latencies "))
    return latencies


def wait_until_empty(system, probe, pending_sql, workers, timeout):
    """Runs the unfinished-jobs query every 50 ms until it returns 0; returns how many it ran."""
    probes, deadline = 0, time.perf_counter() + timeout
    while True:
        time.sleep(PROBE_INTERVAL)
        probes += 1
        if probe.execute(pending_sql).fetchone()[0] == 0:
            return probes
        check_alive(system, workers)
        if time.perf_counter() > deadline:
            raise BenchError(f"{system.name}: jobs left after {timeout:.0f} s")


class FreshDatabase:
    """A database made for one measurement and dropped after it."""

    def __init__(self, admin, url, name):
        self.admin, self.name, self.url = admin, name, with_database(url, name)

    def __enter__(self):
        import psycopg
        from psycopg import sql
        try:
            self.admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name)))
            self.admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
        except psycopg.Error as error:
            raise BenchError(f"cannot create the database {self.name}: {error} (the user needs CREATEDB)")
        return self

    def __exit__(self, *exception):
        from psycopg import sql
        self.admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name)))


def settled_stats(admin, database):
    """(xact_commit of database, wal_bytes), once backends that left have sent theirs."""
    query = ("SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = %s), "
             "(SELECT wal_bytes FROM pg_stat_wal)")
    last = admin.execute(query, (database,)).fetchone()
    for _ in range(40):
        time.sleep(0.25)
        now = admin.execute(query, (database,)).fetchone()
        if now == last:
            break
        last = now
    return int(last[0]), int(last[1])


def process_stat(pid):
    """(parent pid, CPU seconds of the process and of its children that ended) from /proc."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return int(fields[1]), sum(int(field) for field in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def server_cpu_seconds(postmaster):
    """CPU time of the server's processes (those that ended included), or None if not on this machine."""
    if postmaster is None:
        return None
    try:
        total = process_stat(postmaster)[1]
    except OSError:
        return None
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            parent, seconds = process_stat(entry)
        except OSError:
            continue  # ended meanwhile
        if parent == postmaster:
            total += seconds
    return total


def local_postmaster(admin):
    """The server's main process when it runs on this machine, else None."""
    if not (admin.info.host in ("127.0.0.1", "localhost", "::1") or admin.info.host.startswith("/")):
        return None
    try:
        parent = process_stat(admin.info.backend_pid)[0]
        with open(f"/proc/{parent}/comm") as file:
            return parent if file.read().strip() == "postgres" else None
    except OSError:
        return None


class CPU:
    """CPU seconds of the server and of the workers, from `start` (the go) to `stop` (after they exited)."""

    def __init__(self, postmaster, workers):
        self.postmaster, self.workers = postmaster, workers

    @staticmethod
    def ended_children():
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def start(self):
        # What the workers' start took is taken off: their CPU so far, from /proc.
        self.workers_before = self.ended_children() + sum(process_stat(worker.pid)[1] for worker in self.workers)
        self.server_before = server_cpu_seconds(self.postmaster)

    def stop(self):
        """(server seconds or None, workers seconds)."""
        server_after = server_cpu_seconds(self.postmaster)
        server = None if self.server_before is None or server_after is None else server_after - self.server_before
        return server, self.ended_children() - self.workers_before


def burn_down(system, admin, url, jobs, workers, postmaster, dag=False):
    import psycopg
    with FreshDatabase(admin, url, f"bench_{system.slug}_burn_down") as database:
        system.run("install", database.url)
        pending_sql = system.run("pending-sql").strip()
        start = time.perf_counter()
        system.run("enqueue-dag" if dag else "enqueue", database.url, str(jobs))
        enqueue_seconds = time.perf_counter() - start
        with connect(database.url) as connection:
            if connection.execute(pending_sql).fetchone()[0] == 0:
                raise BenchError(f"{system.name}: no unfinished job after enqueueing {jobs}")
            connection.execute("VACUUM ANALYZE")
        try:
            admin.execute("CHECKPOINT")
        except psycopg.Error as error:
            raise BenchError(f"CHECKPOINT: {error}")
        commits_before, wal_before = settled_stats(admin, database.name)
        running = system.start_workers(database.url, workers)
        try:
            with connect(database.url) as probe:
                cpu = CPU(postmaster, running)
                cpu.start()
                start = time.perf_counter()
                go(running)
                probes = wait_until_empty(system, probe, pending_sql, running, timeout=3600)
                seconds = time.perf_counter() - start
        finally:
            stop_workers(system, running)
        server_cpu, workers_cpu = cpu.stop()
        commits_after, wal_after = settled_stats(admin, database.name)
    commits = commits_after - commits_before - probes
    wal = wal_after - wal_before
    return {"system": system.name + (", DAG" if dag else ""), "measurement": "burn-down", "jobs": jobs, "workers": workers,
            "enqueue_jobs_per_s": round(jobs / enqueue_seconds), "drain_seconds": round(seconds, 3),
            "jobs_per_s": round(jobs / seconds), "commits": commits, "commits_per_job": round(commits / jobs, 3),
            "commits_per_s": round(commits / seconds), "wal_bytes": wal, "wal_bytes_per_job": round(wal / jobs),
            "server_cpu_seconds": None if server_cpu is None else round(server_cpu, 2),
            "workers_cpu_seconds": round(workers_cpu, 2)}


def latency(system, admin, url, workers, rate, seconds):
    with FreshDatabase(admin, url, f"bench_{system.slug}_latency") as database:
        system.run("install", database.url)
        pending_sql = system.run("pending-sql").strip()
        running = system.start_workers(database.url, workers)
        try:
            go(running)
            time.sleep(1)  # the workers listening and idle: steady state
            check_alive(system, running)
            output = system.run("produce", database.url, str(rate), str(seconds))
            words = next((line.split() for line in output.splitlines() if line.startswith("produced ")), [])
            try:
                produced, produce_seconds = int(words[1]), float(words[2])
            except (IndexError, ValueError):
                raise BenchError(f"{system.name}: `produce` did not print `produced COUNT SECONDS`")
            with connect(database.url) as probe:
                wait_until_empty(system, probe, pending_sql, running, timeout=120)
        finally:
            latencies = stop_workers(system, running)
    if len(latencies) != produced:
        raise BenchError(f"{system.name}: {produced} stamp jobs enqueued, {len(latencies)} reported started")
    latencies.sort()

    def percentile(p):
        return round(latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000, 2)

    return {"system": system.name, "measurement": "latency", "jobs": produced, "workers": workers,
            "rate_per_s": rate, "achieved_rate_per_s": round(produced / produce_seconds),
            "p50_ms": percentile(0.50), "p99_ms": percentile(0.99), "max_ms": round(latencies[-1] * 1000, 2)}


def print_tables(rows):
    burn = [row for row in rows if row["measurement"] == "burn-down"]
    if burn:
        print(f"\n{'burn-down':<38}{'enqueue jobs/s':>15}{'drain s':>9}{'jobs/s':>9}{'commits/job':>13}"
              f"{'commits/s':>11}{'WAL B/job':>11}{'CPU s: server':>15}{'workers':>9}")
        for row in burn:
            server = "n/a" if row["server_cpu_seconds"] is None else f"{row['server_cpu_seconds']:.1f}"
            print(f"{row['system']:<38}{row['enqueue_jobs_per_s']:>15}{row['drain_seconds']:>9.2f}"
                  f"{row['jobs_per_s']:>9}{row['commits_per_job']:>13.3f}{row['commits_per_s']:>11}"
                  f"{row['wal_bytes_per_job']:>11}{server:>15}{row['workers_cpu_seconds']:>9.1f}")
    late = [row for row in rows if row["measurement"] == "latency"]
    if late:
        print(f"\n{'latency, enqueue to start':<38}{'jobs':>7}{'rate/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
        for row in late:
            print(f"{row['system']:<38}{row['jobs']:>7}{row['achieved_rate_per_s']:>8}{row['p50_ms']:>9.2f}"
                  f"{row['p99_ms']:>9.2f}{row['max_ms']:>9.2f}")


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="postgres://USER:PASSWORD@HOST:PORT/DB of a server to use "
                                      "(the user must be allowed to CREATE DATABASE); default: a throwaway one")
    parser.add_argument("--jobs", type=int, default=100_000, help="burn-down jobs (default 100000)")
    parser.add_argument("--workers", type=int, default=4, help="worker processes (default 4)")
    parser.add_argument("--rate", type=float, default=200, help="latency: jobs enqueued per second (default 200)")
    parser.add_argument("--seconds", type=float, default=10, help="latency: for how long (default 10)")
    parser.add_argument("--peers", default="pgqueuer,procrastinate", help="which peers (default both; '' for none)")
    parser.add_argument("--procrastinate-concurrency", default="1",
                        help="jobs at once per Procrastinate worker, or several (1,10: a row each); "
                             "default 1, Procrastinate's own default")
    parser.add_argument("--sequencer-command", help="measure Sequencer through this command (see the protocol above)")
    parser.add_argument("--dag", action="store_true",
                        help="also burn down Sequencer's DAG of N jobs (COMMAND enqueue-dag; peers have no DAG)")
    parser.add_argument("--postgres-script", default=os.path.join(REPOSITORY, "Scripts", "postgres.sh"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    for name in ("jobs", "workers", "rate", "seconds"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be positive")
    try:
        args.procrastinate_concurrency = [int(value) for value in args.procrastinate_concurrency.split(",")]
    except ValueError:
        parser.error(f"--procrastinate-concurrency {args.procrastinate_concurrency}: not a number or a list of them")
    if min(args.procrastinate_concurrency) <= 0:
        parser.error("--procrastinate-concurrency must be positive")
    if args.url and urllib.parse.urlsplit(args.url).scheme not in ("postgres", "postgresql"):
        parser.error(f"--url {redacted(args.url)}: not a postgres://USER:PASSWORD@HOST:PORT/DATABASE URL")
    if args.json and not os.access(os.path.dirname(os.path.abspath(args.json)), os.W_OK):
        parser.error(f"--json {args.json}: its directory is not writable")
    peers = [peer for peer in args.peers.split(",") if peer]
    for peer in peers:
        if peer not in PEER_CALLS:
            parser.error(f"--peers: unknown peer {peer!r} (known: {', '.join(PEER_CALLS)})")
    if args.dag and not args.sequencer_command:
        parser.error("--dag measures Sequencer only: give --sequencer-command")
    if not peers and not args.sequencer_command:
        parser.error("nothing to measure: no --peers and no --sequencer-command")
    args.peers = peers
    return args


def systems(args):
    from importlib.metadata import version
    me = [sys.executable, os.path.abspath(__file__), "peer"]
    found = []
    for peer in args.peers:
        if peer == "pgqueuer":
            found.append(System(f"PgQueuer {version('pgqueuer')}", [*me, "pgqueuer"]))
        else:
            found += [System(f"Procrastinate {version('procrastinate')}, concurrency {concurrency}",
                             [*me, f"procrastinate/{concurrency}"]) for concurrency in args.procrastinate_concurrency]
    if args.sequencer_command:
        found.append(System("Sequencer", shlex.split(args.sequencer_command)))
    return found


def terminated(*_):
    raise BenchError("stopped by SIGTERM")  # unwinds, so that the workers and the server are stopped


def main():
    if sys.argv[1:2] == ["peer"]:
        peer_main(sys.argv[2:])
        return
    args = parse_arguments()
    ensure_venv()
    signal.signal(signal.SIGTERM, terminated)
    with Server(args.url, args.postgres_script) as server, connect(server.url) as admin:
        settings = {name: admin.execute(f"SHOW {name}").fetchone()[0]
                    for name in ("server_version", "synchronous_commit", "fsync", "shared_buffers")}
        load = os.getloadavg()
        meta = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cores": os.cpu_count(),
                "load_average_at_start": [round(x, 2) for x in load], "python": sys.version.split()[0],
                "jobs": args.jobs, "workers": args.workers, "rate": args.rate, "seconds": args.seconds, **settings}
        print(f"PostgreSQL {settings['server_version']} at {redacted(server.url)}: synchronous_commit="
              f"{settings['synchronous_commit']}, fsync={settings['fsync']}, shared_buffers={settings['shared_buffers']}")
        print(f"{meta['date']}, {meta['cores']} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
              f"burn-down N = {args.jobs} by {args.workers} workers; latency at {args.rate:g}/s for {args.seconds:g} s")
        if settings["synchronous_commit"] != "on":
            print(f"warning: synchronous_commit is {settings['synchronous_commit']}, not on: commits do not wait for "
                  "their WAL flush", file=sys.stderr)
        rows = []
        for system in systems(args):
            print(f"{system.name}: burn-down ...", file=sys.stderr, flush=True)
            rows.append(burn_down(system, admin, server.url, args.jobs, args.workers, local_postmaster(admin)))
            if args.dag and system.name == "Sequencer":
                print(f"{system.name}: burn-down, DAG ...", file=sys.stderr, flush=True)
                rows.append(burn_down(system, admin, server.url, args.jobs, args.workers, local_postmaster(admin), dag=True))
            print(f"{system.name}: latency ...", file=sys.stderr, flush=True)
            rows.append(latency(system, admin, server.url, args.workers, args.rate, args.seconds))
    print_tables(rows)
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"meta": meta, "rows": rows}, file, indent=2)
            file.write("\n")


if __name__ == "__main__":
    try:
        main()
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as error:  # the database's own errors, in one line; anything else is a bug
        if not type(error).__module__.startswith("psycopg"):
            raise
        print(f"error: PostgreSQL: {str(error).strip().splitlines()[0]}", file=sys.stderr)
        sys.exit(1)
