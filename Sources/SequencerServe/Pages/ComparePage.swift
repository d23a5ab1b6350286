/// Two runs side by side: the jobs whose status, fingerprint or time differ (all of them on
/// request), each with why it ran in the later run and its times over the workflow's last runs.
struct ComparePage {
    let before: RunView
    let after: RunView
    let differences: [JobDifference]
    let showAll: Bool
    let history: (runs: [Int64], samples: [String: [JobSample]])

    static let historyRuns = 20
    static let shownRows = 500

    func html(token: String) -> String {
        let (a, b) = (before.run.id, after.run.id)
        var body = "<p class=\"crumbs\"><a href=\"/runs\">Runs</a> › <a href=\"/runs/\(b)\">Run #\(b)</a></p>"
        body += "<h1>Run #\(a) → run #\(b)</h1>"
        body += "<p>\(HTML.badge(before.state)) \(HTML.duration(before.run.duration)) → \(HTML.badge(after.state)) \(HTML.duration(after.run.duration))</p>"
        if before.run.workflow != after.run.workflow {
            body += "<p class=\"warning\">They are runs of different files: \(HTML.escape(before.run.workflow)) and \(HTML.escape(after.run.workflow)).</p>"
        }
        let shown = showAll ? differences : differences.filter(\.differs)
        let toggle = showAll ? "Only the jobs that differ" : "All \(differences.count) jobs"
        body += "<p id=\"compare-count\">\(differences.filter(\.differs).count) of \(differences.count) jobs differ. "
        body += "<a href=\"/compare?a=\(a)&amp;b=\(b)\(showAll ? "" : "&amp;all=1")\">\(toggle)</a></p>"
        body += """
            <table class="grid" id="compare"><thead><tr><th>Job</th><th>#\(a)</th><th>#\(b)</th><th>Time #\(a)</th><th>Time #\(b)</th>\
            <th>Change</th><th>Fingerprint</th><th>Why it ran in #\(b)</th><th>Last \(history.runs.count) runs</th></tr></thead><tbody>
            """
        for difference in shown.prefix(Self.shownRows) {
            body += row(difference)
        }
        body += "</tbody></table>"
        if shown.count > Self.shownRows { body += "<p class=\"note\">The first \(Self.shownRows) of \(shown.count).</p>" }
        return HTML.page(title: "Run #\(a) → #\(b)", page: "compare", token: token, body: body)
    }

    private func row(_ difference: JobDifference) -> String {
        let name = HTML.escape(difference.name)
        let link = "/runs/\(after.run.id)/job?name=\(HTML.escape(HTML.query(difference.name)))"
        var change = ""
        if let x = difference.before?.duration, let y = difference.after?.duration, abs(y - x) >= 0.005 {
            change = (y >= x ? "+" : "−") + HTML.duration(abs(y - x))
        }
        return """
            <tr data-job="\(name)"\(difference.differs ? " class=\"differs\"" : "")><td><a href="\(link)">\(name)</a></td>\
            <td>\(difference.before.map { HTML.badge($0.status) } ?? "—")</td><td>\(difference.after.map { HTML.badge($0.status) } ?? "—")</td>\
            <td class="num">\(HTML.duration(difference.before?.duration))</td><td class="num">\(HTML.duration(difference.after?.duration))</td>\
            <td class="num">\(change)</td><td class="fingerprint">\(fingerprint(difference))</td>\
            <td class="reason">\(HTML.escape(difference.reason ?? ""))</td><td>\(Self.sparkline(history.samples[difference.name] ?? []))</td></tr>

            """
    }

    /// "changed", "same", or "—" when either run's is not known; the fingerprints in its title.
    private func fingerprint(_ difference: JobDifference) -> String {
        guard let a = difference.fingerprints.before, let b = difference.fingerprints.after else { return "—" }
        let title = HTML.escape("#\(before.run.id): \(a)\n#\(after.run.id): \(b)")
        return "<span title=\"\(title)\">\(a == b ? "same" : "<strong>changed</strong>")</span>"
    }

    /// A job's times as bars, tallest the longest, coloured by status, each linking its run.
    static func sparkline(_ samples: [JobSample]) -> String {
        let longest = samples.compactMap(\.duration).max() ?? 0
        var html = "<span class=\"spark\">"
        for sample in samples {
            let height = longest > 0 ? max(2, Int(((sample.duration ?? 0) / longest * 20).rounded())) : 2
            html += "<a class=\"h\(height) st-\(HTML.escape(sample.status))\" href=\"/runs/\(sample.run)\" title=\"#\(sample.run): \(HTML.escape(HTML.words(sample.status))) \(HTML.duration(sample.duration))\"></a>"
        }
        return html + "</span>"
    }
}
