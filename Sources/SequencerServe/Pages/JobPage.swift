import Foundation
import SequencerHistory

/// A job of a run: what it ran, how each attempt ended, and its output.
struct JobPage {
    let view: RunView
    let job: RunView.Job
    /// Its times in the workflow's last runs, oldest first.
    let history: [JobSample]
    /// Whether its history keeps why jobs ran (a journal's does, a queue's does not).
    let keepsChecks: Bool
    /// What each attempt printed (its end), by attempt number.
    let outputs: [Int: AttemptOutput]

    /// The most of an attempt's output the page shows (its end); the download has it all.
    static let shownBytes = 1 << 20

    func html(token: String) -> String {
        let run = view.run
        let record = job.record
        let link = "/runs/\(run.id)"
        var body = """
            <p class="crumbs"><a href="/runs">Runs</a> › <a href="\(link)">Run #\(run.id)</a></p>
            <h1 id="job-name">\(HTML.escape(job.name))</h1>
            <p>\(HTML.badge(job.status))\(record?.error.map { " <span class=\"error\" id=\"job-error\">\(HTML.escape($0))</span>" } ?? "")</p>
            <dl class="facts">
            """
        if let why { body += "<dt>Why</dt><dd id=\"job-why\">\(why)</dd>" }
        if let key = job.restoredFrom {
            body += """
                <dt>Cache</dt><dd id="job-restored">Restored from the shared output cache (key <code>\(HTML.escape(key))</code>): \
                nothing ran; its outputs and printed output are those a run with the same key stored.</dd>
                """
        }
        body += "<dt>Time</dt><dd>\(HTML.duration(record?.duration))</dd>"
        body += "<dt>Attempts</dt><dd id=\"job-attempts\">\(record?.attempts ?? 0)</dd>"
        if let lane = job.lane { body += "<dt>Lane</dt><dd>\(HTML.escape(view.lanes[lane].name))</dd>" }
        if let parent = record?.parent { body += "<dt>Added by</dt><dd>\(jobLink(parent))</dd>" }
        let needs = job.needs.map { jobLink(view.jobs[$0].name) }
        body += "<dt>Needs</dt><dd>\(needs.isEmpty ? "nothing" : needs.joined(separator: ", "))</dd>"
        if let position = view.position(of: job.name) {
            let dependents = view.dependents[position].map { jobLink(view.jobs[$0].name) }
            body += "<dt>Needed by</dt><dd>\(dependents.isEmpty ? "nothing" : dependents.joined(separator: ", "))</dd>"
        }
        if history.count > 1 {
            body += "<dt>Last \(history.count) runs</dt><dd id=\"job-history\">\(ComparePage.sparkline(history))</dd>"
        }
        body += "</dl>\n<p><a href=\"\(link)?focus=\(HTML.escape(HTML.query(job.name)))\">Show in the graph</a></p>\n"
        if let declared = job.declared {
            let source = view.graphRecorded ? "As the run recorded it." : "As the workflow file has it now."
            body += "<h2>Command</h2><p class=\"note\">\(source)</p><pre id=\"job-command\" class=\"command\">\(HTML.escape(declared.run))</pre>\n"
            if let directory = declared.directory { body += "<p>In <code>\(HTML.escape(directory))</code></p>" }
        }
        body += attemptsTable()
        for attempt in job.attempts.reversed() {
            body += output(of: attempt)
        }
        return HTML.page(title: job.name, page: "job", token: token, body: body)
    }

    /// Why the job ran or did not, as HTML: the reason `sequencer run --explain` printed (as
    /// text of its own, `#job-reason`), or why there is none.
    var why: String? {
        guard keepsChecks else { return nil }
        return Self.why(
            status: job.status, ran: !job.attempts.isEmpty, error: record?.error, added: record?.parent != nil,
            reason: record?.reason, checked: view.checked)
    }

    /// ``why`` from its parts: the job's status, whether an attempt of it ended, its error,
    /// whether another job added it, its recorded reason, and whether its run checked jobs.
    static func why(status: String, ran: Bool, error: String?, added: Bool, reason: String?, checked: Bool?) -> String {
        if let reason { return "It ran: <span id=\"job-reason\">\(HTML.escape(reason))</span>" }
        if status == "upToDate" {
            return "It was up to date, so it did not run: its command, environment, inputs and needed jobs were as at its last success, and its outputs as that success left them."
        }
        if status == "pending" { return "It has not started." }
        // Stopped before it started: a needed job failed, or the run was cancelled.
        if !ran, status == "skipped" || status == "cancelled" {
            return "It did not run\(error.map { ": \(HTML.escape($0))" } ?? ".")"
        }
        switch checked {
        case nil: return "Not known: this run was recorded before the journal kept why jobs ran."
        case false?: return "Every job of this run ran: no job of its file declares outputs, so none was checked."
        case true?: return added ? "Its parent job added it, so it ran." : "No reason was recorded."
        }
    }

    private var record: HistoryJob? { job.record }

    private func jobLink(_ name: String) -> String {
        "<a href=\"/runs/\(view.run.id)/job?name=\(HTML.escape(HTML.query(name)))\">\(HTML.escape(name))</a>"
    }

    private func attemptsTable() -> String {
        guard !job.attempts.isEmpty else {
            let why = job.status == "upToDate" ? "It was up to date: nothing ran." : "No attempt has ended yet."
            return "<h2>Attempts</h2><p class=\"note\" id=\"no-attempts\">\(why)</p>\n"
        }
        // A queue's runs say which worker ran each attempt.
        let workers = !job.workers.isEmpty
        var html = "<h2>Attempts</h2><table class=\"grid\" id=\"attempts\"><thead><tr><th>#</th><th>Started</th><th>Time</th><th>Exit</th>"
        html += (workers ? "<th>Worker</th>" : "") + "</tr></thead><tbody>"
        for attempt in job.attempts {
            html += """
                <tr><td>\(attempt.attempt)</td><td>+\(HTML.duration(Double(attempt.startedAt - view.run.startedAt) / 1e9))</td>\
                <td>\(HTML.duration(Double(attempt.endedAt - attempt.startedAt) / 1e9))</td><td>\(HTML.escape(attempt.exit))</td>\
                \(workers ? "<td class=\"worker\">\(HTML.escape(job.workers[attempt.attempt] ?? ""))</td>" : "")</tr>
                """
        }
        return html + "</tbody></table>\n"
    }

    private func output(of attempt: HistoryAttempt) -> String {
        let html = "<section class=\"output\" data-attempt=\"\(attempt.attempt)\"><h2>Output of attempt \(attempt.attempt)</h2>"
        switch outputs[attempt.attempt] ?? .nothing {
        case .nothing:
            return html + "<p class=\"note\">It printed nothing.</p></section>\n"
        case .gone(let why):
            return html + "<p class=\"warning\">\(HTML.escape(why))</p></section>\n"
        case .bytes(let data, let size):
            let raw = "/runs/\(view.run.id)/job/output?name=\(HTML.query(job.name))&attempt=\(attempt.attempt)"
            var html = html + """
                <p class="tools"><input class="output-search" type="search" placeholder="Search the output"> <span class="matches"></span> \
                <a class="raw" href="\(HTML.escape(raw))" download>Download the raw log (\(size) bytes)</a></p>
                """
            if data.count < size { html += "<p class=\"note\">The last \(data.count) bytes of \(size); the download has all of it.</p>" }
            return html + "<pre class=\"log\">\(ANSI.html(String(decoding: data, as: UTF8.self)))</pre></section>\n"
        }
    }
}
