import Foundation
import SequencerOutput
import SequencerWorkflowFile

/// A workflow file as `sequencer check` sees it: its errors and warnings, each with the lines
/// of YAML it points at, and a dependency cycle drawn with its edges marked.
struct WorkflowPage {
    let path: String
    /// The files the page may show: the one `serve` was given and those the journal's runs name.
    let known: [String]

    struct Checked {
        var file: WorkflowFile?
        var errors: [Diagnostic]
        var warnings: [Diagnostic]
    }

    /// Whether `path` names a ninja manifest (`build.ninja`, `rules.ninja`), which `sequencer
    /// ninja` builds and records: not a workflow file to check.
    static func isNinjaManifest(_ path: String) -> Bool { path.hasSuffix(".ninja") }

    static func check(_ path: String) -> Checked {
        if isNinjaManifest(path) { return Checked(file: nil, errors: [], warnings: []) }
        do {
            let file = try WorkflowFile.load(path: path).expandingVariables()
            return Checked(file: file, errors: [], warnings: file.warnings)
        } catch {
            return Checked(file: nil, errors: error.diagnostics, warnings: [])
        }
    }

    /// The cycles among `errors`, each as its jobs in order (`a -> b -> a` gives `[a, b]`).
    static func cycles(in errors: [Diagnostic]) -> [[String]] {
        let prefix = "dependency cycle: "
        return errors.compactMap { error in
            guard error.message.hasPrefix(prefix) else { return nil }
            // Job names have no spaces: " -> " separates them.
            let names = error.message.dropFirst(prefix.count).components(separatedBy: " -> ")
            return names.count > 1 ? Array(names.dropLast()) : nil
        }
    }

    /// The dot text of a cycle: its jobs, and its edges marked.
    static func dot(cycle: [String], number: Int) -> String {
        let quote = dotQuoted
        var lines = [
            "digraph cycle\(number) {", "  rankdir=LR; bgcolor=\"transparent\";",
            "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#fde2e2\", color=\"#b42323\", fontname=\"Helvetica\", fontsize=11];",
        ]
        for (index, name) in cycle.enumerated() {
            lines.append("  c\(index) [id=\"cycle\(number)-job-\(index)\", class=\"cycle-job\", label=\(quote(name))];")
        }
        for index in cycle.indices {
            let next = (index + 1) % cycle.count
            lines.append("  c\(index) -> c\(next) [id=\"cycle\(number)-edge-\(index)\", class=\"cycle-edge\", color=\"#d23c3c\", penwidth=2];")
        }
        return lines.joined(separator: "\n") + "\n}\n"
    }

    /// The most jobs the page draws a file's graph of (`sequencer graph` prints any).
    static let drawnJobs = 200

    /// - Parameter graphSVG: Graphviz's drawing of the file's graph, when it has no errors and
    ///   Graphviz is in use; else the page lists each job's needs.
    func html(token: String, checked: Checked, cycleSVGs: [String?], graphSVG: String? = nil) -> String {
        var body = "<h1>Workflow</h1>"
        if known.count > 1 {
            body += "<form class=\"filters\" method=\"get\" action=\"/workflow\"><label>File <select name=\"file\">"
            for name in known {
                body += "<option value=\"\(HTML.escape(name))\"\(name == path ? " selected" : "")>\(HTML.escape(name))</option>"
            }
            body += "</select></label> <button type=\"submit\">Check</button></form>"
        }
        body += "<p class=\"path\" id=\"workflow-path\">\(HTML.escape(path))</p>"
        if Self.isNinjaManifest(path) {
            // Not a workflow file: `sequencer ninja` builds it, and each build's graph is
            // recorded with its run.
            body += "<p id=\"workflow-summary\">A ninja manifest, built by <code>sequencer ninja</code>: each build's graph, "
                + "timeline and critical path are on its run's page.</p>"
            return HTML.page(title: "Workflow", page: "workflow", token: token, body: body)
        }
        if let file = checked.file {
            let lanes = file.lanes.isEmpty ? "" : ", \(file.lanes.count) lane\(file.lanes.count == 1 ? "" : "s")"
            body += "<p id=\"workflow-summary\">\(HTML.badge("succeeded")) No errors: \(file.jobs.count) job\(file.jobs.count == 1 ? "" : "s")\(lanes).</p>"
            body += Self.graph(of: file, svg: graphSVG)
        } else {
            body += "<p id=\"workflow-summary\">\(HTML.badge("failed")) \(checked.errors.count) error\(checked.errors.count == 1 ? "" : "s"): it cannot run.</p>"
        }
        for (number, cycle) in Self.cycles(in: checked.errors).enumerated() {
            body += "<section class=\"panel cycle\" data-cycle=\"\(number)\"><h2>Dependency cycle</h2>"
            body += "<p class=\"cycle-line\">\(HTML.escape((cycle + [cycle[0]]).joined(separator: " -> ")))</p>"
            if number < cycleSVGs.count, let svg = cycleSVGs[number] {
                body += "<div class=\"graph cycle-graph\" data-layout=\"graphviz\">\(svg)</div>"
            } else {
                // Without Graphviz: the ring as a row of jobs and marked arrows.
                body += "<div class=\"graph cycle-graph plain-graph\" data-layout=\"plain\">"
                for (index, name) in (cycle + [cycle[0]]).enumerated() {
                    if index > 0 { body += "<span class=\"cycle-edge\" id=\"cycle\(number)-edge-\(index - 1)\">→</span>" }
                    body += "<span class=\"node cycle-job\">\(HTML.escape(name))</span>"
                }
                body += "</div>"
            }
            body += "</section>"
        }
        for (kind, diagnostics) in [("Errors", checked.errors), ("Warnings", checked.warnings)] where !diagnostics.isEmpty {
            body += "<section class=\"panel\"><h2>\(kind)</h2>"
            for diagnostic in diagnostics { body += Self.describe(diagnostic) }
            body += "</section>"
        }
        return HTML.page(title: "Workflow", page: "workflow", token: token, body: body)
    }

    /// The file's job graph: Graphviz's drawing, or else each job with what it needs.
    static func graph(of file: WorkflowFile, svg: String?) -> String {
        var html = "<section class=\"panel\"><h2>Graph</h2>"
        if file.jobs.count > drawnJobs {
            return html + "<p class=\"note\" id=\"workflow-graph-note\">\(file.jobs.count) jobs: more than the \(drawnJobs) drawn here. `sequencer graph` prints the whole graph.</p></section>"
        }
        if let svg { return html + "<div id=\"workflow-graph\" class=\"graph\" data-layout=\"graphviz\">\(svg)</div></section>" }
        html += "<table id=\"workflow-graph\" class=\"grid\" data-layout=\"plain\"><thead><tr><th>Job</th><th>Needs</th><th>Lane</th></tr></thead><tbody>"
        for job in file.jobs {
            html += "<tr><td>\(HTML.escape(job.name))</td><td>\(HTML.escape(job.needs.map(\.name).joined(separator: ", ")))</td><td>\(HTML.escape(job.lane ?? ""))</td></tr>"
        }
        return html + "</tbody></table></section>"
    }

    /// `file:line:column: error: message`, the lines around it with the column marked, then
    /// its notes likewise.
    static func describe(_ diagnostic: Diagnostic) -> String {
        var html = "<div class=\"diagnostic \(diagnostic.severity.rawValue)\"><p class=\"message\">\(HTML.escape(diagnostic.description.components(separatedBy: "\n")[0]))</p>"
        html += quote(diagnostic)
        for note in diagnostic.notes {
            html += "<div class=\"diagnostic note\"><p class=\"message\">\(HTML.escape("\(note.file):\(note.location): note: \(note.message)"))</p>\(quote(note))</div>"
        }
        return html + "</div>"
    }

    /// The line a diagnostic points at, with the one before and after, and a caret under its column.
    static func quote(_ diagnostic: Diagnostic) -> String {
        guard let text = try? String(contentsOfFile: diagnostic.file, encoding: .utf8) else { return "" }
        let lines = text.components(separatedBy: "\n")
        let line = diagnostic.location.line
        guard line >= 1, line <= lines.count else { return "" }
        var html = "<pre class=\"yaml\">"
        for number in max(1, line - 1)...min(lines.count, line + 1) {
            let marked = number == line
            html += "<span class=\"\(marked ? "at" : "around")\" data-line=\"\(number)\">\(String(format: "%4d", number)) | \(HTML.escape(lines[number - 1]))</span>\n"
            if marked {
                html += "<span class=\"caret\">     | \(String(repeating: " ", count: max(0, diagnostic.location.column - 1)))^</span>\n"
            }
        }
        return html + "</pre>"
    }
}
