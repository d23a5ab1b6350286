#!/usr/bin/env python3
"""The command-line benchmark: the same generated graph of `touch` jobs run by sequencer (with
and without its journal), make and ninja; then each tool's no-op run (everything up to date);
and `sequencer check` on it.

    python3 Scripts/bench-cli.py                 # 10,000 jobs, -j2, best of 3
    python3 Scripts/bench-cli.py --jobs 1000 --rounds 1 --json
    python3 Scripts/bench-cli.py --jobs 47 --glob-only   # the no-op run with glob inputs only
    python3 Scripts/bench-cli.py --real ../zstd          # a real C project: see Scripts/bench_real.py
    python3 Scripts/bench-cli.py --static                # sequencer built with the Swift runtime linked in

The graph is the one of ../shared/DESIGN.md ("Performance"): job i needs up to three random
earlier jobs, drawn with a 64-bit LCG from seed 42. Each job is `touch out/N`. Every tool starts
from an empty out/ directory, so every job runs. Installs ninja-build with apt when missing.

The glob variant is the same graph with `inputs: ["src/**/*.h"]` on every job, over a generated
tree of headers (and sources the glob does not match); ninja gets every header as an implicit
input of every edge. Only its no-op run is timed: the cost of checking inputs.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MASK = (1 << 64) - 1


def random_dag(count, seed=42):
    state = seed
    needs = []
    for job in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        k = (state >> 33) % 4
        mine = []
        for _ in range(min(k, job)):
            state = (state * 6364136223846793005 + 1442695040888963407) & MASK
            need = (state >> 33) % job
            if need not in mine:
                mine.append(need)
        needs.append(mine)
    return needs


def write_files(directory, needs, glob=None, headers=()):
    """The graph for each tool; with `glob`, every sequencer job reads it, and every ninja edge
    has `headers` as implicit inputs."""
    with open(os.path.join(directory, "sequencer.yml"), "w") as f:
        f.write("version: 1\njobs:\n")
        for job, mine in enumerate(needs):
            f.write(f"  j{job}:\n    run: touch out/{job}\n    outputs: [out/{job}]\n")
            if glob:
                f.write(f"    inputs: [\"{glob}\"]\n")
            if mine:
                f.write("    needs: [" + ", ".join(f"j{n}" for n in mine) + "]\n")
    with open(os.path.join(directory, "build.ninja"), "w") as f:
        f.write("rule touch\n  command = touch $out\n\n")
        implicit = (" | " + " ".join(headers)) if headers else ""
        for job, mine in enumerate(needs):
            order_only = (" || " + " ".join(f"out/{n}" for n in mine)) if mine else ""
            f.write(f"build out/{job}: touch{implicit}{order_only}\n")
    with open(os.path.join(directory, "Makefile"), "w") as f:
        f.write("all: " + " ".join(f"out/{job}" for job in range(len(needs))) + "\n\n")
        for job, mine in enumerate(needs):
            f.write(f"out/{job}: " + " ".join(f"out/{n}" for n in mine) + f"\n\ttouch out/{job}\n")


HEADER_DIRECTORIES = 8
HEADERS_PER_DIRECTORY = 12


def write_glob_files(directory, needs):
    """The glob variant: a header tree, and every job reading `src/**/*.h`."""
    headers = []
    for d in range(HEADER_DIRECTORIES):
        sub = os.path.join(directory, "src", f"part{d}", "detail" if d % 2 else "")
        os.makedirs(sub, exist_ok=True)
        for h in range(HEADERS_PER_DIRECTORY):
            for extension in ("h", "c"):
                with open(os.path.join(sub, f"f{h}.{extension}"), "w") as f:
                    f.write(f"/* {d} {h} */\n")
            headers.append(os.path.relpath(os.path.join(sub, f"f{h}.h"), directory))
    write_files(directory, needs, glob="src/**/*.h", headers=sorted(headers))


def glob_noop(binary, needs, parallel, rounds, have_ninja):
    """The no-op run of the glob variant, for sequencer and ninja: the best of `rounds`."""
    directory = tempfile.mkdtemp(prefix="sequencer-bench-glob-")
    write_glob_files(directory, needs)
    tools = {"sequencer": [binary, "run", "--jobs", str(parallel), "sequencer.yml"]}
    if have_ninja:
        tools["ninja"] = ["ninja", "-j", str(parallel)]
    noop = {}
    for name, command in tools.items():
        timed(command, directory)
        noop[name] = min(timed(command, directory, clean=False)[0] for _ in range(max(3, rounds)))
    shutil.rmtree(directory, ignore_errors=True)
    return noop


def timed(command, directory, clean=True):
    """Runs a tool from an empty out/ (so every job runs). Sequencer's .sequencer/ (its jobs' output
    files) is kept from run to run, as .ninja_log is: a user's second run finds it."""
    if clean:
        shutil.rmtree(os.path.join(directory, "out"), ignore_errors=True)
        os.makedirs(os.path.join(directory, "out"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed ({result.returncode}): {result.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def self_cpu(command, directory):
    """CPU time of the tool's own process (every thread, none of its children): its utime and
    stime from /proc/PID/stat, read every 5 ms until it exits (the last few ms are missed)."""
    if not os.path.exists("/proc/self/stat"):
        return None
    shutil.rmtree(os.path.join(directory, "out"), ignore_errors=True)
    os.makedirs(os.path.join(directory, "out"))
    ticks = os.sysconf("SC_CLK_TCK")
    process = subprocess.Popen(command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = 0.0
    while process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            # Fields after the command: state is [0], utime [11], stime [12].
            seconds = max(seconds, (int(fields[11]) + int(fields[12])) / ticks)
        except (OSError, IndexError, ValueError):
            pass
        time.sleep(0.005)
    return seconds


def ensure_ninja():
    if shutil.which("ninja"):
        return True
    prefix = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run(prefix + ["apt-get", "install", "-y", "-qq", "ninja-build"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return shutil.which("ninja") is not None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=10_000, help="jobs in the graph")
    parser.add_argument("-j", "--parallel", type=int, default=2, help="jobs at once, for every tool")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each tool; the best counts")
    parser.add_argument("--sequencer", default=None, help="the sequencer binary (default: build it, release)")
    parser.add_argument("--static", action="store_true",
                        help="build it with the Swift runtime linked in (--static-swift-stdlib, in .build-static/), "
                             "as a binary made for distribution is: its start is about 5 ms shorter")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--glob-only", action="store_true", help="only the no-op run of the glob variant")
    parser.add_argument("--real", metavar="ZSTD", help="build this zstd checkout with each tool instead (Scripts/bench_real.py)")
    parser.add_argument("--build-dir", help="with --real: where the build descriptions and outputs go (default: a new /tmp directory)")
    args = parser.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = args.sequencer
    if binary is None:
        scratch = ".build-static" if args.static else ".build"
        static = ["--static-swift-stdlib"] if args.static else []
        subprocess.run(["swift", "build", "-c", "release", "--product", "sequencer", "--scratch-path", scratch] + static,
                       cwd=root, check=True, stdout=subprocess.DEVNULL)
        binary = os.path.join(root, scratch, "release", "sequencer")
    binary = os.path.abspath(binary)
    if args.real:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        sys.dont_write_bytecode = True  # no __pycache__ in Scripts/
        import bench_real
        bench_real.run_real(args.real, binary, args.parallel, args.rounds, args.json, args.build_dir)
        return
    have_ninja = ensure_ninja()
    needs = random_dag(args.jobs)
    glob = glob_noop(binary, needs, args.parallel, args.rounds, have_ninja)
    glob_figures = {name: round(value, 4) for name, value in glob.items()}
    if args.glob_only:
        if args.json:
            print(json.dumps({"jobs": args.jobs, "parallel": args.parallel, "globNoopSeconds": glob_figures}, indent=2))
        else:
            print(f"{args.jobs} jobs, each with inputs [src/**/*.h] ({HEADER_DIRECTORIES * HEADERS_PER_DIRECTORY} headers), "
                  f"-j{args.parallel}, no-op run, best of {max(3, args.rounds)}: "
                  + ", ".join(f"{name} {value:.3f} s" for name, value in glob.items()))
        return

    directory = tempfile.mkdtemp(prefix="sequencer-bench-")
    write_files(directory, needs)
    j = str(args.parallel)
    tools = {
        "sequencer": [binary, "run", "--jobs", j, "sequencer.yml"],
        "sequencer --no-journal": [binary, "run", "--no-journal", "--jobs", j, "sequencer.yml"],
        "make": ["make", "-s", "-j", j],
    }
    if have_ninja:
        tools["ninja"] = ["ninja", "-j", j]

    first = timed(tools["sequencer"], directory)[0]  # no .sequencer/ yet: every output file is created
    best = {}
    for _ in range(args.rounds):  # alternate the tools, so a slow moment hits all of them
        for name, command in tools.items():
            elapsed, cpu = timed(command, directory)
            if name not in best or elapsed < best[name][0]:
                best[name] = (elapsed, cpu)
    check = min(timed([binary, "check", "sequencer.yml"], directory, clean=False)[0] for _ in range(args.rounds))
    # No-op runs: each tool once from empty, then again with everything up to date.
    noop = {}
    for name in ["sequencer", "make", "ninja"]:
        if name not in tools:
            continue
        timed(tools[name], directory)
        noop[name] = min(timed(tools[name], directory, clean=False)[0] for _ in range(max(3, args.rounds)))
    own = self_cpu(tools["sequencer"], directory)
    make_own = self_cpu(tools["make"], directory)
    shutil.rmtree(directory, ignore_errors=True)

    figures = {
        "jobs": args.jobs, "parallel": args.parallel, "edges": sum(len(n) for n in needs),
        "seconds": {name: round(value[0], 3) for name, value in best.items()},
        "cpuSecondsWithChildren": {name: round(value[1], 3) for name, value in best.items()},
        "checkSeconds": round(check, 3),
        "sequencerFirstRunSeconds": round(first, 3),
        "sequencerOwnCpuMicrosecondsPerJob": None if own is None else round(own / args.jobs * 1e6, 1),
        "makeOwnCpuMicrosecondsPerJob": None if make_own is None else round(make_own / args.jobs * 1e6, 1),
    }
    figures["noopSeconds"] = {name: round(value, 4) for name, value in noop.items()}
    figures["globNoopSeconds"] = glob_figures
    figures["sequencerVsMake"] = round(best["sequencer"][0] / best["make"][0], 3)
    figures["journalCost"] = round(best["sequencer"][0] / best["sequencer --no-journal"][0], 3)
    if "ninja" in noop:
        figures["noopSequencerVsNinja"] = round(noop["sequencer"] / noop["ninja"], 2)
    if "ninja" in best:
        figures["sequencerVsNinja"] = round(best["sequencer"][0] / best["ninja"][0], 3)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{args.jobs} jobs ({figures['edges']} needs), -j{args.parallel}, best of {args.rounds}:")
    for name, (elapsed, cpu) in best.items():
        print(f"  {name:<23} {elapsed:8.3f} s   (cpu with children {cpu:.2f} s)")
    print(f"  sequencer, first run (creating its {args.jobs} output files): {first:.3f} s")
    print(f"  sequencer / make:  {figures['sequencerVsMake']:.2f}x   (target <= 0.9)")
    if "ninja" in best:
        print(f"  sequencer / ninja: {figures['sequencerVsNinja']:.2f}x")
    print(f"  journal cost:      {figures['journalCost']:.3f}x  (sequencer / sequencer --no-journal; target <= 1.05)")
    print(f"  sequencer check:   {check:.3f} s   (target <= 0.5)")
    print("  no-op run (everything up to date): " + ", ".join(f"{name} {value:.3f} s" for name, value in noop.items()))
    print("  no-op run, every job with inputs [src/**/*.h]: " + ", ".join(f"{name} {value:.3f} s" for name, value in glob.items()))
    if "noopSequencerVsNinja" in figures:
        print(f"  no-op sequencer / ninja: {figures['noopSequencerVsNinja']:.2f}x   (target <= 1.0; <= 1.5 at 100,000 jobs)")
    if own is not None:
        print(f"  own cpu per job (every thread, no children; includes the kernel's work to create each process):")
        print(f"    sequencer {figures['sequencerOwnCpuMicrosecondsPerJob']} us, make {figures['makeOwnCpuMicrosecondsPerJob']} us")


if __name__ == "__main__":
    main()
