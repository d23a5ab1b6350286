import Foundation
import Testing
import SequencerTestHelpers

/// With the jobs' last durations in the journal, the job with the longest remaining path
/// starts first when more jobs are ready than workers.
@Suite(.suiteTimeLimit)
struct StartOrderCommandTests {
    /// The jobs' start offsets in `run --json`'s report, by name.
    private func startTimes(_ result: CLI.Result) throws -> [String: Double] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let jobs = try #require(object?["jobs"] as? [[String: Any]])
        var times: [String: Double] = [:]
        for job in jobs {
            let name = try #require(job["name"] as? String)
            times[name] = try #require(job["startedAt"] as? Double, "\(name) never started")
        }
        return times
    }

    /// How many jobs started before `job`.
    private func startedBefore(_ job: String, in times: [String: Double]) throws -> Int {
        let start = try #require(times[job])
        return times.values.filter { $0 < start }.count
    }

    @Test func theLongestJobStartsFirstOnceItsDurationIsRecorded() async throws {
        let cli = try CLI()
        for stem in ["lapi", "lcode", "ldo", "lgc", "lparser", "lvm"] {
            try cli.write("src/\(stem).c", "// \(stem)\n")
        }
        // `lvm` sorts last, and takes longest (as Lua's lvm.c does).
        try cli.write("sequencer.yml", """
            jobs:
              compile-${stem}:
                for: { files: "src/*.c" }
                run: if [ ${stem} = lvm ]; then sleep 1; fi
            """)
        let first = try await cli.run(["run", "-j", "2", "--json"])
        #expect(first.status == 0, "\(first.output)")
        // Nothing recorded yet: the file's order, `lvm` last (it starts once four jobs have ended).
        #expect(try startedBefore("compile-lvm", in: startTimes(first)) >= 4)

        let second = try await cli.run(["run", "-j", "2", "--json"])
        #expect(second.status == 0, "\(second.output)")
        #expect(try startedBefore("compile-lvm", in: startTimes(second)) <= 1)
    }
}
