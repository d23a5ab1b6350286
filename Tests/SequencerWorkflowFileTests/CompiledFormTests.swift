import Foundation
import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerWorkflowFile

private typealias SourceLocation = SequencerWorkflowFile.SourceLocation

/// The compiled form of a workflow file (what `sequencer run` keeps to skip parsing an
/// unchanged file) decodes to the same file, and refuses anything damaged without crashing.
@Suite struct CompiledFormTests {
    /// Every field of two files, compared one by one (the model is not `Equatable`).
    static func difference(_ a: WorkflowFile, _ b: WorkflowFile) -> String? {
        guard a.path == b.path, a.directory == b.directory, a.version == b.version else { return "path, directory or version" }
        guard a.lanes == b.lanes, a.environment == b.environment, a.jobs.count == b.jobs.count else { return "lanes, env or job count" }
        for (x, y) in zip(a.jobs, b.jobs) {
            let same = x.name == y.name && x.location == y.location && x.run == y.run && x.needs == y.needs
                && x.lane == y.lane && x.laneLocation == y.laneLocation && x.priority == y.priority
                && x.timeout == y.timeout && x.retry == y.retry && x.environment == y.environment
                && x.workingDirectory == y.workingDirectory && x.workingDirectoryLocation == y.workingDirectoryLocation
                && x.inputEntries == y.inputEntries && x.outputEntries == y.outputEntries && x.depfile == y.depfile
                && x.cache == y.cache && x.inheritsEnvironment == y.inheritsEnvironment && x.volatileEntries == y.volatileEntries
            if !same { return "job \(x.name)" }
        }
        return nil
    }

    @Test(arguments: Fixtures.names(in: "valid"))
    func everyValidFixtureSurvivesTheRoundTrip(name: String) throws {
        let file = try WorkflowFile.load(path: Fixtures.path("valid", name))
        let decoded = try #require(WorkflowFile(compiled: file.compiled(), path: file.path))
        #expect(Self.difference(file, decoded) == nil, "\(name): \(Self.difference(file, decoded) ?? "")")
    }

    @Test func pathsKeepTheirLocationsThroughTheRoundTrip() throws {
        let file = try WorkflowFile.parse("""
            jobs:
              a:
                run: true
                cwd: sub
                inputs: [in.txt, "src/*.h"]
                outputs:
                  - out/$NAME.o
            """, path: "/w/build.yml")
        let decoded = try #require(WorkflowFile(compiled: file.compiled(), path: file.path))
        let job = try #require(decoded.jobs.first)
        #expect(job.workingDirectoryLocation == SourceLocation(line: 4, column: 10))
        #expect(job.inputEntries == [
            WorkflowFile.PathEntry(path: "in.txt", location: SourceLocation(line: 5, column: 14)),
            WorkflowFile.PathEntry(path: "src/*.h", location: SourceLocation(line: 5, column: 22)),
        ])
        // Kept as written: variables are expanded when the file is loaded for a run.
        #expect(job.outputEntries == [WorkflowFile.PathEntry(path: "out/$NAME.o", location: SourceLocation(line: 7, column: 9))])
    }

    /// The cache's keys (`cache`, `inherit-env`, `volatile`) are read, and kept in the form.
    @Test func aJobsCacheKeysAreReadAndKept() throws {
        let file = try WorkflowFile.parse("""
            jobs:
              off: { run: "true", outputs: [a], cache: false }
              open: { run: "true", outputs: [b], inherit-env: true }
              stamped: { run: "true", inputs: [in, stamp], outputs: [c], volatile: [stamp] }
              plain: { run: "true", outputs: [d] }
            """, path: "/w/build.yml")
        let decoded = try #require(WorkflowFile(compiled: file.compiled(), path: file.path))
        #expect(Self.difference(file, decoded) == nil)
        #expect(decoded.jobs.map(\.isCacheable) == [false, false, true, true])
        #expect(decoded.jobs[2].volatileEntries.map(\.path) == ["stamp"])
        #expect(throws: WorkflowFileError.self) {
            try WorkflowFile.parse("jobs:\n  a: { run: \"true\", cache: maybe }\n", path: "/w/build.yml")
        }
    }

    @Test func theDirectoryComesFromWhereTheFileIsNow() throws {
        let file = try WorkflowFile.parse("jobs:\n  a: echo a\n", path: "/old/place/sequencer.yml")
        let moved = try #require(WorkflowFile(compiled: file.compiled(), path: "/new/place/sequencer.yml"))
        #expect(moved.directory == "/new/place")
        #expect(moved.path == "/new/place/sequencer.yml")
    }

    @Test func damagedFormsAreRefusedNotMisread() throws {
        var jobs = "version: 1\nlanes: { net: 2 }\nenv: { A: b }\njobs:\n"
        for job in 0..<20 {
            jobs += "  j\(job):\n    run: echo \(job)\n    retry: { attempts: 3, backoff: 1s }\n    timeout: 5s\n    lane: net\n"
            jobs += "    inputs: [in\(job)]\n    outputs: [out\(job)]\n" + (job > 0 ? "    needs: [j\(job - 1)]\n" : "")
        }
        let file = try WorkflowFile.parse(jobs, path: "/w/sequencer.yml")
        let bytes = file.compiled()
        #expect(WorkflowFile(compiled: Array(bytes.dropLast()), path: file.path) == nil)
        #expect(WorkflowFile(compiled: bytes + [0], path: file.path) == nil)
        #expect(WorkflowFile(compiled: [], path: file.path) == nil)
        var random = SplitMix64(state: 7)
        var survivors = 0
        for _ in 0..<2000 {
            var damaged = bytes
            for _ in 0...random.below(3) {
                damaged[random.below(damaged.count)] = UInt8(truncatingIfNeeded: random.next())
            }
            // Damage may leave a valid form (a changed letter in a command): then it must decode
            // whole; it must never crash or read past the end.
            if let decoded = WorkflowFile(compiled: damaged, path: file.path) {
                survivors += 1
                #expect(decoded.jobs.count <= file.jobs.count)
            }
        }
        #expect(survivors < 2000)
    }
}
