import Foundation
@testable import SequencerServe
import Testing

/// `sequencer serve -f build.ninja`: a ninja build's runs, each drawn from the graph recorded
/// with it; the manifest is not checked as a workflow file, and a build is not resumed from
/// the page (it is built again).
@Suite struct NinjaBuildPageTests {
    static func text(_ answer: HTTPClient.Answer) -> String { String(decoding: answer.body, as: UTF8.self) }

    @Test func aNinjaBuildIsARunWithItsGraphAndNoResume() async throws {
        let workspace = try Workspace()
        let manifest = try workspace.write("build.ninja", """
            rule cat
              command = cat $in > $out
            rule fail
              command = echo oops; exit 3
            build mid: cat src
            build out: cat mid
            build bad: fail out

            """)
        try workspace.write("src", "s\n")
        let built = try await workspace.sequencer("ninja", "bad")
        #expect(built.status == 1, "\(built.stdout)\(built.stderr)")
        let options = ServeOptions(journalPath: workspace.journal, workflowPath: manifest, port: 0, graphviz: nil)
        try await withRunning(try Server(options: options)) { port in
            let runs = Self.text(try await HTTPClient.request(port: port, "GET", "/runs"))
            #expect(runs.contains("1 run"), "\(runs)")
            let run = try await HTTPClient.request(port: port, "GET", "/runs/1")
            #expect(run.status == 200)
            let page = Self.text(run)
            for job in ["\"name\":\"mid\"", "\"name\":\"out\"", "\"name\":\"bad\""] {
                #expect(page.contains(job), "\(job) is not on the run's page")
            }
            #expect(page.contains("\"needs\":[0]"))
            #expect(!page.contains("resume-link"))
            let workflow = Self.text(try await HTTPClient.request(port: port, "GET", "/workflow"))
            #expect(workflow.contains("A ninja manifest"))
            #expect(!workflow.contains("error"))
        }
    }
}
