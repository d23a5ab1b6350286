import Foundation
import Sequencer
@testable import SequencerServe
import Testing

/// `sequencer serve -f FILE` of a file that never ran: no journal, so no runs, but its
/// workflow page (its graph, or its errors); serving creates nothing.
@Suite struct NewFileTests {
    /// a needs c, b needs a, c needs b.
    static let cycle = """
        version: 1
        jobs:
          a:
            run: echo a
            needs: [c]
          b:
            run: echo b
            needs: [a]
          c:
            run: echo c
            needs: [b]

        """

    static func text(_ answer: HTTPClient.Answer) -> String { String(decoding: answer.body, as: UTF8.self) }

    @Test(arguments: [false, true])
    func aFileWithACycleIsServedWithNoRunsAndItsError(graphviz: Bool) async throws {
        let workspace = try Workspace()
        let file = try workspace.write("sequencer.yml", Self.cycle)
        let options = ServeOptions(
            journalPath: workspace.journal, workflowPath: file, port: 0, graphviz: graphviz ? ServeOptions.findGraphviz() : nil)
        try await withRunning(try Server(options: options)) { port in
            let runs = try await HTTPClient.request(port: port, "GET", "/runs")
            #expect(runs.status == 200)
            #expect(Self.text(runs).contains("id=\"no-runs\">No runs yet"))
            #expect(Self.text(runs).contains("0 runs"))
            #expect(try await HTTPClient.request(port: port, "GET", "/runs/1").status == 404)

            let workflow = try await HTTPClient.request(port: port, "GET", "/workflow")
            #expect(workflow.status == 200)
            let page = Self.text(workflow)
            #expect(page.contains("dependency cycle: a -&gt; c -&gt; b -&gt; a"))
            // The error names the file, line and column of the need that closes the cycle.
            let located = NSRegularExpression.escapedPattern(for: file) + ":[0-9]+:[0-9]+: error: dependency cycle"
            #expect(page.range(of: located, options: .regularExpression) != nil, "\(page)")
            #expect(page.contains("class=\"graph cycle-graph"))
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.path(".sequencer")), "serving created the journal's directory")
    }

    /// A file with no errors: its graph; then a run creates the journal while the server
    /// runs, and its runs page shows it.
    @Test func aNewFilesGraphIsShownAndItsFirstRunAppears() async throws {
        let workspace = try Workspace()
        let jobs = [(name: "fetch", needs: [String]()), (name: "build", needs: ["fetch"])]
        let file = try workspace.write("sequencer.yml", Workspace.workflowText(jobs))
        let options = ServeOptions(journalPath: workspace.journal, workflowPath: file, port: 0, graphviz: ServeOptions.findGraphviz())
        try await withRunning(try Server(options: options)) { port in
            let page = Self.text(try await HTTPClient.request(port: port, "GET", "/workflow"))
            #expect(page.contains("No errors: 2 jobs"))
            #expect(page.contains("id=\"workflow-graph\""))
            for name in ["fetch", "build"] { #expect(page.contains(">\(name)<"), "\(name) is drawn") }
            #expect(!FileManager.default.fileExists(atPath: workspace.path(".sequencer")))

            _ = try await workspace.recordLibraryRun(workflow: file, jobs: jobs)
            let runs = Self.text(try await HTTPClient.request(port: port, "GET", "/runs"))
            #expect(runs.contains("data-run=\"1\""))
            #expect(try await HTTPClient.request(port: port, "GET", "/runs/1").status == 200)
        }
    }
}
