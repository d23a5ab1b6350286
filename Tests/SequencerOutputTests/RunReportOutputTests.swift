import Foundation
import Sequencer
import SequencerOutput
import Testing
import SequencerTestHelpers

/// The trace, dot and Mermaid renderers work from the report of a run in this process: no
/// workflow file, no journal.
@Suite(.suiteTimeLimit) struct RunReportOutputTests {
    /// a -> b (lane net) -> c, and d (lane net), which is up to date.
    static func report() async throws -> RunReport {
        var workflow = Workflow()
        workflow.lane("net", width: 1)
        try workflow.add("a") { _ in }
        try workflow.add("b", needs: ["a"], lane: "net") { _ in }
        try workflow.add("c", needs: ["a", "b"]) { _ in }
        try workflow.add("d", lane: "net") { context in context.markUpToDate() }
        return try await workflow.start().report()
    }

    /// The trace's events, parsed back from its JSON.
    static func events(_ json: String) throws -> [[String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(document["traceEvents"] as? [[String: Any]])
    }

    @Test func aReportGivesAChromeTraceWithASlicePerJobOnItsLanesTrack() async throws {
        let report = try await Self.report()
        let events = try Self.events(ChromeTrace(report: report, title: "demo").json())
        var tracks: [Int: String] = [:]
        var slices: [String: [String: Any]] = [:]
        var critical: [String] = []
        for event in events {
            let args = event["args"] as? [String: Any] ?? [:]
            switch (event["ph"] as? String, event["name"] as? String) {
            case ("M", "thread_name"?): tracks[try #require(event["tid"] as? Int)] = args["name"] as? String
            case ("M", "process_name"?): #expect(args["name"] as? String == "demo")
            case ("X", let name?) where event["cat"] as? String == "critical": critical.append(name)
            case ("X", let name?): slices[name] = event
            default: break
            }
        }
        #expect(Set(tracks.values) == ["critical path", "jobs 1", "net 1"])
        #expect(critical == report.criticalPath.map(\.rawValue))
        #expect(critical.last == "c" && !critical.contains("d"))
        #expect(Set(slices.keys) == ["a", "b", "c", "d"])
        for (name, slice) in slices {
            let args = try #require(slice["args"] as? [String: Any])
            let track = try #require(slice["tid"] as? Int)
            #expect(tracks[track] == (name == "b" || name == "d" ? "net 1" : "jobs 1"), "\(name)")
            #expect(args["status"] as? String == (name == "d" ? "upToDate" : "succeeded"), "\(name)")
            #expect(args["attempts"] as? Int == 1)
            #expect(args["critical"] as? Bool == critical.contains(name), "\(name)")
            #expect((slice["dur"] as? Int ?? -1) >= 0)
        }
    }

    @Test func aReportsGraphHasItsNeedsLanesAndStatuses() async throws {
        let report = try await Self.report()
        #expect(report.needs(ofJobAt: 2).map { report.outcomes[$0].id } == ["a", "b"])
        #expect(report.lane(ofJobAt: 1) == "net" && report.lane(ofJobAt: 0) == nil)
        #expect(report.needs(ofJobAt: 99).isEmpty && report.lane(ofJobAt: -1) == nil)

        let graph = RunGraph(report: report)
        #expect(graph.mermaid() == """
            flowchart LR
              subgraph lane0 ["lane net"]
                j1["b"]
                j3["d"]
              end
              j0["a"]
              j2["c"]
              j0 --> j1
              j0 --> j2
              j1 --> j2
              classDef succeeded fill:#b7e4b0
              class j0,j1,j2 succeeded
              classDef upToDate fill:#d9ead3
              class j3 upToDate

            """)
        let dot = graph.dot()
        #expect(dot.contains("  subgraph \"cluster_0\" {\n    label=\"lane net\";\n    \"b\" [tooltip=\"succeeded\", xlabel=\"succeeded\""))
        #expect(dot.contains("\"d\" [tooltip=\"upToDate\", xlabel=\"upToDate\", style=filled, fillcolor=\"#d9ead3\"];"))
        #expect(dot.contains("  \"a\" -> \"c\";\n  \"b\" -> \"c\";"))
    }
}
