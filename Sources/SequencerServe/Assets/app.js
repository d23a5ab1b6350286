"use strict";
// sequencer serve's page script. Text from runs is only ever set with textContent.
(function () {
  const page = document.body.dataset.page;
  const words = { upToDate: "up to date", timedOut: "timed out" };
  const statusOrder = ["running", "failed", "timedOut", "cancelled", "succeeded", "upToDate", "skipped", "pending"];

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // A duration in the unit that fits, as the server and the command line write it
  // (durationText in SequencerOutput): 5ms, 0.4s, 1.2s, 42s, 3m20s, 1h05m.
  function seconds(ms) {
    if (ms === null || ms === undefined) return "-";
    const s = Math.max(0, ms / 1000);
    if (s === 0) return "0ms";
    const millis = Math.round(s * 1000);
    if (millis < 1) return "<1ms";
    if (millis < 100) return millis + "ms";
    const tenths = Math.round(s * 10);
    if (tenths < 100) return (tenths / 10).toFixed(1) + "s";
    const whole = Math.round(s);
    if (whole < 60) return whole + "s";
    if (whole < 3600) return Math.floor(whole / 60) + "m" + String(whole % 60).padStart(2, "0") + "s";
    const minutes = Math.round(s / 60);
    return Math.floor(minutes / 60) + "h" + String(minutes % 60).padStart(2, "0") + "m";
  }
  function statusWords(status) { return words[status] || status; }
  function badge(status) { return el("span", "badge st-" + status, statusWords(status)); }
  function jobURL(run, name) { return "/runs/" + run + "/job?name=" + encodeURIComponent(name); }

  // Graphviz's SVG at its own size fills a corner of a wide panel: it is scaled up (its
  // aspect kept) to the panel's width, or to the panel's height if that comes first; never
  // down, so that a large graph keeps legible text and scrolls.
  function fitGraph(box) {
    const svg = box.querySelector(":scope > svg");
    if (!svg) return;
    if (!svg.dataset.width) {
      svg.style.width = "";
      svg.style.height = "";
      const natural = svg.getBoundingClientRect();
      if (!natural.width || !natural.height) return;
      svg.dataset.width = String(natural.width);
      svg.dataset.height = String(natural.height);
    }
    const width = Number(svg.dataset.width), height = Number(svg.dataset.height);
    const room = box.clientWidth - 2;
    const tallest = Math.max(200, window.innerHeight * 0.7 - 4);
    const scale = Math.max(1, Math.min(room / width, tallest / height));
    svg.style.width = Math.floor(width * scale) + "px";
    svg.style.height = Math.floor(height * scale) + "px";
  }
  function fitGraphs() { for (const box of document.querySelectorAll(".graph")) fitGraph(box); }
  window.addEventListener("resize", fitGraphs);

  if (page === "run") runPage();
  if (page === "job") jobPage();
  if (page === "workflow") fitGraphs();
  if (page === "queue") queuePage();

  // MARK: queue page

  // The page read again every few seconds, its main part replaced (parsed, never set as
  // HTML), except while someone types in it: a field has focus, or the input was edited.
  function queuePage() {
    const every = 3000;
    let edited = false;
    document.addEventListener("input", () => { edited = true; });
    async function refresh() {
      const active = document.activeElement;
      const typing = active && active.closest && active.closest("main form") && active.tagName !== "BUTTON";
      if (!edited && !typing && !document.hidden) {
        try {
          const answer = await fetch(location.href, { headers: { Accept: "text/html" } });
          if (answer.ok) {
            const fresh = new DOMParser().parseFromString(await answer.text(), "text/html").querySelector("main");
            if (fresh) {
              document.querySelector("main").replaceWith(document.adoptNode(fresh));
              document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || "0") + 1);
            }
          }
        } catch (error) {
          // The server stopped or restarted: the next turn tries again.
        }
      }
      setTimeout(refresh, every);
    }
    setTimeout(refresh, every);
  }

  // MARK: run page

  function runPage() {
    let data = JSON.parse(document.getElementById("page-data").textContent);
    let received = performance.now();
    let zoom = null;  // pixels per millisecond; null fits the run to the width
    let graphNodes = null;
    const params = new URLSearchParams(location.search);
    let focus = params.get("focus");

    function now() {
      if (data.state === "running") return data.now + (performance.now() - received);
      return data.duration !== null && data.duration !== undefined ? data.duration : data.now;
    }

    function renderHeader() {
      const head = document.getElementById("run-head");
      head.dataset.state = data.state;
      const state = document.getElementById("run-state");
      state.replaceChildren(badge(data.state));
      document.getElementById("run-duration").textContent =
        data.state === "running" ? seconds(now()) + " so far" : seconds(data.duration);
      document.getElementById("run-jobs").textContent = String(data.jobs.length);
      const counts = {};
      for (const job of data.jobs) counts[job.status] = (counts[job.status] || 0) + 1;
      const parts = statusOrder.filter((s) => counts[s]).map((s) => counts[s] + " " + statusWords(s));
      const retried = data.jobs.filter((j) => j.attempts > 1).length;
      if (retried) parts.push(retried + " retried");
      document.getElementById("run-counts").textContent = parts.join(", ");
      const line = document.getElementById("critical-line");
      line.replaceChildren();
      if (data.critical.length) {
        line.append(el("strong", null, "Critical path: "));
        // A long path shows its ends, as the command line does; the timeline marks all of it.
        const long = data.critical.length > 12;
        data.critical.forEach((index, position) => {
          const job = data.jobs[index];
          if (long && position >= 5 && position < data.critical.length - 5) {
            if (position === 5) line.append(" → … " + (data.critical.length - 10) + " more …");
            return;
          }
          if (position) line.append(" → ");
          // A step (its name and time) never breaks: the line wraps between steps only.
          const item = el("span", "crit-item");
          const link = el("a", "crit-step", job.name);
          link.href = jobURL(data.id, job.name);
          item.append(link);
          // Absent times are missing keys (undefined), not null: `!= null` covers both.
          if (job.start != null && job.end != null) item.append(" " + seconds(job.end - job.start));
          line.append(item);
        });
      }
    }

    // Jobs table: filtered, at most 500 rows.
    const filter = document.getElementById("job-filter");
    function renderJobs() {
      const body = document.querySelector("#jobs tbody");
      const text = filter.value.toLowerCase();
      const rows = [];
      let matched = 0;
      data.jobs.forEach((job, index) => {
        if (text && !job.name.toLowerCase().includes(text)) return;
        matched += 1;
        if (rows.length >= 500) return;
        const row = el("tr");
        row.dataset.job = String(index);
        const name = el("td");
        const link = el("a", null, job.name);
        link.href = jobURL(data.id, job.name);
        name.append(link);
        const status = el("td");
        status.append(badge(job.status));
        if (job.restoredFrom) {
          const restored = el("span", "badge restored", "restored");
          restored.title = "restored from the shared output cache (key " + job.restoredFrom + "): nothing ran";
          status.append(" ", restored);
        }
        const time = job.start !== null && job.start !== undefined
          ? (job.end !== null && job.end !== undefined ? job.end - job.start : (job.status === "running" ? now() - job.start : null)) : null;
        row.append(name, status, el("td", "num", String(job.attempts)), el("td", "num", seconds(time)),
          el("td", null, job.lane !== null && job.lane !== undefined ? data.lanes[job.lane].name : ""));
        rows.push(row);
      });
      body.replaceChildren(...rows);
      document.getElementById("jobs-note").textContent =
        matched > rows.length ? "The first " + rows.length + " of " + matched + " jobs; filter to find the others." : "";
    }
    filter.addEventListener("input", renderJobs);

    // MARK: graph

    function applyStatuses() {
      const critical = new Set(data.critical);
      const graph = document.getElementById("graph");
      for (const node of graph.querySelectorAll("[id^='job-']")) {
        const index = Number(node.id.slice(4));
        const job = data.jobs[index];
        if (!job) continue;
        for (const name of Array.from(node.classList)) if (name.startsWith("st-")) node.classList.remove(name);
        node.classList.add("st-" + job.status);
        node.classList.toggle("crit", critical.has(index));
        node.dataset.status = job.status;
      }
      for (const edge of graph.querySelectorAll("[id^='edge-']")) {
        const [from, to] = edge.id.slice(5).split("-").map(Number);
        const a = data.critical.indexOf(from);
        edge.classList.toggle("crit", a >= 0 && data.critical[a + 1] === to);
      }
    }

    function loadGraph(whole) {
      const graph = document.getElementById("graph");
      graph.dataset.ready = "false";
      const query = new URLSearchParams();
      if (focus) query.set("focus", focus);
      if (whole) query.set("whole", "1");
      fetch("/runs/" + data.id + "/graph?" + query.toString())
        .then((response) => response.json())
        .then((answer) => {
          graphNodes = answer.nodes;
          document.getElementById("graph-note").textContent = [answer.note, answer.problem ? answer.problem + "; drawn without Graphviz." : null].filter(Boolean).join(" ");
          if (answer.svg) {
            const parsed = new DOMParser().parseFromString(answer.svg, "image/svg+xml");
            const svg = parsed.documentElement;
            if (svg.nodeName === "svg") {
              for (const script of svg.querySelectorAll("script, foreignObject")) script.remove();
              graph.replaceChildren(document.importNode(svg, true));
              graph.dataset.layout = "graphviz";
              fitGraph(graph);
            }
          } else {
            drawPlainGraph(graph, answer);
          }
          applyStatuses();
          graph.dataset.ready = "true";
          // When the page first had its header, jobs, timeline and graph: the tests' "usable".
          if (!document.body.dataset.readyMs) document.body.dataset.readyMs = String(Math.round(performance.now()));
        })
        .catch((error) => {
          document.getElementById("graph-note").textContent = "The graph could not be loaded: " + error;
          graph.dataset.ready = "error";
        });
    }

    // Without Graphviz: the drawn jobs in columns by depth, each listing its needs.
    function drawPlainGraph(graph, answer) {
      const shown = new Set(answer.nodes);
      const depth = new Map();
      function depthOf(index) {
        if (depth.has(index)) return depth.get(index);
        depth.set(index, 0);
        let d = 0;
        for (const need of data.jobs[index].needs) if (shown.has(need)) d = Math.max(d, depthOf(need) + 1);
        depth.set(index, d);
        return d;
      }
      const columns = [];
      for (const index of answer.nodes) {
        const d = depthOf(index);
        (columns[d] = columns[d] || []).push(index);
      }
      const board = el("div", "plain-graph");
      for (const column of columns) {
        const box = el("div", "column");
        for (const index of column || []) {
          const job = data.jobs[index];
          const node = el("a", "node job");
          node.id = "job-" + index;
          node.href = jobURL(data.id, job.name);
          node.append(el("span", "name", job.name));
          const needs = job.needs.filter((n) => shown.has(n)).map((n) => data.jobs[n].name);
          if (needs.length) node.append(el("span", "needs", "needs " + needs.join(", ")));
          const hidden = answer.hidden[String(index)];
          if (hidden) node.append(el("span", "needs", "+" + (hidden[0] + hidden[1]) + " more"));
          if (index === answer.focus) node.classList.add("focus");
          box.append(node);
        }
        board.append(box);
      }
      graph.replaceChildren(board);
      graph.dataset.layout = "plain";
      drawPlainEdges(board, answer.nodes, shown);
    }

    // The needs between drawn jobs, as curves from a need's right side to the job's left,
    // with the ids and classes of Graphviz's edges (`edge-FROM-TO`), so both are marked alike.
    function drawPlainEdges(board, nodes, shown) {
      const svgNS = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(svgNS, "svg");
      svg.setAttribute("class", "edges");
      svg.setAttribute("width", String(board.scrollWidth));
      svg.setAttribute("height", String(board.scrollHeight));
      const origin = board.getBoundingClientRect();
      for (const index of nodes) {
        const to = document.getElementById("job-" + index);
        for (const need of data.jobs[index].needs) {
          if (!shown.has(need)) continue;
          const from = document.getElementById("job-" + need);
          if (!from || !to) continue;
          const a = from.getBoundingClientRect();
          const b = to.getBoundingClientRect();
          const x1 = a.right - origin.left, y1 = a.top + a.height / 2 - origin.top;
          const x2 = b.left - origin.left, y2 = b.top + b.height / 2 - origin.top;
          const group = document.createElementNS(svgNS, "g");
          group.setAttribute("class", "edge");
          group.setAttribute("id", "edge-" + need + "-" + index);
          const path = document.createElementNS(svgNS, "path");
          path.setAttribute("d", "M" + x1 + " " + y1 + " C" + (x1 + 14) + " " + y1 + " " + (x2 - 14) + " " + y2 + " " + x2 + " " + y2);
          group.append(path);
          svg.append(group);
        }
      }
      board.prepend(svg);
    }

    const focusForm = document.getElementById("graph-focus");
    focusForm.addEventListener("submit", (event) => {
      event.preventDefault();
      focus = new FormData(focusForm).get("focus") || null;
      const url = new URL(location.href);
      if (focus) url.searchParams.set("focus", focus); else url.searchParams.delete("focus");
      history.replaceState(null, "", url);
      loadGraph(false);
    });
    document.getElementById("graph-all").addEventListener("click", () => { focus = null; loadGraph(true); });
    const names = document.getElementById("job-names");
    names.replaceChildren(...data.jobs.slice(0, 5000).map((job) => { const option = el("option"); option.value = job.name; return option; }));

    // MARK: timeline

    // Each lane's attempts on rows of their own: an attempt goes on the first row free at its start.
    function timelineRows() {
      const t = now();
      const segments = [];
      const byJob = new Map();
      for (const attempt of data.attempts) {
        segments.push({ job: attempt.job, start: attempt.start, end: attempt.end, attempt: attempt.attempt, exit: attempt.exit, kind: "attempt" });
        byJob.set(attempt.job, Math.max(byJob.get(attempt.job) || 0, attempt.end));
      }
      data.jobs.forEach((job, index) => {
        if (job.start === null || job.start === undefined) return;
        if (job.status === "running") {
          const start = byJob.has(index) ? byJob.get(index) : job.start;
          segments.push({ job: index, start: start, end: Math.max(start, t), attempt: job.attempts, kind: "running" });
        } else if (!byJob.has(index) && job.status !== "upToDate" && job.end !== null && job.end !== undefined) {
          segments.push({ job: index, start: job.start, end: job.end, attempt: job.attempts, kind: "attempt" });
        }
      });
      segments.sort((a, b) => a.start - b.start || a.end - b.end || a.job - b.job);
      const lanes = new Map();
      const firstRow = new Map();
      for (const segment of segments) {
        const lane = data.jobs[segment.job].lane;
        const key = lane === null || lane === undefined ? -1 : lane;
        if (!lanes.has(key)) lanes.set(key, []);
        const rows = lanes.get(key);
        let row = rows.findIndex((r) => r.end <= segment.start + 0.0001);
        if (row < 0) { row = rows.length; rows.push({ end: 0, segments: [] }); }
        rows[row].end = segment.end;
        rows[row].segments.push(segment);
        if (!firstRow.has(segment.job)) firstRow.set(segment.job, { lane: key, row: row, start: segment.start });
      }
      // Queued: from when its needs ended (or the run started) to its first start, under its first bar.
      for (const [index, place] of firstRow) {
        const job = data.jobs[index];
        let ready = 0;
        for (const need of job.needs) {
          const end = data.jobs[need].end;
          if (end !== null && end !== undefined) ready = Math.max(ready, end);
        }
        if (place.start - ready > 1) lanes.get(place.lane)[place.row].segments.push({ job: index, start: ready, end: place.start, kind: "queued" });
      }
      return { lanes: lanes, end: t };
    }

    function renderTimeline() {
      const box = document.getElementById("timeline");
      const { lanes, end } = timelineRows();
      const width = Math.max(200, box.clientWidth - 150);
      const scale = zoom || width / Math.max(end, 1);
      const critical = new Set(data.critical);
      const rows = [];
      const keys = Array.from(lanes.keys()).sort((a, b) => a - b);
      for (const key of keys) {
        lanes.get(key).forEach((row, number) => {
          const line = el("div", "row");
          const name = key < 0 ? "jobs" : "lane " + data.lanes[key].name;
          line.append(el("div", "label", name + " " + (number + 1)));
          const track = el("div", "track");
          track.style.width = Math.ceil(end * scale) + "px";
          for (const segment of row.segments) {
            const job = data.jobs[segment.job];
            const bar = el(segment.kind === "queued" ? "div" : "a", "bar " + segment.kind + " st-" + (segment.kind === "running" ? "running" : job.status));
            if (segment.kind !== "queued") {
              bar.href = jobURL(data.id, job.name);
              bar.dataset.job = String(segment.job);
              if (critical.has(segment.job)) bar.classList.add("crit");
              if (segment.attempt > 1) bar.classList.add("retry");
              bar.append(el("span", null, job.name + (segment.attempt > 1 ? " #" + segment.attempt : "")));
            }
            bar.style.left = (segment.start * scale) + "px";
            bar.style.width = Math.max(1, (segment.end - segment.start) * scale) + "px";
            bar.title = job.name + (segment.kind === "queued" ? " queued " : " ") + seconds(segment.end - segment.start)
              + (segment.exit ? " (" + segment.exit + ")" : "");
            track.append(bar);
          }
          line.append(track);
          rows.push(line);
        });
      }
      if (!rows.length) rows.push(el("p", "note", data.jobs.every((j) => j.status === "upToDate") ? "Every job was up to date: nothing ran." : "Nothing has started yet."));
      box.replaceChildren(...rows);
      box.dataset.ready = "true";
    }
    document.getElementById("zoom-in").addEventListener("click", () => { zoom = currentScale() * 2; renderTimeline(); });
    document.getElementById("zoom-out").addEventListener("click", () => { zoom = currentScale() / 2; renderTimeline(); });
    document.getElementById("zoom-fit").addEventListener("click", () => { zoom = null; renderTimeline(); });
    function currentScale() {
      const box = document.getElementById("timeline");
      return zoom || Math.max(200, box.clientWidth - 150) / Math.max(now(), 1);
    }

    // MARK: following a running run

    function renderAll() { renderHeader(); renderJobs(); renderTimeline(); applyStatuses(); }

    function follow() {
      const source = new EventSource("/runs/" + data.id + "/events");
      source.addEventListener("full", (event) => { data = JSON.parse(event.data); received = performance.now(); renderAll(); });
      source.addEventListener("update", (event) => {
        const update = JSON.parse(event.data);
        data.state = update.state;
        data.duration = update.duration;
        data.now = update.now;
        received = performance.now();
        for (const [key, job] of Object.entries(update.jobs)) data.jobs[Number(key)] = job;
        data.attempts.push(...update.attempts);
        data.critical = update.critical;
        renderAll();
      });
      source.addEventListener("end", () => { source.close(); renderAll(); });
      const ticker = setInterval(() => {
        if (data.state !== "running") { clearInterval(ticker); return; }
        renderHeader();
        renderTimeline();
      }, 500);
    }

    renderHeader();
    renderJobs();
    renderTimeline();
    loadGraph(false);
    if (data.state === "running") follow();
    window.addEventListener("resize", () => { if (!zoom) renderTimeline(); });
  }

  // MARK: job page

  function jobPage() {
    for (const section of document.querySelectorAll("section.output")) {
      const input = section.querySelector(".output-search");
      const log = section.querySelector("pre.log");
      if (!input || !log) continue;
      const original = log.innerHTML;  // the server's escaped markup
      const count = section.querySelector(".matches");
      input.addEventListener("input", () => {
        log.innerHTML = original;
        const text = input.value;
        if (!text) { count.textContent = ""; return; }
        const needle = text.toLowerCase();
        const walker = document.createTreeWalker(log, NodeFilter.SHOW_TEXT);
        const nodes = [];
        while (walker.nextNode()) nodes.push(walker.currentNode);
        let matches = 0;
        for (const node of nodes) {
          const value = node.nodeValue;
          const lower = value.toLowerCase();
          let from = 0;
          let at = lower.indexOf(needle, from);
          if (at < 0) continue;
          const pieces = document.createDocumentFragment();
          while (at >= 0) {
            pieces.append(value.slice(from, at));
            pieces.append(el("mark", null, value.slice(at, at + text.length)));
            matches += 1;
            from = at + text.length;
            at = lower.indexOf(needle, from);
          }
          pieces.append(value.slice(from));
          node.replaceWith(pieces);
        }
        count.textContent = matches + " match" + (matches === 1 ? "" : "es");
        const first = log.querySelector("mark");
        if (first) first.scrollIntoView({ block: "center" });
      });
    }
  }
})();
