import Foundation
import Testing
import SequencerTestHelpers

@Suite(.suiteTimeLimit)
struct CheckAndGraphTests {
    @Test func checkReportsEveryErrorWithItsPositionAndExitsTwo() async throws {
        let cli = try CLI()
        let path = try cli.write("bad.yml", """
            version: 1
            jobs:
              a:
                neds: [b]
                run: x
              b:
                needs: [c]
                run: y
              c:
                needs: [b]
                run: z
                timeout: 10 s
            """)
        let result = try await cli.run(["check", "bad.yml"])
        #expect(result.status == 2)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 3, "\(result.stderr)")
        #expect(errors.first?.hasPrefix("bad.yml:4:5: error: unknown key 'neds' in job 'a'; did you mean 'needs'?") == true)
        #expect(result.stderr.contains("bad.yml:7:13: error: dependency cycle: b -> c -> b"))
        #expect(result.stderr.contains("bad.yml:10:13: note: 'c' needs 'b' here"))
        #expect(result.stderr.contains("bad.yml:12:16: error:"))
        _ = path
    }

    @Test func checkAcceptsAGoodFile() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", "lanes: { disk: 1 }\njobs:\n  a: true\n  b: { needs: [a], run: true, lane: disk }\n")
        let result = try await cli.run(["check"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("2 jobs"))
    }
}

@Suite(.suiteTimeLimit)
struct GraphAndTraceTests {
    @Test func graphPrintsEveryFormatWithLanesAsClusters() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", "lanes: { net: 2 }\njobs:\n  a: true\n  b: { needs: [a], run: true, lane: net }\n")
        let dot = try await cli.run(["graph", "--format", "dot"])
        #expect(dot.status == 0)
        #expect(dot.stdout.contains("cluster_"))
        #expect(dot.stdout.contains("\"a\" -> \"b\""))
        let mermaid = try await cli.run(["graph", "--format", "mermaid"])
        #expect(mermaid.stdout.hasPrefix("flowchart LR"))
        let json = try await cli.run(["graph", "--format", "json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["jobs"] as? [Any])?.count == 2)
        let again = try await cli.run(["graph", "--format", "dot"])
        #expect(again.stdout == dot.stdout)
    }

    @Test func traceHasASlicePerAttemptAndTheCriticalPath() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              flaky:
                run: test "$SEQUENCER_ATTEMPT" = 2 || exit 1
                retry: { attempts: 2, backoff: 1ms }
              after: { needs: [flaky], run: "true" }
            """)
        let result = try await cli.run(["run", "--trace", "trace.json"])
        #expect(result.status == 0, "\(result.output)")
        let data = try Data(contentsOf: URL(fileURLWithPath: cli.path("trace.json")))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let events = try #require(object?["traceEvents"] as? [[String: Any]])
        let slices = events.filter { $0["ph"] as? String == "X" }
        #expect(slices.filter { $0["name"] as? String == "flaky" && ($0["args"] as? [String: Any])?["attempt"] != nil }.count == 2)
        #expect(events.contains { $0["ph"] as? String == "M" && (($0["args"] as? [String: Any])?["name"] as? String) == "critical path" })
    }
}
