#!/usr/bin/env bash
# Benchmarks a ninja replacement (Sequencer's ninja mode) against ninja, side by side in one
# sitting, each timed run of one side followed by the same run of the other (A B A B ...), and
# prints medians and the ratios candidate/reference (per pair, then their median):
#   1. a Chromium-sized manifest from ninja's misc/write_fake_manifests.py (Debian's ninja-build
#      source package; 1,500 targets, about 88,000 edges; the "compiler" is a tiny sh script that
#      writes empty outputs and depfiles): parse time (`ninja -t rules`, which loads the manifest
#      and prints little), the first full build (once), no-op time, and peak RSS of a no-op
#      (/usr/bin/time -f %M); each no-op twice: the full check, and the no-op a user gets on
#      running the build again (Sequencer's no-op witness);
#   2. a manifest of 10,000 `touch` edges: full build time (from a clean directory every run);
#   3. a real CMake project from a Debian source package, zstd's build/cmake (the static library;
#      --zstd-full for everything): full build time (after `-t clean`) and no-op time.
#
#   Scripts/bench-ninja.sh --candidate .build/release/sequencer            # run as `ninja` (a symlink)
#   Scripts/bench-ninja.sh --candidate /usr/bin/ninja                      # ninja against itself: ~1.0
#   Scripts/bench-ninja.sh --candidate PATH --quick                        # a smoke run (CI), a few minutes
# Options: --reference PATH (default /usr/bin/ninja), --candidate-subcommand (run `PATH ninja`),
# --runs N (timed runs per side of the quick measurements, default 10; 3 with --quick),
# --zstd-full, --jobs N (ninja -j for the zstd builds, default: ninja's own default), --no-zstd
# (measurements 1 and 2 only: CI's smoke run, which has minutes for neither the zstd builds nor
# their download).
#
# Needs Debian 12 (root or sudo): enables deb-src if none is configured (as
# Scripts/ninja-output-test.sh does), installs dpkg-dev, cmake, gcc and time if missing, and runs
# `apt-get source ninja-build zstd` into a temporary directory (deleted at the end).
set -euo pipefail

reference=/usr/bin/ninja
candidate=""
subcommand=0
quick=0
runs=""
zstd_full=0
zstd=1
jobs=""
while [ $# -gt 0 ]; do
    case "$1" in
        --reference) reference=$2; shift 2 ;;
        --candidate) candidate=$2; shift 2 ;;
        --candidate-subcommand) subcommand=1; shift ;;
        --quick) quick=1; shift ;;
        --runs) runs=$2; shift 2 ;;
        --zstd-full) zstd_full=1; shift ;;
        --no-zstd) zstd=0; shift ;;
        --jobs) jobs=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-ninja: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$candidate" ]; then echo "bench-ninja: --candidate PATH is required" >&2; exit 2; fi
for b in "$reference" "$candidate"; do
    if [ ! -x "$b" ]; then echo "bench-ninja: $b is not an executable file" >&2; exit 2; fi
done
reference=$(readlink -f "$reference")
candidate=$(readlink -f "$candidate")
[ -n "$runs" ] || runs=$([ $quick = 1 ] && echo 3 || echo 10)
sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi

apt_updated=0
source "$(dirname "${BASH_SOURCE[0]}")/deb-src.sh"
ensure_deb_src bench-ninja
missing=()
command -v dpkg-source >/dev/null 2>&1 || missing+=(dpkg-dev)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    [ $apt_updated = 1 ] || $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-ninja.XXXXXX")
trap 'rm -rf "$work"' EXIT
sources=(ninja-build)
[ $zstd = 0 ] || sources+=(zstd)
echo "bench-ninja: apt-get source ${sources[*]} (into $work)"
if ! (cd "$work" && apt-get source -qq "${sources[@]}" >"$work/apt-source.log" 2>&1); then
    cat "$work/apt-source.log" >&2
    echo "bench-ninja: apt-get source failed (see above)" >&2
    exit 2
fi
ninja_src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'ninja-build-*' | head -n 1)
zstd_src=$(find "$work" -mindepth 1 -maxdepth 1 -type d \( -name 'libzstd-*' -o -name 'zstd-*' \) | head -n 1)
[ -f "$ninja_src/misc/write_fake_manifests.py" ] || { echo "bench-ninja: no misc/write_fake_manifests.py in $ninja_src" >&2; exit 2; }
[ $zstd = 0 ] || [ -f "$zstd_src/build/cmake/CMakeLists.txt" ] || { echo "bench-ninja: no build/cmake/CMakeLists.txt in $zstd_src" >&2; exit 2; }

# Each side's binary, reached as `ninja` (a symlink), or `PATH ninja` through a script.
for side in reference candidate; do
    mkdir -p "$work/bin-$side"
    bin=$([ $side = reference ] && echo "$reference" || echo "$candidate")
    if [ $side = candidate ] && [ $subcommand = 1 ]; then
        printf '#!/bin/sh\nexec %q ninja "$@"\n' "$bin" >"$work/bin-$side/ninja"
        chmod +x "$work/bin-$side/ninja"
    else
        ln -s "$bin" "$work/bin-$side/ninja"
    fi
done

WORK=$work NINJA_SRC=$ninja_src ZSTD=$zstd ZSTD_SRC=$zstd_src RUNS=$runs QUICK=$quick ZSTD_FULL=$zstd_full JOBS=$jobs \
    REFERENCE=$reference CANDIDATE=$candidate SUBCOMMAND=$subcommand exec python3 - <<'PY'
import os, shutil, statistics, subprocess, sys, time

W = os.environ["WORK"]
RUNS = int(os.environ["RUNS"])
QUICK = os.environ["QUICK"] == "1"
JOBS = os.environ["JOBS"]
SIDES = ("reference", "candidate")
NINJA = {s: os.path.join(W, "bin-" + s, "ninja") for s in SIDES}
rows = []


def say(msg):
    print(msg, flush=True)


def run(argv, cwd, env=None, check=True, rss=False):
    """Runs argv; returns (seconds, peak RSS in KiB or None). Output goes to a log file."""
    rss_file = os.path.join(W, "rss.txt")
    if rss:
        argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv
    log = open(os.path.join(W, "last-command.log"), "wb")
    t0 = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    dt = time.monotonic() - t0
    log.close()
    if check and p.returncode != 0:
        with open(os.path.join(W, "last-command.log"), "rb") as f:
            tail = f.read()[-3000:].decode("utf-8", "replace")
        sys.exit("bench-ninja: `%s` in %s exited %d:\n%s" % (" ".join(argv), cwd, p.returncode, tail))
    peak = None
    if rss:
        with open(rss_file) as f:
            peak = int(f.read().split()[-1])
    return dt, peak


def pairs(name, dirs, argv, prep=None, n=RUNS, rss=False):
    """n timed runs per side, reference then candidate in turn; prep(side) before each, untimed."""
    times = {s: [] for s in SIDES}
    peaks = {s: [] for s in SIDES}
    for i in range(n):
        for s in SIDES:
            if prep:
                prep(s)
            dt, peak = run([NINJA[s]] + argv, dirs[s], rss=rss)
            times[s].append(dt)
            if peak is not None:
                peaks[s].append(peak)
    ratios = [c / r for r, c in zip(times["reference"], times["candidate"]) if r > 0]
    rows.append((name, statistics.median(times["reference"]), statistics.median(times["candidate"]),
                 statistics.median(ratios), n, min(times["reference"]), max(times["reference"]),
                 min(times["candidate"]), max(times["candidate"])))
    say("  %-44s reference %8.3f s  candidate %8.3f s  ratio %5.2f  (%d runs each)" % rows[-1][:5])
    if rss:
        r, c = statistics.median(peaks["reference"]), statistics.median(peaks["candidate"])
        rows.append((name.replace("time", "peak RSS"), r, c, c / r, n, None, None, None, None))
        say("  %-44s reference %8.0f KiB candidate %8.0f KiB ratio %5.2f" % (rows[-1][0], r, c, c / r))


def once(name, dirs, argv):
    t = {}
    for s in SIDES:
        t[s], _ = run([NINJA[s]] + argv, dirs[s])
    rows.append((name, t["reference"], t["candidate"], t["candidate"] / t["reference"], 1, None, None, None, None))
    say("  %-44s reference %8.3f s  candidate %8.3f s  ratio %5.2f  (1 run each)" % rows[-1][:4])


def noop_pairs(name, dirs, argv, rss=False):
    """A no-op twice: the full check (the candidate's no-op witness removed before each run),
    then, once a witness could be written (every file older than its 2 s window), the no-op a
    user gets on running the build again."""
    def drop_witness(s):
        witness = os.path.join(dirs[s], ".sequencer", "ninja-noop")
        if s == "candidate" and os.path.exists(witness):
            os.unlink(witness)
    pairs(name + ", full check", dirs, argv, prep=drop_witness, rss=rss)
    time.sleep(2.1)
    for s in SIDES:
        run([NINJA[s]] + argv, dirs[s])
    pairs(name, dirs, argv, rss=rss)


def clean_state(d):
    for name in (".ninja_log", ".ninja_deps"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            os.unlink(p)
    shutil.rmtree(os.path.join(d, ".sequencer"), ignore_errors=True)


say("bench-ninja: reference %s, candidate %s%s; %d cores, load %s" % (
    os.environ["REFERENCE"], os.environ["CANDIDATE"], " ninja" if os.environ["SUBCOMMAND"] == "1" else "",
    os.cpu_count(), open("/proc/loadavg").read().split()[0]))
for s in SIDES:
    v = subprocess.run([NINJA[s], "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode().strip()
    say("  %s --version: %s" % (s, v))

# 1. The Chromium-sized fake manifests.
targets = 100 if QUICK else 1500
say("1. write_fake_manifests.py -t %d (Chromium-sized at 1,500)" % targets)
fake = {}
gen = os.path.join(W, "fake-gen")
subprocess.run([sys.executable, os.path.join(os.environ["NINJA_SRC"], "misc", "write_fake_manifests.py"),
                "-t", str(targets), gen], check=True, stdout=subprocess.DEVNULL)
# The commands keep their text (ninja evaluates and hashes it) behind sh's no-op `:`, and write
# empty outputs and depfiles with shell builtins: one /bin/sh per edge, no compiler.
FAKE_RULES = {
    "  command = $cxx -MMD -MF $out.d $defines $includes $cflags -c $in -o $out\n":
        "  command = : $cxx -MMD -MF $out.d $defines $includes $cflags -c $in -o $out && : > $out && "
        "printf '%s:\\n' $out > $out.d\n",
    "  command = rm -f $out && $alink -o $out $in\n": "  command = : rm -f $out && : $alink -o $out $in && : > $out\n",
    "  command = $ld $ldflags -o $out $in $libs\n": "  command = : $ld $ldflags -o $out $in $libs && : > $out\n",
    "  command = touch $out\n": "  command = : touch $out && : > $out\n",
}
inputs, outputs = set(), set()
for dirpath, _, files in os.walk(gen):
    for fn in files:
        if not fn.endswith(".ninja"):
            continue
        with open(os.path.join(dirpath, fn)) as f:
            text = f.read().replace("$\n", " ")
        for line in text.splitlines():
            if line.startswith("build "):
                outs, _, rest = line[6:].partition(":")
                outputs.update(outs.replace("|", " ").split())
                ins = rest.split()[1:]
                inputs.update(x for x in ins if x not in ("|", "||"))
sources = sorted(inputs - outputs)
for s in SIDES:
    d = os.path.join(W, "fake-" + s)
    shutil.copytree(gen, d)
    bn = os.path.join(d, "build.ninja")
    with open(bn) as f:
        text = f.read()
    for old, new in FAKE_RULES.items():
        if old not in text:
            sys.exit("bench-ninja: write_fake_manifests.py wrote no rule line %r (another version?)" % old)
        text = text.replace(old, new, 1)
    with open(bn, "w") as f:
        f.write(text)
    for src in sources:
        p = os.path.join(d, src)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").close()
    fake[s] = d
n_edges = sum(1 for o in outputs)
say("  %d build outputs, %d source files" % (n_edges, len(sources)))
pairs("fake manifest: parse time (-t rules)", fake, ["-t", "rules"])
once("fake manifest: first full build", fake, [])
noop_pairs("fake manifest: no-op time", fake, [], rss=True)

# 2. 10,000 touch edges, built from scratch every run.
n_touch = 2000 if QUICK else 10000
say("2. %d touch edges" % n_touch)
touch = {}
for s in SIDES:
    d = os.path.join(W, "touch-" + s)
    os.makedirs(d)
    with open(os.path.join(d, "build.ninja"), "w") as f:
        f.write("rule touch\n  command = touch $out\n")
        for i in range(n_touch):
            f.write("build out/d%d/f%d: touch\n" % (i % 100, i))
    touch[s] = d


def touch_prep(s):
    shutil.rmtree(os.path.join(touch[s], "out"), ignore_errors=True)
    clean_state(touch[s])


pairs("%d touch edges: full build time" % n_touch, touch, [], prep=touch_prep, n=max(1, min(RUNS, 5)))
noop_pairs("%d touch edges: no-op time" % n_touch, touch, [])

# 3. zstd's CMake build.
if os.environ["ZSTD"] == "1":
    full = os.environ["ZSTD_FULL"] == "1"
    say("3. zstd build/cmake (%s)" % ("everything" if full else "the static library"))
    zstd = {}
    for s in SIDES:
        b = os.path.join(W, "zstd-build-" + s)
        args = ["cmake", "-G", "Ninja", "-S", os.path.join(os.environ["ZSTD_SRC"], "build", "cmake"), "-B", b,
                "-DCMAKE_MAKE_PROGRAM=" + NINJA[s]]
        if not full:
            args += ["-DZSTD_BUILD_SHARED=OFF", "-DZSTD_BUILD_PROGRAMS=OFF"]
        run(args, W)
        zstd[s] = b
    jobs = ["-j", JOBS] if JOBS else []
    pairs("zstd: full build time", zstd, jobs, prep=lambda s: run([NINJA[s], "-t", "clean"], zstd[s]),
          n=1 if QUICK else 2)
    noop_pairs("zstd: no-op time", zstd, jobs)

say("")
say("%-46s %12s %12s %8s" % ("summary (medians)", "reference", "candidate", "cand/ref"))
for name, r, c, ratio, n, *_ in rows:
    unit = "KiB" if "RSS" in name else "s"
    fmt = "%-46s %10.0f %-3s %10.0f %-3s %8.2f" if unit == "KiB" else "%-46s %10.3f %-3s %10.3f %-3s %8.2f"
    say(fmt % (name, r, unit, c, unit, ratio))
PY
