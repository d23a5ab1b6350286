import Foundation
import Testing

/// The pages in a real headless Chromium: what a user sees and does, checked in the page.
@Suite(.serialized, .enabled(if: Browser.enabled, "needs chromium and chromium-driver"))
struct BrowserTests {
    /// Opens a browser on a server of `journal`, runs `body`, then checks that no request
    /// left 127.0.0.1 and that the page logged no error, and stops both.
    func withPage(journal: String, serveArguments: [String] = [], _ body: (Browser, Served) async throws -> Void) async throws {
        try await withPage(serving: ["--journal", journal] + serveArguments, body)
    }

    /// ``withPage(journal:serveArguments:_:)`` with `sequencer-serve ARGUMENTS`.
    func withPage(serving arguments: [String], _ body: (Browser, Served) async throws -> Void) async throws {
        let served = try await Served(arguments: arguments)
        defer { served.stop() }
        let browser = try await Browser()
        do {
            try await body(browser, served)
            let urls = try await browser.requestedURLs()
            #expect(!urls.isEmpty)
            // Chromium's own pages (chrome://, its new tab page) never reach the network.
            let schemes = ["http:", "https:", "ws:", "wss:", "ftp:"]
            let network = urls.filter { url in schemes.contains { url.lowercased().hasPrefix($0) } }
            #expect(network.contains { $0.hasPrefix(served.base + "/") })
            let elsewhere = network.filter { !$0.hasPrefix(served.base + "/") }
            #expect(elsewhere.isEmpty, "requests that left \(served.base): \(elsewhere)")
            let errors = try await browser.consoleMessages().filter { $0.contains("SEVERE") || $0.lowercased().contains("error") }
            #expect(errors.isEmpty, "the page logged: \(errors)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// Keeps a screenshot when `SEQUENCER_SCREENSHOTS` names a directory (Docs/CommandLine.md's
    /// pictures come from `SEQUENCER_SCREENSHOTS=Docs/screenshots swift test --filter BrowserTests`).
    func screenshot(_ browser: Browser, _ name: String) async throws {
        guard let directory = ProcessInfo.processInfo.environment["SEQUENCER_SCREENSHOTS"] else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await browser.screenshot().write(to: URL(fileURLWithPath: directory).appendingPathComponent(name + ".png"))
    }

    static let smallWorkflow = """
        version: 1
        lanes:
          net: 1
        jobs:
          setup:
            run: echo "setting up"; sleep 0.2
          fetch-a:
            needs: [setup]
            lane: net
            run: printf '\\033[32mfetched\\033[0m a, \\033[1;31mone warning\\033[0m\\n'; sleep 0.3
          fetch-b:
            needs: [setup]
            lane: net
            run: echo b; sleep 0.2
          check:
            needs: [setup]
            run: if [ -e fail ]; then echo "check failed" >&2; exit 3; fi; echo fine
          build:
            needs: [fetch-a, fetch-b, check]
            run: echo building; sleep 0.3

        """

    /// The small workflow run three times: it succeeds, fails (`check` exits 3), succeeds.
    static func threeRuns(lastArguments: [String]) async throws -> Workspace {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", smallWorkflow)
        #expect(try await workspace.sequencer("run").status == 0)
        try workspace.write("fail", "")
        #expect(try await workspace.sequencer("run").status == 1)
        try FileManager.default.removeItem(atPath: workspace.path("fail"))
        #expect(try await Served.sequencer(lastArguments, in: workspace.directory).status == 0)
        return workspace
    }

    @Test func theRunsTableIsWhatRunsJSONSays() async throws {
        let workspace = try await Self.threeRuns(lastArguments: ["run"])
        let listed = try await workspace.sequencer("runs", "--json", "--all", "--limit", "100")
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(expected.count == 3)

        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs")
            let rows = try #require(try await browser.run("""
                return [...document.querySelectorAll('#runs tbody tr')].map(row => ({
                  id: Number(row.dataset.run), state: row.dataset.state,
                  seconds: Number(row.querySelector('[data-seconds]').dataset.seconds),
                  jobs: Number(row.querySelector('[data-key=jobs]').textContent),
                  failed: Number(row.querySelector('[data-key=failed]').textContent),
                  workflow: row.querySelector('.path').textContent }));
                """) as? [[String: Any]])
            #expect(rows.count == expected.count)
            for (row, run) in zip(rows, expected) {
                #expect(row["id"] as? Int == run["id"] as? Int)
                #expect(row["state"] as? String == run["state"] as? String)
                #expect(row["jobs"] as? Int == run["jobs"] as? Int)
                #expect(row["failed"] as? Int == (run["failed"] as? Int ?? 0) + (run["timedOut"] as? Int ?? 0))
                #expect(row["workflow"] as? String == run["workflow"] as? String)
                let seconds = try #require(row["seconds"] as? Double)
                #expect(abs(seconds - (run["duration"] as? Double ?? -1)) < 0.001)
            }
            try await screenshot(browser, "runs")

            // The filter is in the URL, and keeps only failed runs.
            try await browser.go(served.base + "/runs?state=failed")
            let states = try await browser.run("return [...document.querySelectorAll('#runs tbody tr')].map(r => r.dataset.state);") as? [String]
            #expect(states == ["failed"])
        }
    }

    @Test func theCriticalPathIsTheReportsOnGraphAndTimeline() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", Self.smallWorkflow)
        let run = try await workspace.sequencer("run")
        #expect(run.status == 0)
        // `critical path (1.0s): setup 0.2s -> fetch-a 0.3s -> fetch-b 0.2s (waited …) -> build 0.3s`
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("critical path") })
        let steps = try #require(line.split(separator: ": ", maxSplits: 1).last).components(separatedBy: " -> ")
        let reported = steps.map { String($0.split(separator: " ")[0]) }
        #expect(reported.count >= 3)

        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs/1")
            try await browser.wait(for: "the graph", until: "return document.getElementById('graph').dataset.ready === 'true';")
            let shown = try await browser.run("""
                const names = (nodes) => [...nodes].map(n => n.textContent.trim());
                const byJob = (nodes) => [...new Set([...nodes].sort((a, b) => (a.offsetLeft || 0) - (b.offsetLeft || 0))
                  .map(n => Number(n.dataset.job !== undefined ? n.dataset.job : n.id.slice(4))))];
                const data = JSON.parse(document.getElementById('page-data').textContent);
                const order = (indices) => indices.map(i => data.jobs[i].name);
                return { line: names(document.querySelectorAll('#critical-line .crit-step')),
                         timeline: order(byJob(document.querySelectorAll('#timeline .bar.crit'))),
                         graph: order(byJob(document.querySelectorAll('#graph .node.crit'))),
                         edges: document.querySelectorAll('#graph .edge.crit').length,
                         needEdges: data.critical.slice(1).filter((job, i) => data.jobs[job].needs.includes(data.critical[i])).length,
                         layout: document.getElementById('graph').dataset.layout };
                """) as? [String: Any]
            let page = try #require(shown)
            #expect(page["line"] as? [String] == reported)
            // Bars are in time order, so the path's order; graph nodes in the run's order.
            #expect(page["timeline"] as? [String] == reported)
            #expect(Set(page["graph"] as? [String] ?? []) == Set(reported))
            // An edge for each step that needed the step before (not for a wait for a lane's slot).
            #expect(page["layout"] as? String == "graphviz")
            #expect(page["edges"] as? Int == page["needEdges"] as? Int)
            #expect((page["needEdges"] as? Int ?? 0) >= 2)
            try await screenshot(browser, "run")
        }
    }

    @Test func aJobNamedLikeMarkupIsTextAndRunsNoScript() async throws {
        let workspace = try Workspace()
        let name = "<img src=x onerror=alert(1)>"
        let jobs = [(name: "first", needs: [String]()), (name: name, needs: ["first"])]
        let file = try workspace.write("app.yml", "version: 1\njobs: {}\n")
        _ = try await workspace.recordLibraryRun(workflow: file, jobs: jobs)

        try await withPage(journal: workspace.journal) { browser, served in
            for path in ["/runs/1", "/runs/1/job?name=" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")] {
                try await browser.go(served.base + path)
                try await browser.wait(for: "the page", until: "return document.readyState === 'complete';")
                #expect(await browser.alertText() == nil)
                let found = try await browser.run("""
                    return { images: document.querySelectorAll('img').length,
                             text: document.body.textContent.includes(arguments[0]) };
                    """, [name]) as? [String: Any]
                #expect(found?["images"] as? Int == 0)
                #expect(found?["text"] as? Bool == true)
            }
        }
    }
}
