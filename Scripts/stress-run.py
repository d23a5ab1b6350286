#!/usr/bin/env python3
"""Runs a workflow of thousands of `true` jobs again and again, each time in a fresh directory,
and fails loudly if a run hangs: the process's threads' stacks (gdb) and its children are printed.

The graph is the one that once hung 1 run in 15 (a child's exit lost by the pidfd poller):
LAYERS layers of WIDTH jobs, each job needing two jobs of the layer before.

    python3 Scripts/stress-run.py .build/release/sequencer --runs 500 --jobs 8
    python3 Scripts/stress-run.py .build/release/sequencer --ninja --runs 100 --jobs 32

With --ninja the same graph is a build.ninja of `touch` edges built by `sequencer ninja`, each
with a depfile naming a header of its own (deps = gcc). After each build, the deps log must be
one ninja reads whole, and a second build must have no work to do.

Exit status: 0 if every run ended with status 0 in time, 1 otherwise.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def workflow(layers, width):
    lines = ["version: 1", "jobs:"]
    for layer in range(layers):
        for job in range(width):
            lines.append(f"  l{layer:02d}-j{job:02d}:")
            lines.append('    run: "true"')
            if layer > 0:
                needs = [f"l{layer - 1:02d}-j{job:02d}", f"l{layer - 1:02d}-j{(job + 1) % width:02d}"]
                lines.append(f"    needs: [{', '.join(needs)}]")
    return "\n".join(lines) + "\n"


def manifest(layers, width):
    # Each edge also names a header of its own in a depfile (deps = gcc): the deps log then
    # gets three new path records per edge, numbered and written while edges end at once.
    lines = ["rule t", "  command = touch $out && printf '%s: h/%s.h\\n' $out $out > $out.d",
             "  deps = gcc", "  depfile = $out.d", ""]
    for layer in range(layers):
        for job in range(width):
            inputs = ""
            if layer > 0:
                inputs = f" l{layer - 1:02d}-j{job:02d} l{layer - 1:02d}-j{(job + 1) % width:02d}"
            lines.append(f"build l{layer:02d}-j{job:02d}: t{inputs}")
    return "\n".join(lines) + "\n"


def headers(directory, layers, width):
    os.mkdir(os.path.join(directory, "h"))
    for layer in range(layers):
        for job in range(width):
            open(os.path.join(directory, "h", f"l{layer:02d}-j{job:02d}.h"), "w").close()


def deps_log_problem(path, outputs):
    """Why ninja would not read the deps log whole (a path record whose id is not its place
    among the path records, a record past the end, missing outputs); None if it would."""
    with open(path, "rb") as file:
        data = file.read()
    if not data.startswith(b"# ninjadeps\n"):
        return "no deps log header"
    offset, paths, with_deps = 16, 0, set()
    while offset < len(data):
        if offset + 4 > len(data):
            return f"a record header cut at byte {offset}"
        word = int.from_bytes(data[offset:offset + 4], "little")
        size = word & 0x7FFFFFFF
        record = data[offset + 4:offset + 4 + size]
        if len(record) != size:
            return f"a record cut at byte {offset}"
        if word >> 31:
            with_deps.add(int.from_bytes(record[:4], "little", signed=True))
        else:
            number = ~int.from_bytes(record[-4:], "little") & 0xFFFFFFFF
            if number != paths:
                return f"path record {paths} at byte {offset} has id {number} (ninja: premature end of file)"
            paths += 1
        offset += 4 + size
    if len(with_deps) != outputs:
        return f"deps for {len(with_deps)} outputs, not {outputs}"
    return None


def report_hang(process, log_path, seconds):
    print(f"HANG: the run did not end in {seconds} s; its last output:")
    with open(log_path, errors="replace") as log:
        print("".join(log.readlines()[-5:]))
    subprocess.run(["ps", "-o", "pid,stat,wchan:24,args", "--ppid", str(process.pid)])
    if shutil.which("gdb"):
        subprocess.run(["gdb", "-p", str(process.pid), "-batch", "-nx", "-ex", "thread apply all bt"])
    else:
        print("(no gdb for the stacks)")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sequencer", help="the sequencer binary")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=8, help="sequencer run -j")
    parser.add_argument("--layers", type=int, default=60)
    parser.add_argument("--width", type=int, default=50)
    parser.add_argument("--stall", type=int, default=120, help="seconds after which a run counts as hung")
    parser.add_argument("--ninja", action="store_true", help="build a build.ninja with `sequencer ninja` instead")
    args = parser.parse_args()
    sequencer = os.path.abspath(args.sequencer)
    if args.ninja:
        text, name, commands = manifest(args.layers, args.width), "build.ninja", [["ninja"], ["ninja"]]
    else:
        text, name, commands = workflow(args.layers, args.width), "sequencer.yml", [["run"]]
    times = []
    failures = 0
    for run in range(1, args.runs + 1):
        directory = tempfile.mkdtemp(prefix="sequencer-stress-run-")
        try:
            with open(os.path.join(directory, name), "w") as file:
                file.write(text)
            if args.ninja:
                headers(directory, args.layers, args.width)
            for index, command in enumerate(commands):
                log_path = os.path.join(directory, f"run{index}.log")
                start = time.monotonic()
                with open(log_path, "w") as log:
                    process = subprocess.Popen([sequencer] + command + ["-j", str(args.jobs)], cwd=directory,
                                               stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                    try:
                        status = process.wait(timeout=args.stall)
                    except subprocess.TimeoutExpired:
                        report_hang(process, log_path, args.stall)
                        process.kill()
                        process.wait()
                        print(f"run {run} of {args.runs}: HUNG")
                        return 1
                if index == 0:
                    times.append(time.monotonic() - start)
                with open(log_path, errors="replace") as log:
                    lines = log.readlines()
                # The second build of a ninja run has nothing to do.
                if status != 0 or (index == 1 and lines != ["ninja: no work to do.\n"]):
                    failures += 1
                    print(f"run {run}: {' '.join(command)}: exit status {status}; last output:\n{''.join(lines[-10:])}")
                    break
                problem = args.ninja and index == 0 and deps_log_problem(
                    os.path.join(directory, ".ninja_deps"), args.layers * args.width)
                if problem:
                    failures += 1
                    print(f"run {run}: the deps log: {problem}")
                    break
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        if run % 50 == 0 or run == args.runs:
            print(f"{run} runs, no hang; {failures} failed; median {statistics.median(times):.2f} s, "
                  f"max {max(times):.2f} s", flush=True)
    jobs = args.layers * args.width
    print(f"stress: {args.runs} {'ninja builds' if args.ninja else 'runs'} of {jobs} jobs at -j {args.jobs}: {failures} failed, 0 hung; "
          f"min {min(times):.2f} s, median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
