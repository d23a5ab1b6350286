/// What resuming a run would run, before the user confirms: every job that did not succeed
/// (or was not up to date), as `sequencer resume` decides.
struct ResumePreview {
    let view: RunView

    static func resumable(_ state: String) -> Bool { state != "running" && state != "succeeded" }

    /// The jobs that would run again, in the run's order.
    var again: [RunView.Job] {
        view.jobs.filter { $0.record?.parent == nil && $0.status != "succeeded" && $0.status != "upToDate" }
    }

    func html(token: String) -> String {
        let run = view.run
        var body = "<p class=\"crumbs\"><a href=\"/runs\">Runs</a> › <a href=\"/runs/\(run.id)\">Run #\(run.id)</a></p><h1>Resume run #\(run.id)?</h1>"
        guard Self.resumable(view.state) else {
            return HTML.page(
                title: "Resume", page: "resume", token: token,
                body: body + "<p id=\"resume-refused\">Run #\(run.id) \(view.state == "running" ? "is running" : "succeeded"): there is nothing to resume.</p>")
        }
        let again = self.again
        body += "<p>\(again.count) job\(again.count == 1 ? "" : "s") will run again; the \(view.jobs.count - again.count) that succeeded or were up to date are kept.</p>"
        body += "<ul id=\"resume-jobs\">"
        for job in again.prefix(1000) {
            body += "<li data-job=\"\(HTML.escape(job.name))\">\(HTML.escape(job.name)) \(HTML.badge(job.status))</li>"
        }
        body += "</ul>"
        if again.count > 1000 { body += "<p class=\"note\">and \(again.count - 1000) more.</p>" }
        body += """
            <form method="post" action="/runs/\(run.id)/resume" id="resume-form"><input type="hidden" name="token" value="\(HTML.escape(token))">\
            <button type="submit">Resume</button> <a href="/runs/\(run.id)">Back</a></form>
            """
        return HTML.page(title: "Resume run #\(run.id)", page: "resume", token: token, body: body)
    }
}
