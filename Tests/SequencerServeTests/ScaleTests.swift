import Foundation
import Sequencer
import SequencerJournal
import Testing

extension BrowserTests {
    /// 5,000 jobs in 100 layers of 50, each needing two jobs of the layer before.
    static func layeredJobs(count: Int = 5_000, width: Int = 50) -> [(name: String, needs: [String])] {
        func name(_ index: Int) -> String { "job-\(index)" }
        return (0..<count).map { index in
            guard index >= width else { return (name(index), []) }
            let previous = index - width
            return (name(index), [name(previous), name(previous - previous % width + (previous + 1) % width)])
        }
    }

    /// A run of 5,000 jobs: its page has its header, jobs, timeline and graph (a
    /// neighbourhood), and focusing on another job redraws it. How soon it is usable is printed
    /// as a figure (about 1.5 s on a quiet 2-core machine, against a goal of 2 s); the test fails
    /// only far beyond it (10 s), as for a page that lays out every job: a timing under a full
    /// test run's load is not a measurement.
    @Test func aRunOf5000JobsIsUsable() async throws {
        let workspace = try Workspace()
        let jobs = Self.layeredJobs()
        let file = try workspace.write("big.yml", Workspace.workflowText(jobs))
        let report = try await workspace.recordLibraryRun(workflow: file, jobs: jobs)
        #expect(report.status == .succeeded)

        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs/1")
            try await browser.wait(for: "the graph", until: "return document.getElementById('graph').dataset.ready === 'true';")
            let page = try #require(try await browser.run("""
                return { ready: Number(document.body.dataset.readyMs),
                         nodes: document.querySelectorAll('#graph .node.job').length,
                         rows: document.querySelectorAll('#jobs tbody tr').length,
                         bars: document.querySelectorAll('#timeline .bar[data-job]').length,
                         jobs: document.getElementById('run-jobs').textContent };
                """) as? [String: Any])
            let ready = try #require(page["ready"] as? Double)
            print("5,000-job run page: usable \(Int(ready)) ms after navigation")
            #expect(ready > 0 && ready < 10_000)
            #expect(page["jobs"] as? String == "5000")
            #expect(page["bars"] as? Int == 5_000)
            #expect(page["rows"] as? Int == 500)
            let nodes = try #require(page["nodes"] as? Int)
            #expect(nodes > 10 && nodes <= 120)

            // Focus elsewhere: the neighbourhood of job-2500 (its needs and dependents).
            try await browser.run("""
                const form = document.getElementById('graph-focus');
                form.querySelector('input').value = 'job-2500';
                form.requestSubmit();
                """)
            try await browser.wait(for: "the graph of job-2500", until: """
                const node = document.querySelector('#graph .node.focus');
                return document.getElementById('graph').dataset.ready === 'true' && node !== null && node.id === 'job-2500';
                """)
            let around = try await browser.run("""
                return ['job-2450', 'job-2451', 'job-2550', 'job-2599'].map(n => document.getElementById('job-' + n.slice(4)) !== null);
                """) as? [Bool]
            #expect(around == [true, true, true, true])
            #expect(try await browser.run("return location.search;") as? String == "?focus=job-2500")
            try await screenshot(browser, "run-5000")
        }
    }

    /// 10,000 runs: the first page and an older one each come as one indexed read.
    @Test func tenThousandRunsPageQuickly() async throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.path(".sequencer"), withIntermediateDirectories: true)
        let journal = try SQLiteJournal(path: workspace.journal)
        for number in 0..<10_000 {
            try journal.beginRun(workflow: number % 2 == 0 ? "/app/even.yml" : "/app/odd.yml")
                .recordUpToDateRun(jobs: ["a", "b", "c"], checked: [], duration: .milliseconds(3))
        }

        try await withPage(journal: workspace.journal) { browser, served in
            var loads: [Double] = []
            for path in ["/runs", "/runs?before=5000", "/runs?workflow=%2Fapp%2Fodd.yml&before=101"] {
                try await browser.go(served.base + path)
                let page = try #require(try await browser.run("""
                    const timing = performance.getEntriesByType('navigation')[0];
                    return { load: timing.loadEventEnd || timing.domContentLoadedEventEnd,
                             rows: [...document.querySelectorAll('#runs tbody tr')].map(r => Number(r.dataset.run)),
                             count: document.getElementById('run-count').textContent,
                             older: document.getElementById('older') !== null };
                    """) as? [String: Any])
                let rows = page["rows"] as? [Int] ?? []
                switch path {
                case "/runs":
                    #expect(page["count"] as? String == "10000 runs")
                    #expect(rows == Array((9_951...10_000).reversed()))
                    #expect(page["older"] as? Bool == true)
                case "/runs?before=5000":
                    #expect(rows == Array((4_950...4_999).reversed()))
                default:
                    #expect(page["count"] as? String == "5000 runs")
                    #expect(rows == stride(from: 100, through: 2, by: -2).map { $0 })
                    #expect(page["older"] as? Bool == false)
                }
                loads.append(page["load"] as? Double ?? 0)
            }
            print("10,000 runs: page loads \(loads.map { Int($0) }) ms (first, middle, filtered last)")
            #expect(loads.allSatisfy { $0 > 0 && $0 < 10_000 }, "far beyond the figures above: a page that reads every run?")
        }
    }
}
