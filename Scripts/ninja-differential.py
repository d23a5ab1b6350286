#!/usr/bin/env python3
"""Differential test of a ninja replacement (Sequencer's ninja mode) against ninja 1.11.1.

Every case is built twice, once with each side, by the same step script: builds, no-op builds,
touches and edits of sources and headers, deleted outputs, changed commands and manifests, removed
sources, named targets, `-t clean`, `-k 0`... After every ninja (and cmake/meson) step the two
sides are compared on: the exit code; the commands that ran; stdout and stderr; and the bytes of
every file and the set of directories in the case's tree, except ninja's state files
(.ninja_log, .ninja_deps) and Sequencer's (.sequencer/).

    python3 Scripts/ninja-differential.py --reference /usr/bin/ninja --candidate PATH \\
        [--corpus DIR] [--projects DIR] [--random N --seed S] [--cmake PATH] [--meson PATH]
        [--candidate-is-ninja] [--candidate-subcommand] [--only REGEX] [--jobs J] [--keep DIR]

  ninja against itself (must pass):
    python3 Scripts/ninja-differential.py --reference /usr/bin/ninja --candidate /usr/bin/ninja \\
        --candidate-is-ninja --random 200 --seed 1

Cases: Tests/NinjaCorpus/*/ (a build.ninja, its inputs and a `steps` file), Tests/NinjaProjects/*/
(CMake and Meson projects with a `ninja-steps` file; configured by the step script with
CMAKE_MAKE_PROGRAM / NINJA set to the side's ninja), and N random manifests from
Scripts/ninja_random_manifests.py, seeded.

How the sides are made comparable: the two sides of a case run one after the other in the SAME
directory (<work>/<case>/tree), and the side's binary is reached through the same path
(<work>/<case>/bin/ninja, a symlink to it; with --candidate-subcommand a script running
`PATH ninja "$@"`), which is also first on PATH and in $NINJA. So absolute paths in CMake's and
Meson's files and in commands are the same on both sides. Copied files all get one mtime; before
each edit or touch the harness waits until the file's new mtime is past every mtime in the tree
(coarse file-system clocks would otherwise hide an edit from ninja, at random).

Which commands ran: parsed from ninja's own status lines, "[n/N] text" on stdout (with -v the text
is the command; without it, the description). Chosen over a log written by wrapped commands
because it works unchanged for CMake's and Meson's commands, and it is what the candidate must
print anyway. Commands are compared as multisets. Under -j1 stdout must match byte for byte;
under more jobs the order of lines is free: lines are compared sorted, with "[n/N]" masked.

Expected differences (the candidate is better by design), unless --candidate-is-ninja:
  * corpus/project steps written `better-ninja PATTERN ARGS...`: the candidate must run exactly
    the reference's commands that match the regular expression PATTERN (`-`: none), e.g. nothing
    after a touch; the reference must have run more than that (else the step proves nothing).
    Exit codes and files must still match; stdout is not compared.
  * random cases: every build step is judged by the content-hash model in
    ninja_random_manifests.py (the candidate must run exactly the edges it names; the reference
    must run at least those). Where the two sets are equal, stdout is compared as above.

Step script (one step a line, shell-like quoting, # comments; paths relative to the case root):
  ninja ARGS...              run the side's ninja in the current directory (see `cd`)
  better-ninja PATTERN ARGS  as ninja, an expected difference (above)
  cd DIR                     the directory later ninja steps run in (relative to the root)
  cmake ARGS...              CMAKE -G Ninja -DCMAKE_MAKE_PROGRAM=<side's ninja> ARGS (in the root)
  meson ARGS...              MESON ARGS, with NINJA=<side's ninja> (in the root)
  touch|rm PATH...           touch (mtime only) or remove files
  append PATH TEXT           append TEXT and a newline (\\n and \\t in TEXT are understood)
  write PATH TEXT            replace the file with TEXT and a newline
  replace PATH OLD NEW       replace every OLD by NEW (OLD must occur)
  restore PATH               put back the file as it is in the case's directory
  ignore GLOB...             leave matching paths (from the root) out of the file comparison
  normalize REGEX REPL       rewrite stdout/stderr on both sides before comparing
$ROOT in an argument is the tree's absolute path, $NINJA the side's ninja.

Prints one line per case and the differences found; ends with "N passed, M failed".
Exit status: 0 no unexpected difference, 1 some, 2 the harness could not run (said why).
"""
import argparse
import collections
import concurrent.futures
import difflib
import fnmatch
import hashlib
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True   # no __pycache__ in the repository
import ninja_random_manifests as randman  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATE_FILES = {".ninja_log", ".ninja_deps"}
STATE_DIRS = {".sequencer"}
STATUS_RE = re.compile(r"^\[(\d+)/(\d+)\] (.*)$")
EDGE_RE = re.compile(r"edge=(\d+)")
SMALL = 64 * 1024


class HarnessError(Exception):
    """The harness itself could not do a step (a bad step script, a missing tool)."""


# ---------------------------------------------------------------------------------------------
# Steps


class Step:
    def __init__(self, op, args, where, **kw):
        self.op = op
        self.args = args
        self.where = where          # "steps:12" or "random step 7 (why)"
        self.__dict__.update(kw)

    def label(self):
        if self.op in ("ninja", "better-ninja"):
            return "ninja " + " ".join(shlex.quote(a) for a in self.args)
        return self.op + " " + " ".join(shlex.quote(a) for a in self.args)


def unescape(text):
    return text.replace("\\\\", "\0").replace("\\n", "\n").replace("\\t", "\t").replace("\0", "\\")


def parse_steps(path):
    steps = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            try:
                words = shlex.split(line, comments=True)
            except ValueError as e:
                raise HarnessError("%s:%d: cannot split the line: %s" % (path, lineno, e))
            if not words:
                continue
            op, args = words[0], words[1:]
            where = "%s:%d" % (os.path.relpath(path, REPO), lineno)
            if op == "better-ninja":
                if not args:
                    raise HarnessError("%s: better-ninja needs a PATTERN" % where)
                pattern = args[0]
                try:
                    rx = None if pattern == "-" else re.compile(pattern)
                except re.error as e:
                    raise HarnessError("%s: bad PATTERN %r: %s" % (where, pattern, e))
                steps.append(Step(op, args[1:], where, pattern=rx))
            elif op in ("ninja", "cmake", "meson", "touch", "rm", "ignore"):
                steps.append(Step(op, args, where))
            elif op in ("cd", "restore") and len(args) == 1:
                steps.append(Step(op, args, where))
            elif op in ("append", "write") and len(args) == 2:
                steps.append(Step(op, args, where))
            elif op in ("replace", "normalize") and len(args) == 3 - (op == "normalize"):
                steps.append(Step(op, args, where))
            else:
                raise HarnessError("%s: unknown step or wrong number of arguments: %s" % (where, line.strip()))
    return steps


# ---------------------------------------------------------------------------------------------
# Cases


class Case:
    """name; kind (corpus, project, random); populate(tree); steps."""

    def __init__(self, name, kind, steps, source_dir=None, files=None):
        self.name = name
        self.kind = kind
        self.steps = steps
        self.source_dir = source_dir
        self.files = files

    def populate(self, tree):
        if self.source_dir:
            shutil.copytree(self.source_dir, tree, symlinks=True, copy_function=shutil.copyfile)
        else:
            os.makedirs(tree)
            for path, text in sorted(self.files.items()):
                full = os.path.join(tree, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as f:
                    f.write(text)
        # One mtime for every copied file, so that no copy order makes anything look newer.
        t = time.time() - 100
        for dirpath, dirnames, filenames in os.walk(tree):
            for name in filenames:
                os.utime(os.path.join(dirpath, name), (t, t))


def corpus_cases(corpus_dir):
    cases = []
    for name in sorted(os.listdir(corpus_dir)):
        d = os.path.join(corpus_dir, name)
        if not os.path.isdir(d):
            continue
        steps_file = os.path.join(d, "steps")
        if not os.path.isfile(steps_file):
            raise HarnessError("corpus case %s has no steps file (%s)" % (name, steps_file))
        cases.append(Case("corpus/" + name, "corpus", parse_steps(steps_file), source_dir=d))
    return cases


def project_cases(projects_dir):
    cases = []
    for name in sorted(os.listdir(projects_dir)):
        d = os.path.join(projects_dir, name)
        steps_file = os.path.join(d, "ninja-steps")
        if os.path.isfile(steps_file):
            cases.append(Case("project/" + name, "project", parse_steps(steps_file), source_dir=d))
    return cases


def random_cases(n, seed, min_edges, max_edges):
    cases = []
    for i in range(n):
        files, raw = randman.make_case("%s-%d" % (seed, i), min_edges, max_edges)
        steps = []
        for k, s in enumerate(raw, 1):
            where = "random step %d (%s)" % (k, s["why"])
            if s["op"] == "ninja":
                steps.append(Step("ninja", s["args"], where, graph=s["graph"], targets=s["targets"]))
            elif s["op"] == "write":
                steps.append(Step("write-raw", [s["path"]], where, text=s["text"]))
            else:
                steps.append(Step(s["op"], [s["path"]], where))
        cases.append(Case("random/%s-%d" % (seed, i), "random", steps, files=files))
    return cases


# ---------------------------------------------------------------------------------------------
# Running one side


class StepResult:
    def __init__(self, step):
        self.step = step
        self.rc = None
        self.stdout = b""
        self.stderr = b""
        self.snapshot = None
        self.pre = None
        self.edges_run = None
        self.edges_failed = None
        self.model_run = None
        self.model_error = None
        self.duration = 0.0


def snapshot(root, ignores):
    """{relpath: entry}; entry ('d',), ('l', target) or ('f', sha256, size, executable, bytes-if-small)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        keep = []
        for d in sorted(dirnames):
            rel = rel_dir + d
            if d in STATE_DIRS or any(fnmatch.fnmatchcase(rel, g) for g in ignores):
                continue
            full = os.path.join(dirpath, d)
            if os.path.islink(full):
                snap[rel] = ("l", os.readlink(full))
                continue
            snap[rel] = ("d",)
            keep.append(d)
        dirnames[:] = keep
        for name in filenames:
            rel = rel_dir + name
            if name in STATE_FILES or any(fnmatch.fnmatchcase(rel, g) for g in ignores):
                continue
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                snap[rel] = ("l", os.readlink(full))
                continue
            with open(full, "rb") as f:
                data = f.read()
            snap[rel] = ("f", hashlib.sha256(data).hexdigest(), len(data), bool(st.st_mode & 0o111),
                         data if len(data) <= SMALL else None, st.st_mtime_ns)
    return snap


def hashes(snap):
    return {p: e[1] for p, e in snap.items() if e[0] == "f"}


def max_mtime(root):
    m = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            try:
                m = max(m, os.lstat(os.path.join(dirpath, name)).st_mtime_ns)
            except FileNotFoundError:
                pass
    return m


def bump(path, newest):
    """Makes sure the file's mtime is past `newest` (file-system clocks are coarse)."""
    deadline = time.time() + 5
    while os.stat(path).st_mtime_ns <= newest:
        if time.time() > deadline:
            raise HarnessError("the mtime of %s does not move past the tree's newest" % path)
        time.sleep(0.002)
        os.utime(path)


def jobs_of(args):
    for i, a in enumerate(args):
        if a == "-j" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("-j") and len(a) > 2:
            return a[2:]
    return None


def status_texts(stdout):
    texts = []
    for line in stdout.decode("utf-8", "replace").splitlines():
        m = STATUS_RE.match(line)
        if m:
            texts.append(m.group(3))
    return texts


def failed_texts(stdout):
    out, lines = [], stdout.decode("utf-8", "replace").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("FAILED: ") and i + 1 < len(lines):
            out.append(lines[i + 1])
    return out


def edge_ids(texts):
    ids = []
    for t in texts:
        m = EDGE_RE.search(t)
        if m:
            ids.append(int(m.group(1)))
    return ids


class Side:
    def __init__(self, name, binary, subcommand, opts):
        self.name = name
        self.binary = binary
        self.subcommand = subcommand
        self.opts = opts


def install_ninja(bindir, side):
    os.makedirs(bindir, exist_ok=True)
    link = os.path.join(bindir, "ninja")
    if os.path.lexists(link):
        os.unlink(link)
    if side.subcommand:
        with open(link, "w") as f:
            f.write("#!/bin/sh\nexec %s ninja \"$@\"\n" % shlex.quote(side.binary))
        os.chmod(link, 0o755)
    else:
        os.symlink(side.binary, link)
    return link


def run_side(case, side, casedir):
    """Runs the case's steps with one side; returns ([StepResult] for the compared steps, error or None)."""
    tree = os.path.join(casedir, "tree")
    bindir = os.path.join(casedir, "bin")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    ninja = install_ninja(bindir, side)
    case.populate(tree)
    env = {k: v for k, v in os.environ.items() if k not in ("NINJA_STATUS", "CLICOLOR_FORCE", "MAKEFLAGS")}
    env.update(LC_ALL="C", TERM="dumb", NINJA=ninja, PATH=bindir + os.pathsep + env.get("PATH", ""))
    env.pop("CMAKE_GENERATOR", None)
    runlog = os.path.join(casedir, "runlog.txt")   # random cases' commands append edge=N to it
    env["RUNLOG"] = runlog
    results = []
    model = randman.Model() if case.kind == "random" else None
    timeout = side.opts.step_timeout

    def subst(a):
        return a.replace("$ROOT", tree).replace("$NINJA", ninja)

    def path_of(p, step):
        full = os.path.normpath(os.path.join(tree, subst(p)))
        if not (full == tree or full.startswith(tree + os.sep)):
            raise HarnessError("%s: path %s leaves the tree" % (step.where, p))
        return full

    def run(argv, step, cwd):
        r = StepResult(step)
        e = dict(env)
        t0 = time.monotonic()
        try:
            # A session of its own, so that a hung step's commands are killed with it.
            p = subprocess.Popen(argv, cwd=cwd, env=e, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
        except OSError as x:
            raise HarnessError("%s: cannot start %s: %s" % (step.where, argv[0], x))
        try:
            r.stdout, r.stderr = p.communicate(timeout=timeout)
            r.rc = p.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            r.stdout, r.stderr = p.communicate()
            r.rc = "killed after %ss (--step-timeout)" % timeout
        r.duration = time.monotonic() - t0
        return r

    try:
        run_steps(case, side, tree, ninja, env, runlog, model, results, subst, path_of, run)
    except HarnessError as e:
        return results, "%s side: %s" % (side.name, e)
    return results, None


def run_steps(case, side, tree, ninja, env, runlog, model, results, subst, path_of, run):
    cwd_box = [tree]
    ignores = []
    for step in case.steps:
        op, args = step.op, [subst(a) for a in step.args]
        if op in ("ninja", "better-ninja"):
            pre = hashes(snapshot(tree, ignores)) if model is not None else None
            with open(runlog, "w"):
                pass
            r = run([ninja] + args, step, cwd_box[0])
            r.snapshot = snapshot(tree, ignores)
            r.pre = pre
            if model is not None and getattr(step, "graph", None) is not None:
                with open(runlog) as f:
                    r.edges_run = edge_ids(f.read().split())
                r.edges_failed = set(edge_ids(failed_texts(r.stdout)))
                post = hashes(r.snapshot)
                r.model_run, r.model_error = model.predict(step.graph, step.targets, pre, post, r.edges_failed)
                model.update(step.graph, set(r.edges_run) - r.edges_failed, r.edges_failed, post)
            results.append(r)
        elif op == "cmake":
            argv = [side.opts.cmake, "-G", "Ninja", "-DCMAKE_MAKE_PROGRAM=" + ninja] + args
            r = run(argv, step, tree)
            r.snapshot = snapshot(tree, ignores)
            results.append(r)
        elif op == "meson":
            r = run([side.opts.meson] + args, step, tree)
            r.snapshot = snapshot(tree, ignores)
            results.append(r)
        elif op == "cd":
            cwd_box[0] = path_of(args[0], step)
        elif op == "ignore":
            ignores.extend(args)
        elif op == "normalize":
            pass
        elif op == "rm":
            for a in args:
                full = path_of(a, step)
                if not os.path.lexists(full):
                    raise HarnessError("%s: rm: %s does not exist" % (step.where, a))
                os.unlink(full)
        else:   # touch, append, write, write-raw, replace, restore: the file's mtime must move on
            newest = max_mtime(tree)
            targets = args if op == "touch" else args[:1]
            for a in targets:
                full = path_of(a, step)
                if op == "touch":
                    if not os.path.exists(full):
                        raise HarnessError("%s: touch: %s does not exist" % (step.where, a))
                    os.utime(full)
                elif op in ("append", "write", "write-raw"):
                    text = step.text if op == "write-raw" else unescape(args[1]) + "\n"
                    os.makedirs(os.path.dirname(full), exist_ok=True)
                    with open(full, "a" if op == "append" else "w") as f:
                        f.write(text)
                elif op == "replace":
                    with open(full) as f:
                        text = f.read()
                    old, new = unescape(args[1]), unescape(args[2])
                    if old not in text:
                        raise HarnessError("%s: replace: %r is not in %s" % (step.where, old, a))
                    with open(full, "w") as f:
                        f.write(text.replace(old, new))
                elif op == "restore":
                    if not case.source_dir:
                        raise HarnessError("%s: restore needs a case directory" % step.where)
                    shutil.copyfile(os.path.join(case.source_dir, a), full)
                else:
                    raise HarnessError("%s: unknown step %s" % (step.where, op))
                bump(full, newest)


# ---------------------------------------------------------------------------------------------
# Comparing


def normalizers(case):
    out = []
    for s in case.steps:
        if s.op == "normalize":
            out.append((re.compile(s.args[0], re.M), s.args[1]))
    return out


# --totals-may-differ: the N of "[n/N]" is masked. ninja lowers its total as soon as a restat edge
# leaves its outputs alone; the candidate lowers it when each edge below decides that it need not
# run, a little later, so under -j1 the same commands in the same order can show other totals.
TOTALS_MAY_DIFFER = False


def norm_text(data, norms, unordered, drop_status=False):
    """Under parallel jobs: lines sorted, "[n/N]" masked; with drop_status, status lines left out
    (ninja 1.11 keeps only the last of the status lines printed while a console edge runs)."""
    text = data.decode("utf-8", "replace")
    for rx, repl in norms:
        text = rx.sub(repl, text)
    if TOTALS_MAY_DIFFER:
        text = re.sub(r"^\[(\d+)/\d+\] ", r"[\1/#] ", text, flags=re.M)
    if unordered:
        # (The totals may already be masked: "[3/#]" is a status line too.)
        lines = [re.sub(r"^\[\d+/(\d+|#)\] ", "[#/#] ", l) for l in text.splitlines()
                 if not (drop_status and re.match(r"^\[\d+/(\d+|#)\] ", l))]
        return "\n".join(sorted(lines)) + ("\n" if lines else "")
    return text


def text_diff(a, b, name_a, name_b, limit=12):
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), name_a, name_b, n=1, lineterm=""))
    if len(lines) > limit:
        lines = lines[:limit] + ["... (%d more diff lines)" % (len(lines) - limit)]
    return ["    " + l for l in lines]


def commands_key(texts):
    return collections.Counter(texts)


def counter_list(c):
    out = []
    for k in sorted(c):
        out.extend([k] * c[k])
    return out


def compare_files(ref_snap, cand_snap):
    msgs = []
    only_ref = sorted(set(ref_snap) - set(cand_snap))
    only_cand = sorted(set(cand_snap) - set(ref_snap))
    if only_ref:
        msgs.append("  files only the reference has: " + ", ".join(only_ref[:15]) +
                    (" ..." if len(only_ref) > 15 else ""))
    if only_cand:
        msgs.append("  files only the candidate has: " + ", ".join(only_cand[:15]) +
                    (" ..." if len(only_cand) > 15 else ""))
    for p in sorted(set(ref_snap) & set(cand_snap)):
        a, b = ref_snap[p], cand_snap[p]
        if a[0] != b[0]:
            msgs.append("  %s: a %s on the reference side, a %s on the candidate's" % (
                p, {"d": "directory", "f": "file", "l": "symlink"}[a[0]], {"d": "directory", "f": "file", "l": "symlink"}[b[0]]))
        elif a[0] == "l" and a[1] != b[1]:
            msgs.append("  %s: symlink to %s (reference) vs %s (candidate)" % (p, a[1], b[1]))
        elif a[0] == "f" and (a[1] != b[1] or a[3] != b[3]):
            if a[1] != b[1]:
                msgs.append("  %s: bytes differ (%d bytes reference, %d candidate)" % (p, a[2], b[2]))
                if a[4] is not None and b[4] is not None and b"\0" not in a[4] + b[4]:
                    msgs.extend(text_diff(a[4].decode("utf-8", "replace"), b[4].decode("utf-8", "replace"),
                                          "reference/" + p, "candidate/" + p))
            else:
                msgs.append("  %s: executable bit differs" % p)
    return msgs


def rewritten_same(before, after):
    """Files that a step wrote again with the same bytes (the mtime moved, the hash did not)."""
    if before is None:
        return []
    return sorted(p for p, e in after.items()
                  if e[0] == "f" and p in before and before[p][0] == "f" and before[p][1] == e[1] and before[p][5] != e[5])


def compare_case(case, ref_results, cand_results, candidate_is_ninja, lint=False):
    """Returns a list of (step label, where, [messages]) for the differences found."""
    norms = normalizers(case)
    problems, notes = [], []
    prev = None
    for ra, rb in zip(ref_results, cand_results):
        step = ra.step
        msgs = []
        same = rewritten_same(prev, ra.snapshot)
        prev = ra.snapshot
        if lint and step.op == "ninja" and same and "-t" not in step.args:
            notes.append((step.label(), step.where, [
                "  lint: the reference rewrote files with the same bytes (a content-hashing candidate may run "
                "less: declare better-ninja?): " + ", ".join(same[:10]) + (" ..." if len(same) > 10 else "")]))
        tool_step = step.op in ("cmake", "meson")
        if ra.rc != rb.rc:
            msgs.append("  exit code: reference %s, candidate %s" % (ra.rc, rb.rc))
        ref_texts, cand_texts = status_texts(ra.stdout), status_texts(rb.stdout)
        expected_diff = False
        if step.op == "better-ninja":
            rx = step.pattern
            expected = [t for t in ref_texts if rx is not None and rx.search(t)]
            if len(expected) == len(ref_texts):
                msgs.append("  step proves nothing: the reference ran no command beyond those the candidate "
                            "must run (%d): %s" % (len(ref_texts), "; ".join(ref_texts[:4])))
            if not candidate_is_ninja:
                expected_diff = True
                if commands_key(expected) != commands_key(cand_texts):
                    msgs.append("  better by design: the candidate must run exactly %s; it ran %s" % (
                        fmt_cmds(expected), fmt_cmds(cand_texts)))
        elif ra.model_run is not None:
            # Random case: the content-hash model, for each side.
            ref_ids, cand_ids = collections.Counter(ra.edges_run), collections.Counter(rb.edges_run)
            if ra.model_error and ref_ids:
                msgs.append("  model: expects an error before any command, the reference ran %s" % sorted(ref_ids))
            extra = sorted(set(ra.model_run) - set(ref_ids))
            if extra:
                msgs.append("  model/harness bug: the model says edges %s must run, the reference did not run them"
                            % extra)
            dup = sorted(k for k, v in cand_ids.items() if v > 1)
            if dup:
                msgs.append("  the candidate ran edges %s more than once" % dup)
            if not candidate_is_ninja:
                if set(cand_ids) != set(rb.model_run):
                    msgs.append("  content-hash model: the candidate must run edges %s; it ran %s (missing %s, extra %s)"
                                % (sorted(rb.model_run), sorted(cand_ids), sorted(set(rb.model_run) - set(cand_ids)),
                                   sorted(set(cand_ids) - set(rb.model_run))))
                expected_diff = set(ref_ids) != set(cand_ids) and set(cand_ids) == set(rb.model_run)
        if ra.edges_run is not None:
            # Random case: which edges ran is read from the commands' own log ($RUNLOG).
            ref_texts = ["edge=%d" % i for i in ra.edges_run]
            cand_texts = ["edge=%d" % i for i in rb.edges_run]
        if not expected_diff and not tool_step and commands_key(ref_texts) != commands_key(cand_texts):
            a, b = commands_key(ref_texts), commands_key(cand_texts)
            if a - b:
                msgs.append("  commands only the reference ran: " + fmt_cmds(counter_list(a - b)))
            if b - a:
                msgs.append("  commands only the candidate ran: " + fmt_cmds(counter_list(b - a)))
        if not expected_diff and not tool_step:
            j = jobs_of(step.args)
            unordered = j != "1" and "-t" not in step.args   # tools print in a fixed order
            for stream, da, db in (("stdout", ra.stdout, rb.stdout), ("stderr", ra.stderr, rb.stderr)):
                drop = unordered and case.kind == "random"
                ta, tb = norm_text(da, norms, unordered, drop), norm_text(db, norms, unordered, drop)
                if ta != tb:
                    msgs.append("  %s differs%s:" % (stream, " (lines sorted, as jobs ran in parallel)" if unordered else ""))
                    msgs.extend(text_diff(ta, tb, "reference", "candidate"))
        msgs.extend(compare_files(ra.snapshot, rb.snapshot))
        if tool_step and msgs and ra.rc != 0:
            msgs.append("  (its output, reference side:)")
            msgs.extend("    " + l for l in (ra.stdout + ra.stderr).decode("utf-8", "replace").splitlines()[-15:])
        if msgs:
            problems.append((step.label(), step.where, msgs))
    return problems, notes


def fmt_cmds(cmds, limit=6):
    if not cmds:
        return "(none)"
    shown = ["`%s`" % (c if len(c) < 170 else c[:80] + " ... " + c[-85:]) for c in cmds[:limit]]
    return ", ".join(shown) + (" and %d more" % (len(cmds) - limit) if len(cmds) > limit else "")


# ---------------------------------------------------------------------------------------------
# Driver


def run_case(case, ref, cand, opts, workroot):
    casedir = os.path.join(workroot, case.name.replace("/", "_"))
    os.makedirs(casedir)
    t0 = time.monotonic()
    try:
        ref_results, ref_error = run_side(case, ref, casedir)
        if ref_error:
            raise HarnessError("the step script fails with the reference itself: " + ref_error)
        if opts.keep:
            shutil.move(os.path.join(casedir, "tree"), os.path.join(casedir, "tree.reference"))
        cand_results, cand_error = run_side(case, cand, casedir)
        if opts.keep:
            shutil.move(os.path.join(casedir, "tree"), os.path.join(casedir, "tree.candidate"))
        problems, notes = compare_case(case, ref_results, cand_results, opts.candidate_is_ninja, opts.lint)
        if cand_error:
            problems.append(("(the rest of the script)", "", [
                "  the step script could not go on with the candidate (%d of %d compared steps done): %s"
                % (len(cand_results), len(ref_results), cand_error)]))
        tree = os.path.join(casedir, "tree")   # shown as $ROOT in messages
        problems = [(l, w, [m.replace(tree, "$ROOT") for m in msgs]) for l, w, msgs in problems]
        error = None
        if opts.keep and problems:
            for side, results in (("reference", ref_results), ("candidate", cand_results)):
                write_log(os.path.join(casedir, "steps.%s.log" % side), results)
    except HarnessError as e:
        problems, notes, error = [], [], str(e)
    except Exception:
        problems, notes, error = [], [], "harness crashed:\n" + traceback.format_exc()
    elapsed = time.monotonic() - t0
    if opts.keep and (problems or error):
        dest = os.path.join(opts.keep, case.name.replace("/", "_"))
        if os.path.exists(dest):
            shutil.rmtree(dest)
        shutil.copytree(casedir, dest, symlinks=True)
    shutil.rmtree(casedir, ignore_errors=True)
    n_steps = sum(1 for s in case.steps if s.op in ("ninja", "better-ninja", "cmake", "meson"))
    return case, problems, notes, error, elapsed, n_steps


def write_log(path, results):
    with open(path, "w") as f:
        for r in results:
            f.write("=== %s (%s): exit %s, %.2f s\n" % (r.step.label(), r.step.where, r.rc, r.duration))
            if r.model_run is not None:
                f.write("--- edges run %s, failed %s; the model expected %s\n" % (
                    sorted(r.edges_run), sorted(r.edges_failed), sorted(r.model_run)))
            f.write("--- stdout\n" + r.stdout.decode("utf-8", "replace"))
            f.write("--- stderr\n" + r.stderr.decode("utf-8", "replace"))


def version_of(side):
    argv = [side.binary] + (["ninja"] if side.subcommand else []) + ["--version"]
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60)
    except OSError as e:
        raise HarnessError("cannot run the %s `%s`: %s" % (side.name, " ".join(argv), e))
    except subprocess.TimeoutExpired:
        raise HarnessError("the %s `%s` did not answer within 60 s" % (side.name, " ".join(argv)))
    return p.stdout.decode("utf-8", "replace").strip() + ("" if p.returncode == 0 else " (exit %d)" % p.returncode)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference", default="/usr/bin/ninja", help="the ninja to match (default /usr/bin/ninja)")
    ap.add_argument("--candidate", required=True, help="the binary under test, run as `ninja` through a symlink")
    ap.add_argument("--candidate-subcommand", action="store_true",
                    help="run the candidate as `CANDIDATE ninja ARGS` (Sequencer's subcommand form)")
    ap.add_argument("--candidate-is-ninja", action="store_true",
                    help="no expected differences: the candidate must match the reference everywhere")
    ap.add_argument("--corpus", default=os.path.join(REPO, "Tests", "NinjaCorpus"),
                    help="hand-written cases (default Tests/NinjaCorpus); 'none' to skip")
    ap.add_argument("--projects", default=os.path.join(REPO, "Tests", "NinjaProjects"),
                    help="CMake and Meson projects (default Tests/NinjaProjects); 'none' to skip")
    ap.add_argument("--random", type=int, default=0, metavar="N", help="N random manifests (default 0)")
    ap.add_argument("--seed", default="1", help="seed of the random manifests (default 1)")
    ap.add_argument("--random-edges", default="3:24", metavar="MIN:MAX", help="edges per random manifest")
    ap.add_argument("--cmake", default=shutil.which("cmake") or "cmake", help="the cmake to configure with")
    ap.add_argument("--meson", default=shutil.which("meson") or "meson", help="the meson to configure with")
    ap.add_argument("--only", metavar="REGEX", help="run only the cases whose name matches")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="cases at a time (default 2)")
    ap.add_argument("--step-timeout", type=float, default=600, help="seconds for one step (default 600)")
    ap.add_argument("--keep", metavar="DIR", help="keep the trees of failing cases (both sides) under DIR")
    ap.add_argument("--workdir", help="where to build (default: a new directory under $TMPDIR)")
    ap.add_argument("--verbose", action="store_true", help="a line for every case, random ones too")
    ap.add_argument("--totals-may-differ", action="store_true",
                    help="mask the total of status lines (see TOTALS_MAY_DIFFER)")
    ap.add_argument("--lint", action="store_true",
                    help="for step-script authors: flag plain ninja steps in which the reference rewrote a file "
                         "with the same bytes (there a content-hashing candidate may rightly run less)")
    opts = ap.parse_args()
    global TOTALS_MAY_DIFFER
    TOTALS_MAY_DIFFER = opts.totals_may_differ

    def fail(msg):
        print("ninja-differential: " + msg, file=sys.stderr)
        sys.exit(2)

    for name in ("reference", "candidate"):
        p = getattr(opts, name)
        full = shutil.which(p) if os.sep not in p else p
        if not full or not os.path.isfile(full) or not os.access(full, os.X_OK):
            fail("the %s %s is not an executable file" % (name, p))
        setattr(opts, name, os.path.abspath(full))
    if opts.keep:
        opts.keep = os.path.abspath(opts.keep)
        os.makedirs(opts.keep, exist_ok=True)
    try:
        lo, hi = (int(x) for x in opts.random_edges.split(":"))
    except ValueError:
        fail("--random-edges wants MIN:MAX, got %s" % opts.random_edges)
    ref = Side("reference", opts.reference, False, opts)
    cand = Side("candidate", opts.candidate, opts.candidate_subcommand, opts)

    try:
        cases = []
        if opts.corpus != "none":
            if not os.path.isdir(opts.corpus):
                fail("no corpus directory %s" % opts.corpus)
            cases += corpus_cases(opts.corpus)
        if opts.projects != "none":
            if not os.path.isdir(opts.projects):
                fail("no projects directory %s" % opts.projects)
            pcs = project_cases(opts.projects)
            for c in pcs:
                for tool, path in (("cmake", opts.cmake), ("meson", opts.meson)):
                    if any(s.op == tool for s in c.steps) and not shutil.which(path):
                        fail("%s needs %s, and `%s` is not found (install it, or give --%s PATH, or --projects none)"
                             % (c.name, tool, path, tool))
            cases += pcs
        cases += random_cases(opts.random, opts.seed, lo, hi)
        if opts.only:
            cases = [c for c in cases if re.search(opts.only, c.name)]
        ref_version, cand_version = version_of(ref), version_of(cand)
    except HarnessError as e:
        fail(str(e))
    if not cases:
        fail("no case to run")
    print("ninja differential: reference %s (%s), candidate %s%s (%s)%s" % (
        opts.reference, ref_version, opts.candidate, " ninja" if opts.candidate_subcommand else "", cand_version,
        "; candidate-is-ninja: no expected differences" if opts.candidate_is_ninja else ""))
    if any(c.kind == "project" for c in cases):
        print("  cmake: %s, meson: %s" % (opts.cmake, opts.meson))
    sys.stdout.flush()

    workroot = opts.workdir or tempfile.mkdtemp(prefix="ninja-differential-")
    os.makedirs(workroot, exist_ok=True)
    t0 = time.monotonic()
    passed = failed = errors = 0
    lock = threading.Lock()
    random_ok = 0
    step_total = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            futures = [pool.submit(run_case, c, ref, cand, opts, workroot) for c in cases]
            for fut in concurrent.futures.as_completed(futures):
                case, problems, notes, error, elapsed, n_steps = fut.result()
                with lock:
                    step_total += n_steps
                    if error:
                        errors += 1
                        print("ERROR %-34s %s" % (case.name, error))
                    elif problems:
                        failed += 1
                        print("FAIL  %-34s %d of %d steps differ (%.1f s)" % (case.name, len(problems), n_steps, elapsed))
                        for label, where, msgs in problems[:8]:
                            print("  step `%s` (%s):" % (label, where))
                            for m in msgs[:40]:
                                print("  " + m)
                        if len(problems) > 8:
                            print("  ... and %d more steps" % (len(problems) - 8))
                    else:
                        passed += 1
                        if case.kind == "random" and not opts.verbose:
                            random_ok += 1
                        else:
                            print("ok    %-34s %3d steps  %5.1f s" % (case.name, n_steps, elapsed))
                    for label, where, msgs in notes:
                        print("  note on step `%s` (%s):" % (label, where))
                        for m in msgs:
                            print("  " + m)
                    sys.stdout.flush()
    finally:
        if not opts.workdir:
            shutil.rmtree(workroot, ignore_errors=True)
    if random_ok:
        print("ok    random: %d of %d random cases (seed %s)" % (
            random_ok, sum(1 for c in cases if c.kind == "random"), opts.seed))
    print("%d cases, %d steps compared, %.0f s%s" % (len(cases), step_total, time.monotonic() - t0,
                                                     "; failing trees kept in " + opts.keep if opts.keep and (failed or errors) else ""))
    print("ninja differential: %d passed, %d failed" % (passed, failed + errors))
    sys.exit(0 if failed + errors == 0 else 1)


if __name__ == "__main__":
    main()
