import Foundation
import Testing
import SequencerTestHelpers

/// The dry run and the run agree: for each kind of change to a C-like project (compile jobs,
/// an archive, a link), every job the run ran was announced by `run -n` as "would run" or
/// "may run", and every job it said "would run" ran. A recompile that gives the same bytes
/// leaves its dependents up to date (early cutoff), which a dry run cannot know: it says
/// "may run" for them.
@Suite(.suiteTimeLimit)
struct DryRunAgreementTests {
    /// The project: sources compiled by `cat` (the same bytes each time, as a compiler gives),
    /// an archive and a link. With `declared`, the archive and the link list what they read as
    /// inputs; without, they only need the jobs that make it.
    static func workflow(declared: Bool) -> String {
        """
        jobs:
          compile-${stem}:
            for: { files: "src/*.c" }
            run: mkdir -p obj && cat ${item} > obj/${stem}.o
            outputs: ["obj/${stem}.o"]
          archive:
            needs: [compile-*]
            run: cat obj/*.o > lib.a
        \(declared ? "    inputs: [\"obj/*.o\"]\n" : "")    outputs: [lib.a]
          link:
            needs: [archive]
            run: cat lib.a > app
        \(declared ? "    inputs: [lib.a]\n" : "")    outputs: [app]
        """
    }

    static func appendJunk(to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("junk\n".utf8))
        try handle.close()
    }

    enum Change: String, CaseIterable, Sendable {
        case editedInput, touchedInput, damagedOutput, deletedOutput, changedCommand
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let change: Change
        let declared: Bool
        var testDescription: String { "\(change.rawValue), inputs \(declared ? "declared" : "not declared")" }
    }

    static let cases = Change.allCases.flatMap { change in [true, false].map { Case(change: change, declared: $0) } }

    @Test(arguments: cases)
    func theDryRunAnnouncesWhatTheRunRuns(_ test: Case) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src/tick.c", "tick\n")
        try cli.write("src/tock.c", "tock\n")
        try cli.write("sequencer.yml", Self.workflow(declared: test.declared))
        let first = try await cli.run(["run"])
        #expect(first.status == 0, "\(first.output)")

        switch test.change {
        case .editedInput:
            try cli.write("src/tick.c", "tick, edited\n")
        case .touchedInput:
            try cli.write("src/tick.c", "tick\n")
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: cli.path("src/tick.c"))
        case .damagedOutput:
            try Self.appendJunk(to: cli.path("obj/tick.o"))
        case .deletedOutput:
            try FileManager.default.removeItem(atPath: cli.path("obj/tick.o"))
        case .changedCommand:
            try cli.write("sequencer.yml", Self.workflow(declared: test.declared).replacingOccurrences(
                of: "cat lib.a > app", with: "cat lib.a lib.a > app"))
        }

        let dry = try await cli.run(["run", "-n", "--json"])
        #expect(dry.status == 0, "\(dry.output)")
        let plan = try #require(try dry.jsonObject()["jobs"] as? [[String: String]])
        let actions = Dictionary(plan.map { ($0["name"] ?? "", $0["action"] ?? "") }) { a, _ in a }
        let would = Set(actions.filter { $0.value == "run" }.keys)
        let may = Set(actions.filter { $0.value == "may-run" }.keys)
        #expect(actions.count == 4, "\(dry.stdout)")

        let real = try await cli.run(["run", "--json"])
        #expect(real.status == 0, "\(real.output)")
        let jobs = try #require(try real.jsonObject()["jobs"] as? [[String: Any]])
        let ran = Set(jobs.filter { $0["status"] as? String == "succeeded" }.compactMap { $0["name"] as? String })

        #expect(ran.subtracting(would.union(may)).isEmpty, "ran without being announced: \(ran); dry run: \(dry.stdout)")
        #expect(would.subtracting(ran).isEmpty, "said 'would run' but did not run: ran \(ran); dry run: \(dry.stdout)")
        // What each change must do, as the up-to-date rules say.
        switch test.change {
        case .editedInput:
            #expect(ran == ["compile-tick", "archive", "link"])
        case .touchedInput:
            #expect(ran.isEmpty)
        case .damagedOutput, .deletedOutput:
            // Remade identically: early cutoff stops the archive and the link.
            #expect(ran == ["compile-tick"])
            #expect(may == (test.declared ? ["archive", "link"] : []), "\(dry.stdout)")
        case .changedCommand:
            #expect(ran == ["link"])
        }
    }

    /// The issue's case: junk appended to `obj/tick.o`. The dry run's text says the compile
    /// would run and the link may run, and the run recompiles only.
    @Test func aDamagedObjectRecompilesAndTheLinkMayRun() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src/tick.c", "tick\n")
        try cli.write("src/tock.c", "tock\n")
        try cli.write("sequencer.yml", Self.workflow(declared: true))
        #expect(try await cli.run(["run"]).status == 0)
        try Self.appendJunk(to: cli.path("obj/tick.o"))

        let dry = try await cli.run(["run", "-n"])
        #expect(dry.stdout == """
            would run  compile-tick: output obj/tick.o changed since its last success
            up to date compile-tock
            may run    archive: if 'compile-tick', which would run, changes input obj/tick.o
            may run    link: if needed job 'archive', which may run, changes its fingerprint
            sequencer: 1 of 4 jobs would run, 2 may run

            """, "\(dry.output)")
        let real = try await cli.run(["run"])
        #expect(real.counts == "3 up to date, 1 succeeded", "\(real.output)")
    }
}
