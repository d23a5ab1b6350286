import Foundation
@testable import SequencerServe
import Testing

/// The run page in a real Chromium: an older run resumed from it, a job named like a
/// character reference, durations, the critical path's line and the graph's size.
extension BrowserTests {
    /// Run 1 fails, run 2 succeeds, then run 1 is resumed from its page: the page shows it
    /// running (as `runs --json` does) and follows it to its success without a reload.
    @Test func aResumedOlderRunIsShownRunningAndFollowedToItsEnd() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", """
            version: 1
            jobs:
              work:
                run: if [ -e fail ]; then exit 3; fi; if [ -e hold ]; then while [ ! -e go ]; do sleep 0.05; done; fi; echo done

            """)
        try workspace.write("fail", "")
        #expect(try await workspace.sequencer("run").status == 1)
        try FileManager.default.removeItem(atPath: workspace.path("fail"))
        #expect(try await workspace.sequencer("run").status == 0)
        try workspace.write("hold", "")

        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs/1/resume")
            try await browser.wait(for: "the preview", until: "return document.body.dataset.page === 'resume';")
            try await browser.run("document.getElementById('resume-form').submit();")
            try await browser.wait(for: "run 1's page, running", limit: .seconds(30), until: """
                return document.body.dataset.page === 'run' && document.getElementById('run-head').dataset.state === 'running';
                """)
            let listed = try await workspace.sequencer("runs", "--json")
            let runs = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(runs.first { $0["id"] as? Int == 1 }?["state"] as? String == "running")
            #expect(runs.first { $0["id"] as? Int == 2 }?["state"] as? String == "succeeded")

            try workspace.write("go", "")
            try await browser.wait(for: "the page to follow run 1 to its success", limit: .seconds(30), until: """
                return document.getElementById('run-head').dataset.state === 'succeeded';
                """)
            #expect(try await browser.run("return document.querySelector('#run-state .badge').textContent;") as? String == "succeeded")
        }
    }

    /// A job named `&lt;amp&gt;` shows as named in the graph as everywhere else, with
    /// Graphviz and without.
    @Test(arguments: [false, true])
    func aJobNamedLikeACharacterReferenceShowsAsNamedInTheGraph(withoutGraphviz: Bool) async throws {
        let workspace = try Workspace()
        let name = "&lt;amp&gt;"
        let jobs = [(name: "first", needs: [String]()), (name: name, needs: ["first"])]
        let file = try workspace.write("app.yml", Workspace.workflowText(jobs))
        _ = try await workspace.recordLibraryRun(workflow: file, jobs: jobs)
        try await withPage(journal: workspace.journal, serveArguments: withoutGraphviz ? ["--no-graphviz"] : []) { browser, served in
            try await browser.go(served.base + "/runs/1")
            try await browser.wait(for: "the graph", until: "return document.getElementById('graph').dataset.ready === 'true';")
            let shown = try #require(try await browser.run("""
                const node = [...document.querySelectorAll('#graph [id^="job-"]')].find(n => n.id === 'job-1');
                return { layout: document.getElementById('graph').dataset.layout,
                         graph: node ? (node.querySelector('text') || node.querySelector('.name')).textContent.trim() : null,
                         table: document.querySelector('#jobs tbody tr[data-job="1"] a').textContent,
                         panel: document.getElementById('graph').clientWidth,
                         drawn: document.querySelector('#graph svg').getBoundingClientRect().width };
                """) as? [String: Any])
            #expect(shown["layout"] as? String == (withoutGraphviz ? "plain" : "graphviz"))
            #expect(shown["graph"] as? String == name)
            #expect(shown["table"] as? String == name)
            guard !withoutGraphviz else { return }
            // Two jobs drawn at Graphviz's size fill a sixth of the panel: scaled, most of it.
            let panel = try #require(shown["panel"] as? Double ?? (shown["panel"] as? Int).map(Double.init))
            let drawn = try #require(shown["drawn"] as? Double ?? (shown["drawn"] as? Int).map(Double.init))
            #expect(drawn > panel * 0.8, "the graph is \(drawn) px wide in a panel of \(panel) px")
            try await screenshot(browser, "run-small-graph")
        }
    }

    /// Every job's time in the table is the shared formatter's (`5ms`, not `0.00s`); the
    /// critical path's line breaks between steps only, never inside a job's name.
    @Test func durationsFitTheirUnitAndTheCriticalPathWrapsBetweenSteps() async throws {
        let workspace = try Workspace()
        let jobs = (0..<14).map { index in (name: "a-rather-long-job-name-number-\(index)", needs: index == 0 ? [String]() : ["a-rather-long-job-name-number-\(index - 1)"]) }
        let file = try workspace.write("chain.yml", Workspace.workflowText(jobs))
        _ = try await workspace.recordLibraryRun(workflow: file, jobs: jobs)
        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs/1")
            try await browser.wait(for: "the graph", until: "return document.getElementById('graph').dataset.ready === 'true';")
            let page = try #require(try await browser.run("""
                const data = JSON.parse(document.getElementById('page-data').textContent);
                const line = document.getElementById('critical-line');
                return { rows: [...document.querySelectorAll('#jobs tbody tr')].map(row => {
                           const job = data.jobs[Number(row.dataset.job)];
                           return [job.end - job.start, row.children[3].textContent]; }),
                         stepLines: [...line.querySelectorAll('.crit-step')].map(step => step.getClientRects().length),
                         lineHeight: line.getBoundingClientRect().height,
                         stepHeight: line.querySelector('.crit-step').getBoundingClientRect().height };
                """) as? [String: Any])
            let rows = try #require(page["rows"] as? [[Any]])
            #expect(rows.count == jobs.count)
            for row in rows {
                let milliseconds = try #require(row.first as? Double ?? (row.first as? Int).map(Double.init))
                #expect(row.last as? String == HTML.duration(milliseconds / 1000))
                #expect(row.last as? String != "0.00s")
            }
            // Each step on one line, and the path on several (it is longer than the page is wide).
            let stepLines = try #require(page["stepLines"] as? [Int])
            #expect(stepLines.count == 10 && stepLines.allSatisfy { $0 == 1 })
            let lineHeight = try #require(page["lineHeight"] as? Double)
            let stepHeight = try #require(page["stepHeight"] as? Double)
            #expect(lineHeight > stepHeight * 1.5)
        }
    }
}
