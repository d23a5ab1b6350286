#!/usr/bin/env python3
"""The peers of `sequencer-bench --durable`, side by side on this machine.

    python3 Scripts/bench-durable-peer.py [--jobs 100000] [--workers CORES]

Creates a virtual environment under /tmp (once), installs huey and litequeue into it with pip,
and measures, on a temporary SQLite file:

- huey (`huey.SqliteHuey`, WAL): N no-op tasks enqueued (one transaction each: huey has no
  batch enqueue), then drained by one consumer process (`huey_consumer -k thread -w CORES`);
  with huey's default (`fsync=None`: SQLite's default, synchronous=FULL) and with
  `fsync=False` (synchronous=OFF, huey's fastest; it has no NORMAL).
- litequeue (WAL, synchronous=NORMAL): N messages put, then CORES threads of this process, each
  with its own connection, pop and mark done until it is empty. A message queue, not a job
  runner: no consumer process.

Two rows use at most --small-jobs jobs (default 10000), said in the row: huey's default syncs
to disk on every commit (a few ms here), and litequeue's drain slows down as its table grows
(at 100,000 it had not finished after 6 minutes).

The DAG is not measured: huey's pipelines (`task.s().then(...)`) are chains, each task
followed by one next task; there is no way to make a task wait for several others (no
chord or group join), so the benchmark's graph, where a job needs up to three others, cannot be
expressed without writing the dependency bookkeeping by hand. litequeue has no dependencies.

Prints jobs/s. Nothing is committed: the venv lives in /tmp.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

VENV = "/tmp/sequencer-bench-peer-venv"
PACKAGES = ["huey==3.5.4", "litequeue==0.9"]


def ensure_venv():
    """Re-runs this script inside the venv, creating it first when needed."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        print(f"creating {VENV} and installing {', '.join(PACKAGES)}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", *PACKAGES], check=True)
    os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])


TASKS = """
from huey import SqliteHuey
huey = SqliteHuey(filename={filename!r}, fsync={fsync!r}, results=True)

@huey.task()
def noop(n):
    return n
"""


def huey_flat(jobs, workers, fsync):
    """Enqueue then drain N no-op tasks; returns (enqueue seconds, drain seconds)."""
    with tempfile.TemporaryDirectory(prefix="sequencer-peer-") as directory:
        with open(os.path.join(directory, "peer_tasks.py"), "w") as module:
            module.write(TASKS.format(filename=os.path.join(directory, "huey.db"), fsync=fsync))
        sys.path.insert(0, directory)
        try:
            import peer_tasks
            start = time.perf_counter()
            for n in range(jobs):
                peer_tasks.noop(n)
            enqueued = time.perf_counter() - start
            storage = peer_tasks.huey.storage
            assert storage.queue_size() == jobs, storage.queue_size()
            consumer = os.path.join(VENV, "bin", "huey_consumer")
            start = time.perf_counter()
            process = subprocess.Popen(
                [consumer, "peer_tasks.huey", "-k", "thread", "-w", str(workers), "-q", "-d", "0.001"],
                cwd=directory, env={**os.environ, "PYTHONPATH": directory},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # Every task ran once its result is stored.
            while storage.result_store_size() < jobs:
                if process.poll() is not None:
                    raise RuntimeError(f"huey_consumer exited with {process.returncode}")
                time.sleep(0.01)
            drained = time.perf_counter() - start
            process.terminate()
            process.wait()
            return enqueued, drained
        finally:
            sys.path.remove(directory)
            sys.modules.pop("peer_tasks", None)


def litequeue_flat(jobs, workers):
    from litequeue import LiteQueue
    with tempfile.TemporaryDirectory(prefix="sequencer-peer-") as directory:
        queue = LiteQueue(os.path.join(directory, "litequeue.db"))
        start = time.perf_counter()
        for n in range(jobs):
            queue.put(str(n))
        enqueued = time.perf_counter() - start
        done = [0] * workers

        def drain(index):
            # One connection per thread: litequeue's transactions are per connection.
            own = LiteQueue(os.path.join(directory, "litequeue.db"), timeout=60)
            while (message := own.pop()) is not None:
                own.done(message.message_id)
                done[index] += 1
            own.close()

        start = time.perf_counter()
        threads = [threading.Thread(target=drain, args=(i,)) for i in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        drained = time.perf_counter() - start
        if sum(done) != jobs:
            raise RuntimeError(f"litequeue: {sum(done)} of {jobs} done")
        return enqueued, drained


def row(name, jobs, enqueued, drained):
    print(f"{name:<44}{jobs / enqueued:>16.0f}{jobs / drained:>14.0f}{jobs / (enqueued + drained):>14.0f}")


def main():
    ensure_venv()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--small-jobs", type=int, default=10_000, help="job count of the slow rows (huey FULL, litequeue)")
    args = parser.parse_args()
    print(f"Durable queue peers: SQLite (WAL) on a temporary file, N = {args.jobs}, {args.workers} workers, "
          f"Python {sys.version.split()[0]}")
    print(textwrap.dedent("""\
        enqueue: one transaction per job; drain: from the consumer starting to every result stored (huey),
        or to the queue empty (litequeue)
        """))
    print(f"{'peer, flat':<44}{'enqueue jobs/s':>16}{'drain jobs/s':>14}{'total jobs/s':>14}")
    small = min(args.jobs, args.small_jobs)
    row(f"huey 3.5.4, default (synchronous=FULL), N={small}", small, *huey_flat(small, args.workers, None))
    row("huey 3.5.4, fsync=False (synchronous=OFF)", args.jobs, *huey_flat(args.jobs, args.workers, False))
    row(f"litequeue 0.9 (synchronous=NORMAL), N={small}", small, *litequeue_flat(small, args.workers))
    print("dag: not measured (huey's pipelines are chains: no task can wait for several others)")


if __name__ == "__main__":
    main()
