extension Assets {
    /// The pages' style: status colours as classes (the policy forbids style attributes).
    static let style = #"""
:root { --ink: #1d2330; --muted: #5b6475; --line: #d9dee8; --panel: #ffffff; --back: #f4f6fa;
  --ok: #2e9b4f; --fail: #d23c3c; --run: #2f6fde; --wait: #9aa3b5; --skip: #b9a04a; --cancel: #8c5fb8; --crit: #ff8a00; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--back); }
header.top { display: flex; gap: 24px; align-items: center; padding: 10px 24px; background: #1d2330; }
header.top a { color: #e8ecf4; text-decoration: none; }
header.top .brand { font-weight: 700; letter-spacing: .02em; }
header.top nav { display: flex; gap: 16px; }
main { padding: 16px 24px 48px; max-width: 1500px; }
h1 { font-size: 22px; margin: 8px 0; } h2 { font-size: 16px; margin: 4px 0 10px; }
a { color: #1f5fc7; }
.path { color: var(--muted); font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
.note { color: var(--muted); } .warning { color: #9a5b00; } .error { color: var(--fail); }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 14px 0; }
table.grid { border-collapse: collapse; width: 100%; background: var(--panel); }
table.grid th, table.grid td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; }
table.grid th { font-size: 12px; color: var(--muted); font-weight: 600; }
table.grid td.num { text-align: right; font-variant-numeric: tabular-nums; }
.filters { display: flex; gap: 12px; align-items: center; margin: 8px 0; }
.pages { margin: 12px 0; display: flex; gap: 16px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; color: #fff; background: var(--wait); }
.badge.st-succeeded { background: var(--ok); } .badge.st-failed, .badge.st-timedOut, .badge.st-interrupted { background: var(--fail); }
.badge.st-running { background: var(--run); } .badge.st-cancelled { background: var(--cancel); }
.badge.st-skipped { background: var(--skip); } .badge.st-upToDate { background: #7f8aa0; }
.critical-line { margin: 6px 0 0; } .critical-line .crit-step { color: #b35f00; font-weight: 600; }
.critical-line .crit-item { white-space: nowrap; }
.graph { overflow: auto; max-height: 70vh; border: 1px solid var(--line); border-radius: 6px; background: #fbfcfe; min-height: 80px; }
.graph svg { display: block; }
.graph .node.st-succeeded path, .graph .node.st-succeeded polygon { fill: #c9ecd3; }
.graph .node.st-failed path, .graph .node.st-failed polygon, .graph .node.st-timedOut path, .graph .node.st-timedOut polygon { fill: #f6c4c4; }
.graph .node.st-running path, .graph .node.st-running polygon { fill: #c8dafc; }
.graph .node.st-cancelled path, .graph .node.st-cancelled polygon { fill: #e2d3f1; }
.graph .node.st-skipped path, .graph .node.st-skipped polygon { fill: #efe5bf; }
.graph .node.st-upToDate path, .graph .node.st-upToDate polygon { fill: #e3e7ee; }
.graph .node.crit path, .graph .node.crit polygon { stroke: var(--crit); stroke-width: 2.5px; }
.graph .node.focus text { font-weight: 700; }
.graph .edge.crit path { stroke: var(--crit); stroke-width: 2.5px; } .graph .edge.crit polygon { stroke: var(--crit); fill: var(--crit); }
.graph-focus { display: flex; gap: 8px; align-items: center; margin-bottom: 6px; }
.plain-graph { display: flex; gap: 36px; padding: 12px; align-items: flex-start; position: relative; }
.plain-graph svg.edges { position: absolute; left: 0; top: 0; pointer-events: none; overflow: visible; }
.plain-graph .edge path { stroke: #8a94a6; stroke-width: 1.2px; fill: none; }
.plain-graph .column { position: relative; z-index: 1; }
.plain-graph .column { display: flex; flex-direction: column; gap: 8px; }
.plain-graph .node { display: block; padding: 4px 10px; border: 1px solid #5b6475; border-radius: 6px; background: #fff; color: var(--ink); text-decoration: none; min-width: 90px; }
.plain-graph .node .needs { display: block; font-size: 11px; color: var(--muted); }
.plain-graph .node.st-succeeded { background: #c9ecd3; } .plain-graph .node.st-failed, .plain-graph .node.st-timedOut { background: #f6c4c4; }
.plain-graph .node.st-running { background: #c8dafc; } .plain-graph .node.st-skipped { background: #efe5bf; }
.plain-graph .node.st-cancelled { background: #e2d3f1; } .plain-graph .node.st-upToDate { background: #e3e7ee; }
.plain-graph .node.crit { border: 2.5px solid var(--crit); } .plain-graph .node.focus { font-weight: 700; }
.zoom { display: flex; gap: 6px; align-items: center; margin-bottom: 8px; }
.legend { color: var(--muted); font-size: 12px; display: inline-flex; gap: 6px; align-items: center; }
.legend span { display: inline-block; width: 18px; height: 8px; border-radius: 2px; }
.queued-key { background: repeating-linear-gradient(90deg, #b9c1d0 0 4px, transparent 4px 7px); }
.running-key { background: var(--ok); } .critical-key { background: transparent; border: 2px solid var(--crit); }
.timeline { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; background: #fbfcfe; padding: 6px 0; }
.timeline .row { display: flex; align-items: center; height: 24px; }
.timeline .label { flex: 0 0 140px; padding: 0 8px; font-size: 12px; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; position: sticky; left: 0; background: #fbfcfe; z-index: 2; }
.timeline .track { position: relative; height: 22px; flex: 0 0 auto; }
.timeline .bar { position: absolute; top: 2px; height: 15px; border-radius: 3px; background: var(--ok); overflow: hidden; color: #fff; font-size: 11px; line-height: 15px; text-decoration: none; white-space: nowrap; }
.timeline .bar span { padding: 0 4px; }
.timeline .bar.st-failed, .timeline .bar.st-timedOut { background: var(--fail); }
.timeline .bar.st-cancelled { background: var(--cancel); }
.timeline .bar.running { background: var(--run); }
.timeline .bar.retry { opacity: .85; }
.timeline .bar.queued { top: 18px; height: 3px; border-radius: 0; background: repeating-linear-gradient(90deg, #b9c1d0 0 4px, transparent 4px 7px); }
.timeline .bar.crit { box-shadow: inset 0 0 0 2px var(--crit); }
pre.command, pre.log { background: #11151d; color: #e6e9ef; padding: 10px 12px; border-radius: 6px; overflow: auto; max-height: 70vh; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; word-break: break-word; }
pre.log mark { background: #ffd54a; color: #000; }
.tools { display: flex; gap: 12px; align-items: center; }
.fg0 { color: #5c6370; } .fg1 { color: #ef5350; } .fg2 { color: #66bb6a; } .fg3 { color: #fdd835; } .fg4 { color: #64a0ff; } .fg5 { color: #ce93d8; } .fg6 { color: #4dd0e1; } .fg7 { color: #e6e9ef; }
.fg8 { color: #8a93a3; } .fg9 { color: #ff7b7b; } .fg10 { color: #9be89f; } .fg11 { color: #ffee7a; } .fg12 { color: #8fb8ff; } .fg13 { color: #f0b3fa; } .fg14 { color: #84f1ff; } .fg15 { color: #ffffff; }
.bg0 { background: #000; } .bg1 { background: #a52a2a; } .bg2 { background: #2e7d32; } .bg3 { background: #9e8a00; } .bg4 { background: #1e4fa8; } .bg5 { background: #7b3f8c; } .bg6 { background: #007c89; } .bg7 { background: #9ea3ad; }
.bg8 { background: #4b5260; } .bg9 { background: #e04848; } .bg10 { background: #4caf50; } .bg11 { background: #c7b000; } .bg12 { background: #3f7fe0; } .bg13 { background: #b25fc7; } .bg14 { background: #00a7b5; } .bg15 { background: #fff; }
.b { font-weight: 700; } .i { font-style: italic; } .u { text-decoration: underline; }
.spark { display: inline-flex; align-items: flex-end; gap: 1px; height: 20px; vertical-align: middle; }
.spark a { width: 6px; background: var(--ok); display: inline-block; }
.spark a.st-failed, .spark a.st-timedOut { background: var(--fail); } .spark a.st-cancelled { background: var(--cancel); }
.spark a.st-skipped, .spark a.st-upToDate, .spark a.st-pending { background: var(--wait); }
.spark a.h2 { height: 2px; }
.spark a.h3 { height: 3px; }
.spark a.h4 { height: 4px; }
.spark a.h5 { height: 5px; }
.spark a.h6 { height: 6px; }
.spark a.h7 { height: 7px; }
.spark a.h8 { height: 8px; }
.spark a.h9 { height: 9px; }
.spark a.h10 { height: 10px; }
.spark a.h11 { height: 11px; }
.spark a.h12 { height: 12px; }
.spark a.h13 { height: 13px; }
.spark a.h14 { height: 14px; }
.spark a.h15 { height: 15px; }
.spark a.h16 { height: 16px; }
.spark a.h17 { height: 17px; }
.spark a.h18 { height: 18px; }
.spark a.h19 { height: 19px; }
.spark a.h20 { height: 20px; }
#compare tr.differs td:first-child { font-weight: 600; }
.crumbs { color: var(--muted); margin: 0; }
.actions { display: flex; gap: 12px; margin: 6px 0; } .actions form { margin: 0; }
.diagnostic { margin: 10px 0; } .diagnostic .message { margin: 4px 0; font-family: ui-monospace, monospace; font-size: 12.5px; }
.diagnostic.error > .message { color: var(--fail); } .diagnostic.warning > .message { color: #9a5b00; } .diagnostic.note { margin-left: 20px; }
pre.yaml { background: #f7f8fb; border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 4px 0; font: 12px/1.45 ui-monospace, monospace; overflow: auto; }
pre.yaml .at { background: #fde2e2; display: inline-block; min-width: 100%; } pre.yaml .around { color: var(--muted); } pre.yaml .caret { color: var(--fail); font-weight: 700; }
.cycle-line { font-family: ui-monospace, monospace; color: var(--fail); font-weight: 600; }
.cycle-graph.plain-graph { align-items: center; gap: 8px; } .cycle-graph .cycle-edge { color: var(--fail); font-weight: 700; }
.cycle-graph .node { background: #fde2e2; border-color: #b42323; }
"""#
}
