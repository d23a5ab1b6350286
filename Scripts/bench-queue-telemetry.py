#!/usr/bin/env python3
"""The cost of a durable queue's metrics and traces on the PostgreSQL burn-down, in one sitting.

    swift build -c release --product queue-peer
    python3 Scripts/bench-queue-telemetry.py [--peer .build/release/queue-peer] [--rounds 5]
        [--jobs 50000] [--workers 4] [--modes none,prometheus,otel] [--json FILE]

Each round runs Scripts/bench-postgres-peers.py's burn-down of Sequencer (`queue-peer`, no
peers) once in each mode, in turn, on one throwaway PostgreSQL server:

- none: no backend bootstrapped (swift-metrics' and swift-distributed-tracing's no-op ones);
- prometheus: metrics to a swift-prometheus registry (`QUEUE_PEER_METRICS=prometheus`, as
  `sequencer worker --metrics` does), unscraped;
- otel: metrics and spans through swift-otel (`QUEUE_PEER_METRICS=otel`), exported over
  OTLP/HTTP to a sink on 127.0.0.1 (`Scripts/otlp-receiver.py --discard`), with swift-otel's
  defaults (every span recorded, batched every 5 s; metrics every 60 s) and the exports flushed
  at the end;
- with --modes, also otel-metrics and otel-traces (one of the two), and otel-sampled (one trace
  in a hundred recorded: OTEL_TRACES_SAMPLER=parentbased_traceidratio, ARG 0.01).

It prints, for each mode, the median of the rounds' jobs a second and of the workers' CPU time a
job, and each as a ratio to none's: the cost is what the ratio says above 1.00 (below, for jobs a
second). On a shared machine both move by tens of percent from one run to the next: rounds in
turn, and their medians, are what can be compared.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ("none", "prometheus", "otel", "otel-metrics", "otel-traces", "otel-sampled")
# What each mode sets, beyond the OTLP endpoint.
SETTINGS = {
    "none": {},
    "prometheus": {"QUEUE_PEER_METRICS": "prometheus"},
    "otel": {"QUEUE_PEER_METRICS": "otel"},
    "otel-metrics": {"QUEUE_PEER_METRICS": "otel-metrics"},
    "otel-traces": {"QUEUE_PEER_METRICS": "otel-traces"},
    # One trace in a hundred recorded, decided at the enqueue and followed by every attempt.
    "otel-sampled": {"QUEUE_PEER_METRICS": "otel", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
                     "OTEL_TRACES_SAMPLER_ARG": "0.01"},
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", default=os.path.join(REPOSITORY, ".build", "release", "queue-peer"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--modes", default="none,prometheus,otel",
                        help=f"which, in this order in the first round (default none,prometheus,otel; of {','.join(MODES)})")
    parser.add_argument("--json", help="also write every round's figures to this file")
    args = parser.parse_args()
    modes = tuple(args.modes.split(","))
    if "none" not in modes or not set(modes) <= set(MODES):
        sys.exit(f"--modes: none and any of {', '.join(MODES)}")
    if not os.access(args.peer, os.X_OK):
        sys.exit(f"no {args.peer}: swift build -c release --product queue-peer")

    postgres = os.path.join(REPOSITORY, "Scripts", "postgres.sh")
    started = subprocess.run([postgres, "start"], check=True, capture_output=True, text=True).stdout
    environment = dict(line.removeprefix("export ").split("=", 1) for line in started.split("\n") if "=" in line)
    url = environment["SEQUENCER_TEST_POSTGRES_URL"].strip("'\"")
    sink = subprocess.Popen([sys.executable, os.path.join(REPOSITORY, "Scripts", "otlp-receiver.py"), "--discard"],
                            stdout=subprocess.PIPE, text=True)
    endpoint = sink.stdout.readline().split()[-1]
    figures = {mode: [] for mode in modes}
    try:
        for round in range(args.rounds):
            # Each round in another order, so that no mode always follows the same one.
            for mode in modes[round % len(modes):] + modes[:round % len(modes)]:
                figures[mode].append(burn_down(args, url, endpoint, mode))
                row = figures[mode][-1]
                print(f"round {round + 1} {mode:<11} {row['jobs_per_s']:>7} jobs/s  "
                      f"{row['workers_cpu_us_per_job']:>6.1f} µs CPU/job", file=sys.stderr, flush=True)
    finally:
        sink.terminate()
        subprocess.run([postgres, "stop"], env={**os.environ, **environment}, check=False)

    base_rate = statistics.median(row["jobs_per_s"] for row in figures["none"])
    base_cpu = statistics.median(row["workers_cpu_us_per_job"] for row in figures["none"])
    print(f"\nburn-down of {args.jobs} jobs by {args.workers} workers, median of {args.rounds} rounds")
    print(f"{'mode':<12}{'jobs/s':>9}{'ratio':>8}{'CPU µs/job':>12}{'ratio':>8}")
    for mode in modes:
        rate = statistics.median(row["jobs_per_s"] for row in figures[mode])
        cpu = statistics.median(row["workers_cpu_us_per_job"] for row in figures[mode])
        print(f"{mode:<12}{rate:>9.0f}{rate / base_rate:>8.3f}{cpu:>12.1f}{cpu / base_cpu:>8.3f}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump(figures, file, indent=2)


def burn_down(args, url, endpoint, mode):
    environment = {key: value for key, value in os.environ.items()
                   if key != "QUEUE_PEER_METRICS" and not key.startswith("OTEL_")}
    environment.update({"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, **SETTINGS[mode]})
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(
            [sys.executable, os.path.join(REPOSITORY, "Scripts", "bench-postgres-peers.py"), "--url", url, "--peers", "",
             "--sequencer-command", args.peer, "--jobs", str(args.jobs), "--workers", str(args.workers),
             "--rate", "20", "--seconds", "1", "--json", out.name],
            env=environment, check=True, stdout=subprocess.DEVNULL)
        rows = json.load(open(out.name))["rows"]
    row = next(row for row in rows if row["measurement"] == "burn-down")
    return {"jobs_per_s": row["jobs_per_s"], "drain_seconds": row["drain_seconds"],
            "workers_cpu_us_per_job": row["workers_cpu_seconds"] * 1e6 / args.jobs}


if __name__ == "__main__":
    main()
