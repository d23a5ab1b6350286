#!/usr/bin/env python3
"""Stress test of the shared output cache (`sequencer run --cache DIR`): many processes filling
one cache at once, and processes killed with SIGKILL while they store their outputs.

Phase 1 (--iterations, each in fresh directories with a cache of its own): K checkouts of one
workflow of 60 jobs, at different absolute paths (outputs of 100 B to 5 MB; many jobs make the
same bytes, so several processes store one blob at once), run at once against the cache. All
must succeed and store or find every result; `cache verify` must find no damage, tmp/ must be
empty, and a fresh checkout must restore every job; every output must hold the expected bytes.

Phase 2 (--kills, each in fresh directories): a run of 8 jobs writing 20 MB each is killed with
SIGKILL (process group and jobs too) after a random delay spread over a whole run's length.
`cache verify` must find no damaged blob or record and no incomplete result (files left in tmp/
are allowed: nothing serves them), and a fresh checkout must then succeed with every output,
restored or made, holding the expected bytes.

    python3 Scripts/stress-cache.py .build/debug/sequencer --iterations 2 --kills 3
    python3 Scripts/stress-cache.py .build/release/sequencer --iterations 50 --checkouts 6 --kills 100

Exit status: 0 if every check passed, 1 otherwise (what failed is printed).
"""
import argparse
import hashlib
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SHARED_SIZES = [100, 4096, 65536, 1_000_000, 2_500_000, 5_000_000,
                300, 20_000, 1_500_000, 3_000_000, 700, 4_000_000]


class Failure(Exception):
    pass


def pattern(line, size):
    """The bytes `yes LINE | head -c SIZE` writes."""
    unit = (line + "\n").encode()
    return (unit * (size // len(unit) + 1))[:size]


def filling_jobs():
    """60 jobs: name -> (run, needs, {output: expected bytes}). 48 jobs make 12 contents (4 jobs
    each), 8 make contents of their own, 4 concatenate what a job they need made."""
    jobs = {}
    for i in range(48):
        line, size = f"shared-{i % 12}", SHARED_SIZES[i % 12]
        jobs[f"gen-{i:02d}"] = (f"yes '{line}' | head -c {size} > out/gen-{i:02d}.bin && echo made gen-{i:02d}",
                                [], {f"out/gen-{i:02d}.bin": pattern(line, size)})
    for i in range(8):
        size = 1_000_000 + 500_000 * (i % 4)
        jobs[f"own-{i}"] = (f"yes 'own-{i}' | head -c {size} > out/own-{i}.bin && echo made own-{i}",
                            [], {f"out/own-{i}.bin": pattern(f"own-{i}", size)})
    for i in range(4):
        source = f"gen-{i * 4 + 3:02d}"
        expected = jobs[source][2][f"out/{source}.bin"] * 2
        jobs[f"cat-{i}"] = (f"cat ${{needs.outputs}} ${{needs.outputs}} > out/cat-{i}.bin && echo cat {i}",
                            [source], {f"out/cat-{i}.bin": expected})
    return jobs


def killing_jobs():
    return {f"big-{i}": (f"yes 'big output {i}' | head -c 20000000 > out/big-{i}.bin",
                         [], {f"out/big-{i}.bin": pattern(f"big output {i}", 20_000_000)}) for i in range(8)}


def checkout(path, jobs):
    """Writes the workflow and its input files (one per job, each different) to `path`."""
    os.makedirs(os.path.join(path, "src"))
    lines = ["version: 1", "jobs:"]
    for name, (run, needs, outputs) in jobs.items():
        with open(os.path.join(path, "src", name + ".txt"), "w") as file:
            file.write(f"the input of {name}\n")
        lines += [f"  {name}:", f"    run: {json.dumps(run)}", f"    inputs: [src/{name}.txt]",
                  f"    outputs: [{', '.join(outputs)}]"]
        if needs:
            lines.append(f"    needs: [{', '.join(needs)}]")
    with open(os.path.join(path, "sequencer.yml"), "w") as file:
        file.write("\n".join(lines) + "\n")


def describe(data):
    return "missing" if data is None else f"{len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}"


def check_outputs(path, jobs, where):
    for name, (_, _, outputs) in jobs.items():
        for output, expected in outputs.items():
            target = os.path.join(path, output)
            got = pathlib.Path(target).read_bytes() if os.path.isfile(target) else None
            if got != expected:
                raise Failure(f"{where}: job {name}: {output}: expected {describe(expected)}, got {describe(got)}")


def tail(path, lines=15):
    text = pathlib.Path(path).read_text(errors="replace") if os.path.exists(path) else "(no output)\n"
    return "".join(text.splitlines(True)[-lines:])


def descendants(pid):
    """The processes below `pid` (from /proc), children first."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    parent = int(file.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found = [pid]
    for parent in found:  # grows as it goes
        found += children.get(parent, [])
    return found[1:]


def kill_tree(process):
    below = descendants(process.pid)  # the jobs run in process groups of their own
    for target, send in [(process.pid, os.killpg)] + [(pid, os.kill) for pid in below]:
        try:
            send(target, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()


def report_hang(process, name, stderr_path, seconds):
    print(f"HANG: {name} (pid {process.pid}) did not end in {seconds} s; its last output:\n{tail(stderr_path)}", flush=True)
    subprocess.run(["ps", "-o", "pid,stat,wchan:24,args", "--ppid", str(process.pid)])
    if shutil.which("gdb"):
        subprocess.run(["gdb", "-p", str(process.pid), "-batch", "-nx", "-ex", "thread apply all bt"],
                       stdin=subprocess.DEVNULL, timeout=120)
    else:
        print("(no gdb: no stacks)")


def start(sequencer, path, cache, logs, name):
    stdout, stderr = os.path.join(logs, name + ".json"), os.path.join(logs, name + ".stderr")
    with open(stdout, "w") as out, open(stderr, "w") as err:
        process = subprocess.Popen([sequencer, "run", "-f", os.path.join(path, "sequencer.yml"), "--cache", cache,
                                    "-j", "8", "--json"], cwd=path, stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    return process, stdout, stderr


def wait_all(runs, timeout, where):
    """Waits for (name, process, stdout, stderr) runs, all started at once; returns their reports."""
    deadline, hung, reports = time.monotonic() + timeout, [], {}
    for name, process, _, stderr in runs:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            hung.append(name)
            try:
                report_hang(process, f"{where}, {name}", stderr, timeout)
            finally:
                kill_tree(process)
    if hung:
        raise Failure(f"{where}: {', '.join(hung)} hung (more than {timeout} s)")
    for name, process, stdout, stderr in runs:
        try:
            if process.returncode != 0:
                raise ValueError(f"exit status {process.returncode}")
            with open(stdout) as file:
                reports[name] = json.load(file)
        except ValueError as error:
            raise Failure(f"{where}, {name}: {error}; stderr ends:\n{tail(stderr)}")
    return reports


def verify(sequencer, cache, where, timeout):
    result = subprocess.run([sequencer, "cache", "verify", "--cache", cache, "--json"], capture_output=True,
                            text=True, timeout=timeout)
    try:
        found = json.loads(result.stdout)
    except ValueError:
        raise Failure(f"{where}: cache verify: exit {result.returncode}, no JSON; stderr:\n{result.stderr[-2000:]}")
    damage = {key: found.get(key) for key in ("damagedBlobs", "damagedRecords", "incompleteResults") if found.get(key)}
    if damage or result.returncode != 0:
        raise Failure(f"{where}: cache verify: exit {result.returncode}, {json.dumps(damage, indent=1)}\n{result.stderr[-2000:]}")
    return found


def fill(args, root, iteration, totals):
    """Phase 1: K checkouts fill one cache at once, then a fresh one restores everything."""
    jobs, cache, logs = filling_jobs(), os.path.join(root, "cache"), os.path.join(root, "logs")
    os.makedirs(logs)
    paths = [os.path.join(root, *["deeper"] * k, f"checkout-{k}") for k in range(args.checkouts + 1)]
    for path in paths:
        checkout(path, jobs)
    where = f"phase 1, iteration {iteration}"
    runs = [(f"checkout {k}",) + start(args.sequencer, paths[k], cache, logs, f"checkout-{k}") for k in range(args.checkouts)]
    reports = wait_all(runs, args.timeout, where)
    totals["runs"] += len(runs)
    totals["hits"] += sum(report["cache"]["hits"] for report in reports.values())
    for name, report in reports.items():  # every result stored, or found stored by another run
        stderr = pathlib.Path(logs, name.replace(" ", "-") + ".stderr").read_text(errors="replace")
        warnings = [line for line in stderr.splitlines(True) if "cache" in line]
        if report["cache"]["notStored"] or report["cache"]["hits"] + report["cache"]["stored"] != len(jobs):
            raise Failure(f"{where}, {name}: cache {report['cache']} with {len(jobs)} jobs:\n{''.join(warnings)}")
    for k in range(args.checkouts):
        check_outputs(paths[k], jobs, f"{where}, checkout {k}")
    verify(args.sequencer, cache, where, args.timeout)
    left = os.listdir(os.path.join(cache, "tmp"))
    if left:
        raise Failure(f"{where}: {len(left)} files left in {cache}/tmp after every run ended: {left[:5]}")
    fresh = args.checkouts
    report = wait_all([(f"checkout {fresh} (fresh)",) + start(args.sequencer, paths[fresh], cache, logs, "fresh")],
                      args.timeout, where)[f"checkout {fresh} (fresh)"]
    totals["runs"] += 1
    totals["hits"] += report["cache"]["hits"]
    not_restored = [job["name"] for job in report["jobs"] if not job.get("restoredFrom")]
    if report["cache"]["hits"] != len(jobs) or report["cache"]["misses"] != 0 or not_restored:
        raise Failure(f"{where}, fresh checkout {fresh}: cache {report['cache']}, expected {len(jobs)} hits and no "
                      f"miss; not restored: {not_restored}; stderr ends:\n{tail(os.path.join(logs, 'fresh.stderr'))}")
    check_outputs(paths[fresh], jobs, f"{where}, fresh checkout {fresh}")


def kill(args, root, iteration, delay_range, totals):
    """Phase 2: a run killed at a random moment; the cache must hold no damage, and a fresh
    checkout must end with the right bytes."""
    jobs, cache, logs = killing_jobs(), os.path.join(root, "cache"), os.path.join(root, "logs")
    os.makedirs(logs)
    where = f"phase 2, kill {iteration}"
    killed, fresh = os.path.join(root, "killed"), os.path.join(root, "a", "fresh")
    checkout(killed, jobs)
    checkout(fresh, jobs)
    delay = random.uniform(0, delay_range)
    process, _, stderr = start(args.sequencer, killed, cache, logs, "killed")
    time.sleep(delay)
    if process.poll() is None:
        totals["landed"] += 1
        kill_tree(process)
    totals["runs"] += 1
    temporaries = os.listdir(os.path.join(cache, "tmp")) if os.path.isdir(os.path.join(cache, "tmp")) else []
    totals["partial"] += bool(temporaries)
    try:  # killed before the cache was made (it has no FORMAT yet): nothing to verify
        if os.path.exists(os.path.join(cache, "FORMAT")):
            verify(args.sequencer, cache, f"{where} (after {delay:.3f} s; {len(temporaries)} files in tmp/)", args.timeout)
    except Failure as failure:
        raise Failure(f"{failure}\nthe killed run's stderr ends:\n{tail(stderr)}")
    report = wait_all([("fresh checkout",) + start(args.sequencer, fresh, cache, logs, "fresh")], args.timeout,
                      f"{where} (after {delay:.3f} s)")["fresh checkout"]
    totals["runs"] += 1
    totals["hits"] += report["cache"]["hits"]
    check_outputs(fresh, jobs, f"{where} (after {delay:.3f} s), fresh checkout "
                               f"(restored: {[job['name'] for job in report['jobs'] if job.get('restoredFrom')]})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sequencer", help="the sequencer binary")
    parser.add_argument("--iterations", type=int, default=20, help="phase 1 iterations")
    parser.add_argument("--checkouts", type=int, default=4, help="checkouts filling the cache at once")
    parser.add_argument("--kills", type=int, default=20, help="phase 2 runs killed")
    parser.add_argument("--timeout", type=float, default=120, help="seconds after which a run counts as hung")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories of a failure")
    args = parser.parse_args()
    args.sequencer = os.path.abspath(args.sequencer)
    root = None
    try:
        totals = {"runs": 0, "hits": 0}
        began = time.monotonic()
        for iteration in range(1, args.iterations + 1):
            root = tempfile.mkdtemp(prefix="sequencer-stress-cache-")
            fill(args, root, iteration, totals)
            shutil.rmtree(root)
        print(f"phase 1 (concurrent fill, {args.checkouts} checkouts of {len(filling_jobs())} jobs): "
              f"{args.iterations} iterations, {totals['runs']} runs, {totals['hits']} hits, 0 kills, "
              f"{time.monotonic() - began:.1f} s", flush=True)

        # How long a whole run takes, so that the kills are spread over all of it.
        root = tempfile.mkdtemp(prefix="sequencer-stress-cache-")
        os.makedirs(os.path.join(root, "logs"))
        checkout(os.path.join(root, "w"), killing_jobs())
        began = time.monotonic()
        process, stdout, stderr = start(args.sequencer, os.path.join(root, "w"), os.path.join(root, "cache"),
                                        os.path.join(root, "logs"), "calibration")
        wait_all([("calibration run", process, stdout, stderr)], args.timeout, "phase 2")
        whole = time.monotonic() - began
        shutil.rmtree(root)
        totals = {"runs": 0, "hits": 0, "landed": 0, "partial": 0}
        began = time.monotonic()
        for iteration in range(1, args.kills + 1):
            root = tempfile.mkdtemp(prefix="sequencer-stress-cache-")
            kill(args, root, iteration, whole * 1.1, totals)
            shutil.rmtree(root)
        print(f"phase 2 (kill -9 during upload, a whole run takes {whole:.2f} s): {args.kills} iterations, "
              f"{totals['runs']} runs, {totals['hits']} hits (outputs restored after a kill), {args.kills} kills "
              f"({totals['landed']} before the run ended, {totals['partial']} leaving a partial write in tmp/), "
              f"{time.monotonic() - began:.1f} s", flush=True)
        root = None
    except (Failure, subprocess.TimeoutExpired) as failure:
        print(f"FAIL: {failure}")
        if root and args.keep:
            print(f"(kept {root})")
        elif root:
            shutil.rmtree(root, ignore_errors=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
