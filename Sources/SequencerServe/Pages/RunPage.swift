/// A run: its header, graph, timeline and jobs. The page's script draws the graph and the
/// timeline from the run's data, and follows a running run's events.
struct RunPage {
    let view: RunView
    let focus: String?
    /// The run of the same file before it, to compare with.
    let previous: Int64?
    /// Whether a run that did not succeed can be resumed from here.
    let resumes: Bool

    func html(token: String) -> String {
        let run = view.run
        var body = """
            <section class="run-head" id="run-head" data-run="\(run.id)" data-state="\(HTML.escape(view.state))">
            <h1>Run #\(run.id) <span id="run-state">\(HTML.badge(view.state))</span></h1>
            <p class="path">\(HTML.escape(run.workflow))</p>
            <dl class="facts">\(view.origin.map { "<dt>Submitted from</dt><dd id=\"run-origin\">\(HTML.escape($0))</dd>" } ?? "")\
            <dt>Started</dt><dd>\(HTML.time(run.startedAt))</dd>\
            <dt>Time</dt><dd id="run-duration">\(HTML.duration(run.duration))</dd>\
            <dt>Jobs</dt><dd id="run-jobs">\(view.jobs.count)</dd>\
            <dt>Counts</dt><dd id="run-counts"></dd></dl>

            """
        if let problem = view.fileProblem {
            body += "<p class=\"warning\">The workflow file cannot be read now, so needs and lanes are missing: \(HTML.escape(problem))</p>\n"
        }
        body += actions(token: token)
        body += """
            <p class="critical-line" id="critical-line"></p>
            </section>
            <section class="panel"><h2>Graph</h2>
            <form class="graph-focus" id="graph-focus"><label>Focus on <input name="focus" list="job-names" value="\(HTML.escape(focus ?? ""))" placeholder="a job"></label>\
            <button type="submit">Show</button> <button type="button" id="graph-all">Whole graph</button></form>
            <datalist id="job-names"></datalist>
            <p class="note" id="graph-note"></p>
            <div id="graph" class="graph"></div></section>
            <section class="panel"><h2>Timeline</h2>
            <div class="zoom"><button type="button" id="zoom-out">−</button><button type="button" id="zoom-fit">Fit</button>\
            <button type="button" id="zoom-in">+</button> <span class="legend"><span class="queued-key"></span> queued \
            <span class="running-key"></span> running <span class="critical-key"></span> critical path</span></div>
            <div id="timeline" class="timeline"></div></section>
            <section class="panel"><h2>Jobs</h2>
            <input id="job-filter" type="search" placeholder="Filter jobs">
            <table id="jobs" class="grid"><thead><tr><th>Job</th><th>Status</th><th>Attempts</th><th>Time</th><th>Lane</th></tr></thead><tbody></tbody></table>
            <p class="note" id="jobs-note"></p></section>
            """
        return HTML.page(title: "Run #\(run.id)", page: "run", token: token, body: body, data: RunDocument.json(RunDocument(view)))
    }

    /// Cancel while it runs; resume (after a preview) when it did not succeed.
    private func actions(token: String) -> String {
        let id = view.run.id
        var html = "<p class=\"actions\">"
        if view.state == "running" {
            html += """
                <form method="post" action="/runs/\(id)/cancel" id="cancel-form"><input type="hidden" name="token" value="\(HTML.escape(token))">\
                <button type="submit">Cancel the run</button></form>
                """
        } else if resumes, ResumePreview.resumable(view.state) {
            html += "<a id=\"resume-link\" href=\"/runs/\(id)/resume\">Resume…</a>"
        }
        if let previous {
            html += "<a id=\"compare-link\" href=\"/compare?a=\(previous)&amp;b=\(id)\">Compare with run #\(previous)</a>"
        }
        return html + "</p>\n"
    }
}
