import Foundation
import Testing

@Suite(.timeLimit(.minutes(2)))
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
        #expect(result.stderr.contains("bad.yml:12:17: error:"))
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
