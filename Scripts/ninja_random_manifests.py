"""Seeded random build.ninja manifests, their step scripts, and the content-hash model that says
which edges a content-hashing ninja (Sequencer's ninja mode) must run at each step.

Used by Scripts/ninja-differential.py (`--random N --seed S`); not run on its own, except
`python3 Scripts/ninja_random_manifests.py SEED [EDGES]`, which prints one case's manifest and steps.

A case is a DAG of edges over small text files: explicit, implicit and order-only inputs, phony
nodes (with and without inputs), depfiles (deps = gcc, and a depfile kept without `deps`),
restat, rspfiles, two pools (one of depth 1 whose commands check that they never overlap), the
console pool, multi-output edges with implicit outputs, and commands that fail (before, or after,
writing their output) when an input holds a line starting with FAIL. Every command is POSIX sh
and writes its outputs from its inputs only, so both sides' output bytes are comparable. Every
command carries `edge=N`, so a status line names its edge.

The model (class Model) is the candidate's expected behaviour, per side: an edge runs when it has
no record of a successful run, its command changed, an output is missing or no longer holds the
bytes it wrote, or an input (explicit, implicit, through phony nodes, or a header its depfile
lists) holds other bytes than when it last ran; a phony without inputs whose file is missing
makes its dependents run every time; order-only inputs never make an edge run; an edge below a
failed one does not run (-k 0); a failed edge keeps the record of its last success (it runs
again unless its inputs and outputs are back to that success's bytes). The reference (ninja, by mtimes) must run a superset of it.
"""
import random

SOURCE_LINES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]

# Rule name -> command template. Each command first appends `edge=N` to $RUNLOG (a file outside the
# build directory that the harness reads: which edges really ran, whatever ninja printed; ninja
# 1.11 drops status lines printed while a console-pool edge runs) and names its edge in the
# status line.
RULES = {
    "cat": "command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; printf '%s %s\\n' '$tag' $out > $out && cat $in >> $out",
    "filt": "command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; sed '/^#/d' $in > $out\n  description = FILTER edge=$id $out",
    "restat": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; sed '/^#/d' $in > $out.tmp && "
               "if cmp -s $out.tmp $out; then rm -f $out.tmp; else mv -f $out.tmp $out; fi\n"
               "  restat = 1"),
    "dep": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; printf '%s: %s\\n' $out '$hdrs' > $out.d && cat $in $hdrs > $out\n"
            "  depfile = $out.d\n  deps = gcc"),
    "depkeep": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; printf '%s: %s\\n' $out '$hdrs' > $out.d && cat $in $hdrs > $out\n"
                "  depfile = $out.d"),
    "multi": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; cat $in > $o1 && printf 'second\\n' > $o2 && cat $o1 >> $o2 && "
              "printf 'implicit of %s\\n' $o1 > $o3"),
    "check": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; if grep -q '^FAIL' $in; then echo 'edge=$id saw FAIL'; exit 1; fi; "
              "cat $in > $out"),
    "checklate": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; cat $in > $out; if grep -q '^FAIL' $out; then "
                  "echo 'edge=$id wrote FAIL'; exit 2; fi"),
    "rsp": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; cat $out.rsp > $out && cat $in >> $out\n"
            "  rspfile = $out.rsp\n  rspfile_content = $in_newline"),
    "pooled": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; mkdir -p locks && { mkdir locks/p1 2>/dev/null || "
               "{ echo 'pool p1 overlap at edge=$id'; exit 1; }; }; sleep 0.05; cat $in > $out; "
               "s=$$?; rmdir locks/p1; exit $$s\n  pool = p1"),
    "console": ("command = echo edge=$id >> \"$${RUNLOG:-/dev/null}\"; printf 'console edge=$id\\n'; cat $in > $out\n"
                "  pool = console"),
}
# The neutral rewrite of a rule (same output bytes, another command line).
NEUTRAL = {"filt": ("sed '/^#/d' $in", "sed -e '/^#/d' $in")}


class Edge:
    def __init__(self, eid, rule):
        self.id = eid
        self.rule = rule          # "phony" or a key of RULES
        self.outs = []            # explicit outputs
        self.imp_outs = []        # implicit outputs (after |)
        self.ins = []             # explicit inputs
        self.imps = []            # implicit inputs (after |)
        self.oos = []             # order-only inputs (after ||)
        self.hdrs = []            # what the depfile lists
        self.vars = {}            # edge-level bindings

    @property
    def phony(self):
        return self.rule == "phony"

    @property
    def all_outs(self):
        return self.outs + self.imp_outs


class Graph:
    def __init__(self):
        self.edges = []
        self.defaults = None      # None: no `default` statement
        self.tag = "v1"           # top-level $tag
        self.rules = dict(RULES)
        self.extra_top = []       # extra top-level lines

    def copy(self):
        g = Graph()
        g.edges = self.edges[:]   # edges are not changed after creation, only added
        g.defaults = None if self.defaults is None else self.defaults[:]
        g.tag = self.tag
        g.rules = dict(self.rules)
        g.extra_top = self.extra_top[:]
        return g

    def producer(self):
        return {o: e for e in self.edges for o in e.all_outs}

    def cmdkey(self, e):
        """What identifies the command an edge runs (its template and the variables it reads)."""
        if e.phony:
            return "phony"
        text = self.rules[e.rule]
        return "%s|%s|%s" % (text, e.vars.get("tag", self.tag) if "$tag" in text else "", " ".join(e.hdrs))

    def roots(self):
        used = set()
        for e in self.edges:
            used.update(e.ins + e.imps + e.oos)
        out = []
        for e in self.edges:
            out.extend(o for o in e.all_outs if o not in used)
        return out

    def targets(self):
        return self.defaults if self.defaults is not None else self.roots()

    def manifest(self):
        lines = ["# Random manifest written by Scripts/ninja_random_manifests.py", "ninja_required_version = 1.10",
                 "tag = %s" % self.tag, "", "pool p1", "  depth = 1", "pool p2", "  depth = 2", ""]
        lines.extend(self.extra_top)
        for name in sorted(self.rules):
            lines.append("rule %s" % name)
            lines.append("  " + self.rules[name])
            lines.append("")
        for e in self.edges:
            s = "build %s" % " ".join(e.outs)
            if e.imp_outs:
                s += " | " + " ".join(e.imp_outs)
            s += ": %s" % e.rule
            if e.ins:
                s += " " + " ".join(e.ins)
            if e.imps:
                s += " | " + " ".join(e.imps)
            if e.oos:
                s += " || " + " ".join(e.oos)
            lines.append(s)
            for k in sorted(e.vars):
                lines.append("  %s = %s" % (k, e.vars[k]))
        if self.defaults is not None:
            lines.append("")
            lines.append("default " + " ".join(self.defaults))
        return "\n".join(lines) + "\n"


def _pick(rng, pool, k):
    k = min(k, len(pool))
    return rng.sample(pool, k) if k > 0 else []


def _add_edge(rng, g, eid, files, phonies, consumers_ok=True):
    kinds = ["cat"] * 30 + ["filt"] * 10 + ["restat"] * 7 + ["dep"] * 7 + ["depkeep"] * 3 + ["multi"] * 5 + \
            ["check"] * 5 + ["checklate"] * 4 + ["rsp"] * 5 + ["pooled"] * 5 + ["console"] * 2 + ["phony"] * 8
    kind = rng.choice(kinds)
    e = Edge(eid, kind)
    recent = files[-6:]
    if kind == "phony":
        if rng.random() < 0.2:
            pass                                  # a phony without inputs: always dirty when its file is missing
        else:
            e.ins = _pick(rng, list(dict.fromkeys(files + phonies)), rng.randint(1, 3))
        e.outs = ["ph%d" % eid]
        phonies.append(e.outs[0])
        return e
    n_in = rng.randint(1, 3)
    e.ins = list(dict.fromkeys(_pick(rng, recent, min(n_in, 2)) + _pick(rng, files, n_in)))[:n_in]
    rest = [f for f in files + phonies if f not in e.ins]
    if rng.random() < 0.35:
        e.imps = _pick(rng, rest, rng.randint(1, 2))
    rest = [f for f in rest if f not in e.imps]
    if rng.random() < 0.3:
        e.oos = _pick(rng, rest, rng.randint(1, 2))
    sub = "out/d%d/" % (eid % 3) if rng.random() < 0.3 else "out/"
    if kind == "multi":
        e.outs = [sub + "e%d.a" % eid, sub + "e%d.b" % eid]
        e.imp_outs = [sub + "e%d.c" % eid]
        e.vars["o1"], e.vars["o2"], e.vars["o3"] = e.outs[0], e.outs[1], e.imp_outs[0]
    else:
        e.outs = [sub + "e%d.txt" % eid]
    if kind in ("dep", "depkeep"):
        e.hdrs = sorted(_pick(rng, HEADERS, rng.randint(1, 2)))
        e.vars["hdrs"] = " ".join(e.hdrs)
    e.vars["id"] = str(eid)
    if kind == "cat" and rng.random() < 0.25:
        e.vars["tag"] = "local%d" % eid         # an edge binding shadowing the top-level one
    if kind == "cat" and rng.random() < 0.15:
        e.vars["pool"] = "p2"                   # a pool set on the edge, not the rule
    files.extend(e.all_outs)
    return e


HEADERS = ["src/h0.h", "src/h1.h", "src/h2.h"]


def make_case(seed, min_edges=3, max_edges=24):
    """Returns (files {path: text}, steps [dict]) for one seeded case."""
    rng = random.Random(seed)
    n_src = rng.randint(2, 5)
    sources = ["src/s%d.txt" % i for i in range(n_src)]
    contents = {}
    for s in sources:
        contents[s] = "".join("%s %d\n" % (rng.choice(SOURCE_LINES), rng.randint(0, 99))
                              for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.3:
            contents[s] += "# a comment\n"
    for h in HEADERS:
        contents[h] = "header %s\n" % h
    files_out = dict(contents)
    files_out["locks/.keep"] = ""
    g = Graph()
    files, phonies = list(sources), []
    n_edges = rng.randint(min_edges, max_edges)
    for eid in range(n_edges):
        g.edges.append(_add_edge(rng, g, eid, files, phonies))
    real = [e for e in g.edges if not e.phony]
    if not real:
        e = Edge(n_edges, "cat")
        e.ins, e.outs, e.vars = [sources[0]], ["out/e%d.txt" % n_edges], {"id": str(n_edges)}
        g.edges.append(e)
        n_edges += 1
    if rng.random() < 0.5:
        g.defaults = _pick(rng, [o for e in g.edges for o in e.outs], rng.randint(1, 3))

    steps = []
    cur = {"g": g}

    def ninja(args, targets=None, why=""):
        steps.append({"op": "ninja", "args": list(args) + list(targets or []), "graph": cur["g"],
                      "targets": list(targets) if targets else None, "why": why})

    def write(path, text, why=""):
        contents[path] = text
        steps.append({"op": "write", "path": path, "text": text, "why": why})

    def set_graph(ng, why):
        cur["g"] = ng
        steps.append({"op": "write", "path": "build.ninja", "text": ng.manifest(), "why": why})

    def real_edges():
        # Edges that the default build runs (so that their outputs exist).
        g = cur["g"]
        return [e for e in Model._closure(g, g.targets(), g.producer()) if not e.phony]

    v = ["-v", "-j1"]
    ninja(v, why="first build")
    ninja(v, why="no-op build")
    src = rng.choice(sources + HEADERS)
    steps.append({"op": "touch", "path": src, "why": "touch a source"})
    ninja(v, why="after touch")
    src = rng.choice(sources)
    write(src, contents[src] + "data %d\n" % rng.randint(100, 999), why="edit a source")
    ninja(v, why="after an edit")
    src = rng.choice(sources)
    write(src, contents[src] + "# comment %d\n" % rng.randint(100, 999), why="edit a comment (filters drop it)")
    ninja(["-j1"], why="after a comment edit (no -v)")
    h = rng.choice(HEADERS)
    write(h, contents[h] + "more %d\n" % rng.randint(0, 99), why="edit a header")
    ninja(v, why="after a header edit")
    if real_edges():
        e = rng.choice(real_edges())
        steps.append({"op": "rm", "path": rng.choice(e.all_outs), "why": "delete an output"})
        ninja(v, why="after deleting an output")
        e = rng.choice(real_edges())
        steps.append({"op": "touch", "path": rng.choice(e.all_outs), "why": "touch an output"})
        ninja(v, why="after touching an output")
    ng = cur["g"].copy()
    ng.tag = "v2"
    set_graph(ng, "change a command (the top-level $tag)")
    ninja(v, why="after a command change")
    ng = cur["g"].copy()
    old, new = NEUTRAL["filt"]
    ng.rules["filt"] = ng.rules["filt"].replace(old, new)
    set_graph(ng, "change a command without changing its output (filt)")
    ninja(v, why="after a neutral command change")
    nodes = [o for e in cur["g"].edges for o in e.outs]
    ninja(v, targets=[rng.choice(nodes)], why="build a named target")
    ng = cur["g"].copy()
    ne = Edge(len(ng.edges), "cat")
    ne.ins = [rng.choice(files)]
    ne.outs = ["out/added%d.txt" % ne.id]
    ne.vars = {"id": str(ne.id)}
    ng.edges = ng.edges + [ne]
    ng.extra_top = ["# the manifest changed otherwise", "unused = %d" % rng.randint(0, 99), ""]
    set_graph(ng, "change the manifest otherwise (a new edge, a new variable)")
    ninja(v, why="after adding an edge")
    if ng.defaults is not None:
        ninja(v, targets=[ne.outs[0]], why="build the new edge by name")
    src = rng.choice(sources)
    good = contents[src]
    write(src, good + "FAIL here\n", why="break a source (checks fail)")
    ninja(v + ["-k", "0"], why="a failing build, -k 0")
    ninja(v + ["-k", "0"], why="again, still failing")
    write(src, good, why="restore the source's bytes")
    ninja(v + ["-k", "0"], why="after the fix")
    src = rng.choice(sources)
    steps.append({"op": "rm", "path": src, "why": "remove a source file"})
    ninja(v, why="a source is missing")
    write(src, contents[src], why="put the source back, same bytes")
    ninja(v, why="after putting it back")
    h = rng.choice(HEADERS)
    steps.append({"op": "rm", "path": h, "why": "remove a header"})
    ninja(v + ["-k", "0"], why="a header is missing")
    write(h, contents[h], why="put the header back")
    ninja(v + ["-k", "0"], why="after putting the header back")
    steps.append({"op": "ninja", "args": ["-t", "clean"], "graph": None, "targets": None, "why": "-t clean"})
    ninja(["-v", "-j4"], why="rebuild after clean, 4 jobs")
    ninja(["-v", "-j4"], why="no-op, 4 jobs")
    files_out["build.ninja"] = g.manifest()
    return files_out, steps


class Model:
    """The content-hash model of one side: what each edge's last successful run saw."""

    def __init__(self):
        self.records = {}   # edge id -> (cmdkey, {input: hash}, {output: hash})

    @staticmethod
    def _closure(g, targets, producer):
        order, seen = [], set()

        def visit(n):
            e = producer.get(n)
            if e is None or e.id in seen:
                return
            seen.add(e.id)
            stack = [(e, iter(e.ins + e.imps + e.oos))]
            while stack:
                edge, it = stack[-1]
                for n2 in it:
                    e2 = producer.get(n2)
                    if e2 is not None and e2.id not in seen:
                        seen.add(e2.id)
                        stack.append((e2, iter(e2.ins + e2.imps + e2.oos)))
                        break
                else:
                    stack.pop()
                    order.append(edge)
        for t in targets:
            visit(t)
        return order

    @staticmethod
    def _expand(n, producer, pre, acc, depth=0):
        """Files behind node n (phony nodes opened); returns True if n is an always-dirty phony."""
        e = producer.get(n)
        if e is None or not e.phony:
            acc.append(n)
            return False
        if not e.ins and not e.imps:
            return pre.get(n) is None
        force = False
        for m in e.ins + e.imps:
            force |= Model._expand(m, producer, pre, acc, depth + 1)
        return force

    def predict(self, g, targets, pre, post, failed_ids):
        """(edge ids expected to run, whether ninja should stop with an error before running any).
        pre/post: {path: hash or None} before and after the build."""
        producer = g.producer()
        targets = targets if targets is not None else g.targets()
        order = self._closure(g, targets, producer)
        for e in order:
            for n in e.ins + e.imps + e.oos:
                if n not in producer and pre.get(n) is None:
                    return set(), True
        run, bad = set(), set()
        for e in order:
            if any(producer[n].id in bad for n in e.ins + e.imps + e.oos if n in producer):
                bad.add(e.id)
                continue
            if e.phony:
                continue
            files = []
            force = False
            for n in e.ins + e.imps:
                force |= self._expand(n, producer, pre, files)
            files += e.hdrs
            rec = self.records.get(e.id)
            dirty = (force or rec is None or rec[0] != g.cmdkey(e)
                     or any(pre.get(o) is None or pre.get(o) != rec[2].get(o) for o in e.all_outs)
                     or set(files) != set(rec[1]) or any(post.get(f) != rec[1][f] for f in files))
            if dirty:
                run.add(e.id)
                if e.id in failed_ids:
                    bad.add(e.id)
        return run, False

    def update(self, g, ran_ok, ran_failed, post):
        producer = g.producer()
        for e in g.edges:
            if e.phony:
                continue
            if e.id in ran_failed:
                # The record of its last success stays: the inputs that made it run (or an
                # output the failed run changed) differ from it, so it runs again, unless they
                # are back to the bytes of that success (then its outputs are still right).
                pass
            elif e.id in ran_ok:
                files = []
                for n in e.ins + e.imps:
                    self._expand(n, producer, post, files)
                files += e.hdrs
                self.records[e.id] = (g.cmdkey(e), {f: post.get(f) for f in files},
                                      {o: post.get(o) for o in e.all_outs})


if __name__ == "__main__":
    import sys
    seed = sys.argv[1] if len(sys.argv) > 1 else "1-0"
    files, steps = make_case(seed, 3, int(sys.argv[2]) if len(sys.argv) > 2 else 24)
    sys.stdout.write(files["build.ninja"])
    for s in steps:
        print("#", s["op"], s.get("path", ""), " ".join(s.get("args", [])), "--", s["why"])
