"""The real-project mode of bench-cli.py: zstd built by sequencer, ninja and make.

    python3 Scripts/bench-cli.py --real ../zstd --sequencer .build/release/sequencer [-j 2] [--rounds 3] [--json]

../zstd is a checkout of https://github.com/facebook/zstd (a release: v1.5.6 was measured), kept
outside this repository; none of its code is part of Sequencer. The script only reads it, except
in the touched and edited scenarios: they change one file (its mtime; or its bytes, a comment
appended) and then copy it back byte for byte and restore its times. Every file's bytes and mtime
under lib/ and programs/ are compared before and after the run.

For each tool, a scratch directory (under a new /tmp directory, deleted at the end; or under
--build-dir, kept) gets one build description of the same graph, with the same compiler flags:

  - lib/{common,compress,decompress,dictBuilder}/*.c compiled to obj/lib/, each with a depfile;
  - programs/*.c (the zstd command, without zlib, lzma, lz4, threads or legacy formats) to obj/cli/;
  - libzstd.a from the library's objects (ar rcs), the zstd program linked from obj/cli/ and it;
  - a round trip: lib/zstd.h compressed and decompressed by that zstd, and compared.

sequencer.yml uses templates over globs, depfiles and family needs (written as a person would);
build.ninja has a `cc` rule with `deps = gcc` and one edge per source (ninja has no globs: such
files are usually generated); the Makefile has pattern rules with -MMD -MP and `-include`s the
.d files. Each tool finds `cc` and `ar` on a PATH that starts with wrappers which append a line
to that tool's log per call, so the compiles a tool ran are counted, not guessed.

Scenarios, in each round (the tools' order rotates from round to round; the best time counts):
full build (outputs deleted; .sequencer/, .ninja_log and .ninja_deps are kept, as after a
`clean`), no-op, one .c touched (mtime only), one .c edited (a comment appended), and one widely
included header edited (a comment appended to HEADER below, lib/common/zstd_internal.h). After
each timed build, that tool's zstd must pass the round trip. After a change is undone, each tool
runs once more, untimed, to be up to date again (with the old mtime back, make and ninja compile
nothing then; sequencer, which hashes contents, compiles again what the edit changed).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOOLS = ["sequencer", "ninja", "make"]
# The files the edit scenarios change; relative to the checkout.
SOURCE = "lib/compress/zstd_fast.c"
HEADER = "lib/common/zstd_internal.h"
# What zstd's own Makefile does for a build without optional libraries (libzstd.mk, programs/Makefile):
# no legacy formats, no threads, no backtraces, XXH symbols in ZSTD_'s namespace; and no
# assembly (huf_decompress_amd64.S), so that every source is a .c.
CFLAGS = ("-O2 -I${src}/lib -I${src}/lib/common -DXXH_NAMESPACE=ZSTD_ -DZSTD_LEGACY_SUPPORT=0 "
          "-DZSTD_DISABLE_ASM -DBACKTRACE_ENABLE=0")
ROUNDTRIP = "./zstd -q -c {src}/lib/zstd.h > roundtrip.zst && ./zstd -d -q -c roundtrip.zst > roundtrip.out && cmp {src}/lib/zstd.h roundtrip.out"


def library_sources(src):
    """lib/*/*.c without legacy/ and deprecated/, as the three descriptions select them."""
    found = []
    for directory in sorted(os.listdir(os.path.join(src, "lib"))):
        if directory in ("legacy", "deprecated") or not os.path.isdir(os.path.join(src, "lib", directory)):
            continue
        found += sorted(os.path.join(src, "lib", directory, f)
                        for f in os.listdir(os.path.join(src, "lib", directory)) if f.endswith(".c"))
    return found


def program_sources(src):
    return sorted(os.path.join(src, "programs", f) for f in os.listdir(os.path.join(src, "programs")) if f.endswith(".c"))


def write_sequencer(path, src):
    with open(path, "w") as f:
        f.write(f"""# zstd: its library, the zstd program, and a round trip through it.
version: 1
vars:
  src: {src}
  cc: cc
  cflags: {CFLAGS}
jobs:
  lib-${{stem}}:
    for: {{ files: ["${{src}}/lib/*/*.c"], exclude: ["${{src}}/lib/legacy/*", "${{src}}/lib/deprecated/*"] }}
    run: ${{cc}} ${{cflags}} -MMD -MP -MF obj/lib/${{stem}}.d -c ${{item}} -o obj/lib/${{stem}}.o
    inputs: ["${{item}}"]
    outputs: ["obj/lib/${{stem}}.o"]
    depfile: obj/lib/${{stem}}.d
  cli-${{stem}}:
    for: {{ files: "${{src}}/programs/*.c" }}
    run: ${{cc}} ${{cflags}} -MMD -MP -MF obj/cli/${{stem}}.d -c ${{item}} -o obj/cli/${{stem}}.o
    inputs: ["${{item}}"]
    outputs: ["obj/cli/${{stem}}.o"]
    depfile: obj/cli/${{stem}}.d
  libzstd:
    needs: [lib-*]
    run: rm -f libzstd.a && ar rcs libzstd.a obj/lib/*.o
    outputs: [libzstd.a]
  zstd:
    needs: [libzstd, cli-*]
    run: ${{cc}} obj/cli/*.o libzstd.a -o zstd
    outputs: [zstd]
  roundtrip:
    needs: [zstd]
    run: {ROUNDTRIP.format(src="${src}")}
    outputs: [roundtrip.out]
""")


def write_ninja(path, src):
    library = library_sources(src)
    programs = program_sources(src)

    def obj(kind, source):
        return f"obj/{kind}/{os.path.splitext(os.path.basename(source))[0]}.o"

    def rel(source):
        return "$src/" + os.path.relpath(source, src)

    with open(path, "w") as f:
        f.write(f"""# zstd: its library, the zstd program, and a round trip through it.
src = {src}
cc = cc
cflags = {CFLAGS.replace("${src}", "$src")}

rule cc
  command = $cc $cflags -MMD -MP -MF $out.d -c $in -o $out
  depfile = $out.d
  deps = gcc
rule ar
  command = rm -f $out && ar rcs $out $in
rule link
  command = $cc $in -o $out
rule roundtrip
  command = {ROUNDTRIP.format(src="$src")}

""")
        for source in library:
            f.write(f"build {obj('lib', source)}: cc {rel(source)}\n")
        for source in programs:
            f.write(f"build {obj('cli', source)}: cc {rel(source)}\n")
        f.write("build libzstd.a: ar " + " ".join(obj("lib", s) for s in library) + "\n")
        f.write("build zstd: link " + " ".join(obj("cli", s) for s in programs) + " libzstd.a\n")
        f.write("build roundtrip.out: roundtrip | zstd\n")
        f.write("default roundtrip.out\n")


def write_make(path, src):
    with open(path, "w") as f:
        f.write(f"""# zstd: its library, the zstd program, and a round trip through it.
SRC := {src}
CC := cc
CFLAGS := {CFLAGS.replace("${src}", "$(SRC)")}
LIB_SRCS := $(filter-out $(SRC)/lib/legacy/% $(SRC)/lib/deprecated/%,$(wildcard $(SRC)/lib/*/*.c))
CLI_SRCS := $(wildcard $(SRC)/programs/*.c)
LIB_OBJS := $(patsubst %.c,obj/lib/%.o,$(notdir $(LIB_SRCS)))
CLI_OBJS := $(patsubst %.c,obj/cli/%.o,$(notdir $(CLI_SRCS)))
vpath %.c $(sort $(dir $(LIB_SRCS) $(CLI_SRCS)))

all: roundtrip.out
obj/lib/%.o: %.c
\t@mkdir -p $(@D)
\t$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
obj/cli/%.o: %.c
\t@mkdir -p $(@D)
\t$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
libzstd.a: $(LIB_OBJS)
\trm -f $@ && ar rcs $@ $^
zstd: $(CLI_OBJS) libzstd.a
\t$(CC) $^ -o $@
roundtrip.out: zstd
\t{ROUNDTRIP.format(src="$(SRC)")}
.PHONY: all
-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d)
""")


DESCRIPTIONS = {"sequencer": ("sequencer.yml", write_sequencer),
                "ninja": ("build.ninja", write_ninja),
                "make": ("Makefile", write_make)}


def lines_written(path):
    """Non-empty lines that are not comments."""
    with open(path) as f:
        return sum(1 for line in f if line.strip() and not line.lstrip().startswith("#"))


def write_wrappers(directory, log):
    """bin/cc and bin/ar: append `compile`, `link` or `archive` to `log`, then run the real tool."""
    real_cc, real_ar = shutil.which("cc"), shutil.which("ar")
    if not real_cc or not real_ar:
        sys.exit("--real needs cc and ar on PATH")
    bin_directory = os.path.join(directory, "bin")
    os.makedirs(bin_directory, exist_ok=True)
    scripts = {
        "cc": f'case " $* " in *" -c "*) kind=compile ;; *) kind=link ;; esac\necho $kind >> {log}\nexec {real_cc} "$@"\n',
        "ar": f'echo archive >> {log}\nexec {real_ar} "$@"\n',
    }
    for name, body in scripts.items():
        path = os.path.join(bin_directory, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
    return bin_directory


class Tool:
    """One tool's scratch directory: its build description, its wrappers and its log."""

    def __init__(self, name, directory, src, sequencer, parallel):
        self.name, self.directory = name, directory
        os.makedirs(directory, exist_ok=True)
        self.log = os.path.join(directory, "calls.log")
        self.env = dict(os.environ, PATH=write_wrappers(directory, self.log) + os.pathsep + os.environ["PATH"])
        filename, write = DESCRIPTIONS[name]
        self.description = os.path.join(directory, filename)
        write(self.description, src)
        j = str(parallel)
        self.command = {"sequencer": [sequencer, "run", "--jobs", j, "sequencer.yml"],
                        "ninja": ["ninja", "-j", j],
                        "make": ["make", "-s", "-j", j]}[name]

    def clean(self):
        """Deletes what the build makes (not the tool's own records: .sequencer/, .ninja_log, .ninja_deps)."""
        shutil.rmtree(os.path.join(self.directory, "obj"), ignore_errors=True)
        for name in ["libzstd.a", "zstd", "roundtrip.zst", "roundtrip.out"]:
            if os.path.exists(os.path.join(self.directory, name)):
                os.remove(os.path.join(self.directory, name))

    def build(self):
        """Runs the tool; returns (seconds, {kind: calls}), and exits if the tool fails."""
        open(self.log, "w").close()
        start = time.perf_counter()
        result = subprocess.run(self.command, cwd=self.directory, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"{self.name} failed ({result.returncode}) in {self.directory}:\n"
                             + result.stdout.decode(errors="replace")[-3000:])
        calls = {"compile": 0, "link": 0, "archive": 0}
        with open(self.log) as f:
            for line in f:
                calls[line.strip()] = calls.get(line.strip(), 0) + 1
        return elapsed, calls

    def check_roundtrip(self, src):
        """The zstd this tool built compresses and decompresses a file back to its bytes."""
        original = os.path.join(src, "lib", "zstd.h")
        zstd = os.path.join(self.directory, "zstd")
        compressed = subprocess.run([zstd, "-q", "-c", original], stdout=subprocess.PIPE, check=True).stdout
        back = subprocess.run([zstd, "-d", "-q", "-c"], input=compressed, stdout=subprocess.PIPE, check=True).stdout
        with open(original, "rb") as f:
            if f.read() != back:
                raise SystemExit(f"{self.name}: the round trip through its zstd changed the file")


def snapshot(src):
    """Bytes and mtime of every file under lib/ and programs/."""
    state = {}
    for top in ["lib", "programs"]:
        for root, _, files in os.walk(os.path.join(src, top)):
            for name in files:
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    state[path] = (f.read(), os.stat(path).st_mtime_ns)
    return state


class Change:
    """Touches or edits one file of the checkout; `undo` copies it back byte for byte and restores its times."""

    def __init__(self, path, edit):
        self.path, self.edit = path, edit
        with open(path, "rb") as f:
            self.original = f.read()
        stat = os.stat(path)
        self.times = (stat.st_atime_ns, stat.st_mtime_ns)

    def apply(self):
        if self.edit:
            with open(self.path, "ab") as f:
                f.write(b"\n/* edited by bench-cli.py --real */\n")
        now = time.time_ns()
        os.utime(self.path, ns=(now, now))

    def undo(self):
        with open(self.path, "wb") as f:
            f.write(self.original)
        os.utime(self.path, ns=self.times)


def including(tool, header):
    """How many of make's objects list `header` in their depfile (the compiles an edit of it needs)."""
    count = 0
    for root, _, files in os.walk(os.path.join(tool.directory, "obj")):
        for name in files:
            if name.endswith(".d"):
                with open(os.path.join(root, name)) as f:  # gcc writes lib/compress/../common/x.h
                    count += header in {os.path.normpath(word.rstrip(":")) for word in f.read().split()}
    return count


SCENARIOS = ["full", "noop", "touched", "edited", "header"]
LABELS = {"full": "full build", "noop": "no-op", "touched": f"touched .c ({SOURCE})",
          "edited": f"edited .c ({SOURCE})", "header": f"edited header ({HEADER})"}


def run_real(src, sequencer, parallel, rounds, as_json, build_dir=None):
    src = os.path.abspath(src)
    if not os.path.exists(os.path.join(src, "lib", "zstd.h")):
        sys.exit(f"--real: {src} is not a zstd checkout (no lib/zstd.h)")
    for program in ["ninja", "make"]:
        if not shutil.which(program):
            sys.exit(f"--real needs {program}")
    scratch = build_dir or tempfile.mkdtemp(prefix="sequencer-bench-real-")
    tools = [Tool(name, os.path.join(scratch, name), src, sequencer, parallel) for name in TOOLS]
    before = snapshot(src)
    load = os.getloadavg()
    best = {}    # (scenario, tool) -> seconds
    each = {}    # (scenario, tool) -> [seconds of each round]
    calls = {}   # (scenario, tool) -> [calls of each round]

    def timed(scenario, order):
        for tool in order:
            elapsed, counted = tool.build()
            tool.check_roundtrip(src)
            key = (scenario, tool.name)
            best[key] = min(best.get(key, elapsed), elapsed)
            each.setdefault(key, []).append(round(elapsed, 3))
            calls.setdefault(key, []).append(counted)

    def changed(scenario, change, order):
        change.apply()
        try:
            timed(scenario, order)
        finally:
            change.undo()
        for tool in order:  # up to date again with the restored file (sequencer compiles it again)
            tool.build()
            tool.check_roundtrip(src)

    try:
        for round_ in range(rounds):
            order = tools[round_ % len(tools):] + tools[:round_ % len(tools)]
            for tool in order:
                tool.clean()
            timed("full", order)
            timed("noop", order)
            changed("touched", Change(os.path.join(src, SOURCE), edit=False), order)
            changed("edited", Change(os.path.join(src, SOURCE), edit=True), order)
            changed("header", Change(os.path.join(src, HEADER), edit=True), order)
    finally:
        after = snapshot(src)
    if after != before:
        sys.exit(f"--real: the checkout {src} is not as it was: " + ", ".join(p for p in before if before[p] != after.get(p)))

    figures = {
        "project": src, "parallel": parallel, "rounds": rounds, "scratch": scratch,
        "loadAverageAtStart": [round(x, 2) for x in load],
        "loadAverageAtEnd": [round(x, 2) for x in os.getloadavg()],
        "sourceEdited": SOURCE, "headerEdited": HEADER,
        "headerIncludedBy": including(tools[2], os.path.join(src, HEADER)),
        "seconds": {s: {t.name: round(best[(s, t.name)], 3) for t in tools} for s in SCENARIOS},
        "secondsEachRound": {s: {t.name: each[(s, t.name)] for t in tools} for s in SCENARIOS},
        "compiles": {s: {t.name: sorted({c["compile"] for c in calls[(s, t.name)]}) for t in tools} for s in SCENARIOS},
        "otherSteps": {s: {t.name: calls[(s, t.name)][-1]["archive"] + calls[(s, t.name)][-1]["link"] for t in tools}
                       for s in SCENARIOS},
        "linesWritten": {t.name: lines_written(t.description) for t in tools},
        "checkoutRestored": True,
    }
    # A figure that differs between rounds is a list of the values seen; one value is printed as is.
    for counts in figures["compiles"].values():
        for name, values in counts.items():
            counts[name] = values[0] if len(values) == 1 else values
    if build_dir is None:
        shutil.rmtree(scratch, ignore_errors=True)
        figures["scratch"] = None
    if as_json:
        print(json.dumps(figures, indent=2))
    else:
        print_table(figures)
    return figures


def print_table(figures):
    names = TOOLS
    print(f"{figures['project']}, -j{figures['parallel']}, best of {figures['rounds']} "
          f"(load average {figures['loadAverageAtStart'][0]:.1f} at the start, {figures['loadAverageAtEnd'][0]:.1f} at the end):")
    print()
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for scenario in SCENARIOS:
        cells = []
        for name in names:
            seconds = figures["seconds"][scenario][name]
            compiles = figures["compiles"][scenario][name]
            other = figures["otherSteps"][scenario][name]
            cells.append(f"{seconds:.3f} s, {compiles} cc" + (f" +{other} ar/ld" if other else ""))
        print(f"| {LABELS[scenario]} | " + " | ".join(cells) + " |")
    print("| lines written | " + " | ".join(str(figures["linesWritten"][n]) for n in names) + " |")
    print()
    print(f"cc: compiles counted by a wrapper; ar/ld: the archive and the link. {figures['headerEdited']} is in the "
          f"depfiles of {figures['headerIncludedBy']} objects. The checkout was restored byte for byte"
          + (f"; build directories: {figures['scratch']}" if figures["scratch"] else "") + ".")
