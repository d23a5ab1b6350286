import SequencerHistory

/// The list of runs: filters in the URL, one indexed page at a time.
struct RunsPage {
    let page: SequencerHistory.RunsPage
    /// The states the history filters by.
    let states: [String]
    let workflow: String?
    let state: String?
    let before: Int64?

    func html(token: String) -> String {
        var body = "<h1>Runs</h1>\n<form class=\"filters\" method=\"get\" action=\"/runs\">"
        body += "<label>Workflow <select name=\"workflow\"><option value=\"\">all</option>"
        for name in page.workflows {
            body += "<option value=\"\(HTML.escape(name))\"\(name == workflow ? " selected" : "")>\(HTML.escape(name))</option>"
        }
        body += "</select></label> <label>State <select name=\"state\"><option value=\"\">all</option>"
        for name in states {
            body += "<option value=\"\(name)\"\(name == state ? " selected" : "")>\(HTML.words(name))</option>"
        }
        body += "</select></label> <button type=\"submit\">Filter</button></form>\n"
        body += "<p class=\"count\" id=\"run-count\">\(page.total) run\(page.total == 1 ? "" : "s")</p>\n"
        guard !page.runs.isEmpty else {
            let none = workflow == nil && state == nil && before == nil
            let empty = none ? "No runs yet: <code>sequencer run</code> records them here." : "No runs match."
            return HTML.page(title: "Runs", page: "runs", token: token, body: body + "<p class=\"empty\" id=\"no-runs\">\(empty)</p>")
        }
        body += """
            <table id="runs" class="grid"><thead><tr><th>Run</th><th>State</th><th>Started</th><th>Time</th>\
            <th>Jobs</th><th>Ran</th><th>Up to date</th><th>Failed</th><th>Retried</th><th>Workflow</th></tr></thead><tbody>

            """
        for run in page.runs {
            let counts = run.counts
            body += """
                <tr data-run="\(run.id)" data-state="\(run.state)"><td><a href="/runs/\(run.id)">#\(run.id)</a></td>\
                <td>\(HTML.badge(run.state.rawValue))</td><td>\(HTML.time(run.startedAt))</td>\
                <td class="num" data-seconds="\(run.duration.map { String($0) } ?? "")">\(HTML.duration(run.duration))</td>\
                <td class="num" data-key="jobs">\(counts.jobs)</td><td class="num" data-key="ran">\(counts.ran)</td>\
                <td class="num" data-key="upToDate">\(counts.upToDate)</td>\
                <td class="num" data-key="failed">\(counts.failures)</td>\
                <td class="num" data-key="retried">\(counts.retried.map { "\($0)" } ?? "–")</td><td class="path">\(HTML.escape(run.workflow))</td></tr>

                """
        }
        body += "</tbody></table>\n<nav class=\"pages\">"
        if before != nil { body += "<a id=\"newest\" href=\"\(link(before: nil))\">« Newest</a> " }
        if let older = page.older { body += "<a id=\"older\" href=\"\(link(before: older))\">Older »</a>" }
        body += "</nav>"
        return HTML.page(title: "Runs", page: "runs", token: token, body: body)
    }

    private func link(before: Int64?) -> String {
        var parts: [String] = []
        if let workflow { parts.append("workflow=" + HTML.query(workflow)) }
        if let state { parts.append("state=" + HTML.query(state)) }
        if let before { parts.append("before=\(before)") }
        return HTML.escape("/runs" + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&")))
    }
}
