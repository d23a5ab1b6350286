import Foundation
import SequencerQueue

/// The queue page: its depth by kind, lane and state, its workers, its last hour, its newest
/// failures and live jobs with their actions, a form to enqueue, and the log of actions.
struct QueuePage {
    let snapshot: QueueSnapshot
    /// The queue's location, as it may be shown.
    let location: String

    func html(token: String) -> String {
        let body = [summary(), depth(), chart(), workers(), failures(token: token), live(token: token), enqueue(token: token), actions()]
        return HTML.page(title: "Queue", page: "queue", token: token, body: body.joined(separator: "\n"))
    }

    private var now: Int64 { snapshot.now }

    private func age(since milliseconds: Int64) -> String { HTML.duration(Double(max(0, now - milliseconds)) / 1000) }

    private func time(_ milliseconds: Int64?) -> String { milliseconds.map { HTML.time($0 * 1_000_000) } ?? "-" }

    private func summary() -> String {
        let gauges = snapshot.gauges
        var totals: [QueueGauges.State: Int] = [:]
        for counts in gauges.depth.values { totals.merge(counts, uniquingKeysWith: +) }
        let oldest = gauges.oldestAvailableSince.values.min()
        return """
            <h1>Queue</h1><p class="path" id="queue-location">\(HTML.escape(location))</p>
            <dl class="facts" id="queue-summary">\
            \(QueueGauges.State.allCases.map { "<dt>\($0.rawValue)</dt><dd data-state=\"\($0.rawValue)\">\(totals[$0] ?? 0)</dd>" }.joined())\
            <dt>oldest available</dt><dd id="oldest-age" data-seconds="\(oldest.map { String(Double(max(0, now - $0)) / 1000) } ?? "")">\
            \(oldest.map { age(since: $0) } ?? "none waits")</dd>\
            <dt>workers alive</dt><dd id="workers-alive">\(gauges.workersAlive)</dd></dl>
            """
    }

    private func depth() -> String {
        guard !snapshot.gauges.depth.isEmpty else { return "<h2>Depth</h2><p class=\"empty\" id=\"no-depth\">No live jobs.</p>" }
        var html = """
            <h2>Depth</h2><table id="depth" class="grid"><thead><tr><th>Kind</th><th>Lane</th>\
            \(QueueGauges.State.allCases.map { "<th>\($0.rawValue)</th>" }.joined())<th>Oldest available</th></tr></thead><tbody>

            """
        for (group, counts) in snapshot.gauges.depth.sorted(by: { $0.key < $1.key }) {
            let oldest = snapshot.gauges.oldestAvailableSince[group]
            html += """
                <tr data-kind="\(HTML.escape(group.kind))" data-lane="\(HTML.escape(group.lane))"><td>\(HTML.escape(group.kind))</td>\
                <td>\(HTML.escape(group.lane.isEmpty ? "–" : group.lane))</td>\
                \(QueueGauges.State.allCases.map { "<td class=\"num\" data-state=\"\($0.rawValue)\">\(counts[$0] ?? 0)</td>" }.joined())\
                <td class="num">\(oldest.map { age(since: $0) } ?? "–")</td></tr>

                """
        }
        return html + "</tbody></table>"
    }

    private func chart() -> String {
        "<h2>The last hour</h2><div class=\"panel chart-panel\">\(QueueChart(endings: snapshot.endings, now: now).svg())"
            + "<p class=\"legend\"><span class=\"ok-key\"></span>succeeded <span class=\"fail-key\"></span>failed "
            + "<span class=\"other-key\"></span>cancelled or skipped</p></div>"
    }

    private func workers() -> String {
        guard !snapshot.workers.isEmpty else { return "<h2>Workers</h2><p class=\"empty\" id=\"no-workers\">No worker is alive.</p>" }
        var html = """
            <h2>Workers</h2><table id="workers" class="grid"><thead><tr><th>Worker</th><th>Host</th><th>PID</th><th>Started</th>\
            <th>Last beat</th><th>Holding</th><th>Kinds</th><th>Running</th></tr></thead><tbody>

            """
        for worker in snapshot.workers {
            let running = (snapshot.held[worker.owner] ?? []).map { "<span class=\"job-id\">\($0.id) \(HTML.escape($0.kind))</span>" }
            html += """
                <tr data-owner="\(HTML.escape(worker.owner))"><td class="path">\(HTML.escape(worker.owner))</td><td>\(HTML.escape(worker.host))</td>\
                <td class="num">\(worker.pid)</td><td>\(time(worker.startedAt))</td><td>\(age(since: worker.beatAt)) ago</td>\
                <td class="num" data-key="holding">\(worker.holding)</td><td>\(HTML.escape(worker.kinds.joined(separator: ", ")))</td>\
                <td>\(running.joined(separator: " "))</td></tr>

                """
        }
        return html + "</tbody></table>"
    }

    private func failures(token: String) -> String {
        let shown = snapshot.failed.prefix(QueueSnapshot.shown)
        guard !shown.isEmpty else {
            return "<h2>Failed jobs</h2><p class=\"empty\" id=\"no-failures\">\(snapshot.failedBefore == nil ? "No job failed." : "No older failures.")</p>"
        }
        var html = """
            <h2>Failed jobs</h2><table id="failed" class="grid"><thead><tr><th>Job</th><th>Kind</th><th>Lane</th><th>Attempts</th>\
            <th>Ended</th><th>Error</th><th></th></tr></thead><tbody>

            """
        for job in shown {
            html += """
                <tr data-job="\(job.id.rawValue)"><td>\(job.id)</td><td>\(HTML.escape(job.kind))</td><td>\(HTML.escape(job.lane ?? "–"))</td>\
                <td class="num">\(job.attempts)</td><td>\(time(job.endedAt))</td>\
                <td class="error-text"><code>\(HTML.escape(job.errorCode ?? ""))</code> \(HTML.escape(job.error ?? ""))</td>\
                <td class="actions">\(form(job.id, "retry", "Retry", token: token))\(form(job.id, "discard", "Discard", token: token))</td></tr>

                """
        }
        html += "</tbody></table>"
        if snapshot.failed.count > QueueSnapshot.shown, let last = shown.last {
            html += "<nav class=\"pages\"><a id=\"older-failures\" href=\"/queue?failed_before=\(last.id.rawValue)#failed\">Older »</a></nav>"
        }
        return html
    }

    private func live(token: String) -> String {
        guard !snapshot.live.isEmpty else { return "<h2>Live jobs</h2><p class=\"empty\" id=\"no-live\">No live jobs.</p>" }
        var html = """
            <h2>Live jobs</h2><p class="note">The newest \(QueueSnapshot.shown) at most. Cancelling a running job asks its worker to stop it.</p>
            <table id="live" class="grid"><thead><tr><th>Job</th><th>Kind</th><th>Lane</th><th>State</th><th>Enqueued</th>\
            <th>Worker</th><th></th></tr></thead><tbody>

            """
        for job in snapshot.live {
            html += """
                <tr data-job="\(job.id.rawValue)" data-state="\(job.state)"><td>\(job.id)</td><td>\(HTML.escape(job.kind))</td>\
                <td>\(HTML.escape(job.lane ?? "–"))</td><td>\(HTML.badge(job.state == .available && job.runAt > now ? "scheduled" : "\(job.state)"))</td>\
                <td>\(time(job.enqueuedAt))</td><td class="path">\(HTML.escape(job.owner ?? ""))</td>\
                <td class="actions">\(form(job.id, "cancel", "Cancel", token: token))</td></tr>

                """
        }
        return html + "</tbody></table>"
    }

    private func enqueue(token: String) -> String {
        let kinds = snapshot.kinds
        guard !kinds.isEmpty else {
            return "<h2>Enqueue</h2><p class=\"empty\" id=\"no-kinds\">No worker is alive to say which kinds it runs.</p>"
        }
        return """
            <h2>Enqueue</h2><form method="post" action="/queue/enqueue" id="enqueue-form" class="panel enqueue">\
            <input type="hidden" name="token" value="\(HTML.escape(token))">\
            <label>Kind <select name="kind">\(kinds.map { "<option>\(HTML.escape($0))</option>" }.joined())</select></label>\
            <label>Key <input name="key" placeholder="none"></label>\
            <label class="wide">Input (JSON) <textarea name="input" rows="4" spellcheck="false">{}</textarea></label>\
            <button type="submit">Enqueue</button></form>
            """
    }

    private func actions() -> String {
        guard !snapshot.actions.isEmpty else { return "<h2>Actions</h2><p class=\"empty\" id=\"no-actions\">No action was taken from this page.</p>" }
        var html = """
            <h2>Actions</h2><table id="actions" class="grid"><thead><tr><th>When</th><th>Action</th><th>Job</th><th>Who</th>\
            <th>From</th><th>Result</th></tr></thead><tbody>

            """
        for action in snapshot.actions {
            html += """
                <tr data-action="\(HTML.escape(action.action))"><td>\(time(action.at))</td><td>\(HTML.escape(action.action))</td>\
                <td>\(action.job.map { "\($0)" } ?? "–")</td><td>\(HTML.escape(action.who))</td><td>\(HTML.escape(action.address))</td>\
                <td class="result">\(HTML.escape(action.result))</td></tr>

                """
        }
        return html + "</tbody></table>"
    }

    private func form(_ id: DurableJobID, _ action: String, _ label: String, token: String) -> String {
        """
        <form method="post" action="/queue/jobs/\(id.rawValue)/\(action)" class="inline"><input type="hidden" name="token" \
        value="\(HTML.escape(token))"><button type="submit" data-action="\(action)">\(label)</button></form>
        """
    }
}
