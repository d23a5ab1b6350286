import Foundation
import Logging
import Sequencer
import SequencerBuild
import SequencerHistory
import SequencerJournal
import SequencerProcess
import SequencerQueue
import SequencerCache
import SequencerRunner
import SequencerTestHelpers
import SequencerWorkflowFile
import Testing

/// `sequencer run --cache`, in-process: real commands, a real compiler, a directory cache.
@Suite(.suiteTimeLimit) struct CacheRunTests {
    let directory: TemporaryDirectory
    let said = Locked<[String]>([])

    init() throws { directory = try TemporaryDirectory() }

    static let hasCompiler = FileManager.default.isExecutableFile(atPath: "/usr/bin/cc")

    /// A C project with depfiles: two sources sharing a header, compiled, then linked.
    static let project = """
        version: 1
        jobs:
          compile-${stem}:
            for: { files: "src/*.c" }
            run: cc -MD -MF build/${stem}.d -c ${item} -o build/${stem}.o && echo compiled ${stem}
            inputs: ["${item}"]
            outputs: ["build/${stem}.o"]
            depfile: build/${stem}.d
          link:
            needs: ["compile-*"]
            run: cc build/a.o build/main.o -o build/app
            inputs: [build/a.o, build/main.o]
            outputs: [build/app]
        """

    private func checkout(_ name: String, file: String = Self.project) throws -> String {
        let root = directory.file(name)
        try FileManager.default.createDirectory(atPath: root + "/src", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/.sequencer", withIntermediateDirectories: true)
        try file.write(toFile: root + "/sequencer.yml", atomically: true, encoding: .utf8)
        try "#define A 42\n".write(toFile: root + "/src/a.h", atomically: true, encoding: .utf8)
        try "#include \"a.h\"\nint a(void) { return A; }\n".write(toFile: root + "/src/a.c", atomically: true, encoding: .utf8)
        try "#include \"a.h\"\nint a(void);\nint main(void) { return a() == A ? 0 : 1; }\n"
            .write(toFile: root + "/src/main.c", atomically: true, encoding: .utf8)
        // As a checkout's files are: written before the build started, not in the same tick.
        for source in ["src/a.h", "src/a.c", "src/main.c"] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: root + "/" + source)
        }
        return root
    }

    private var output: RunnerOutput {
        let said = said
        return RunnerOutput(
            progress: Console(lines: { line in said.withLock { $0.append(line) } }),
            diagnostics: { line in said.withLock { $0.append(line) } },
            results: { text in said.withLock { $0.append(text) } }, log: Logger(label: "sequencer-test"))
    }

    /// Runs the checkout at `root` with the cache, journaled; returns its report document and
    /// its history.
    private func run(_ root: String) async throws -> (document: ReportDocument, record: RunRecord?) {
        let file = try WorkflowFile.load(path: root + "/sequencer.yml").expandingVariables()
        var settings = RunSettings()
        settings.json = true
        settings.cache = CacheSettings(location: directory.file("cache"))
        var session = RunSession(file: file, settings: settings, output: output)
        try session.checkInputs(in: file)
        let journal = try SQLiteJournal(path: root + "/.sequencer/journal.sqlite")
        let recorder = try journal.beginRun(workflow: RunSession.key(of: file))
        session.recorder = recorder
        said.withLock { $0 = [] }
        _ = try await session.run(control: RunControl(runner: ProcessRunner(terminationGrace: .seconds(2))))
        let text = try #require(said.withLock { $0 }.first { $0.hasPrefix("{") })
        let document = try JSONDecoder().decode(ReportDocument.self, from: Data(text.utf8))
        return (document, try await JournalHistory(journal: journal).run(recorder.runID))
    }

    /// The test: a second checkout at another absolute path builds with every job
    /// restored, and its outputs are byte for byte the first's.
    @Test(.enabled(if: hasCompiler)) func aSecondCheckoutOfACProjectIsRestoredWhole() async throws {
        let ada = try checkout("ada")
        let first = try await run(ada)
        #expect(first.document.status == "succeeded", "\(said.withLock { $0 })")
        #expect(first.document.cache?.stored == 3 && first.document.cache?.misses == 3)

        let bob = try checkout("elsewhere/bob")
        let second = try await run(bob)
        #expect(second.document.status == "succeeded", "\(said.withLock { $0 })")
        #expect(second.document.cache?.hits == 3 && second.document.cache?.misses == 0, "\(said.withLock { $0 })")
        #expect(second.document.jobs.allSatisfy { $0.restoredFrom != nil })
        for output in ["build/a.o", "build/main.o", "build/app", "build/a.d"] {
            let mine = try Data(contentsOf: URL(fileURLWithPath: bob + "/" + output))
            #expect(mine == (try Data(contentsOf: URL(fileURLWithPath: ada + "/" + output))), "\(output)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: bob + "/build/app"))
        // What a restored job printed is shown and kept, as if it had run.
        #expect(said.withLock { $0 }.contains { $0.contains("restored compile-a from the cache") && $0.contains("compiled a") })
        // The journal marks the restored jobs.
        let attempts = try #require(second.record).attempts
        #expect(attempts.count == 3 && attempts.allSatisfy { $0.exit.hasPrefix("restored from the cache (key ") })

        // An edited header: the jobs that include it run again, said by name.
        try "#define A 7\n".write(toFile: bob + "/src/a.h", atomically: true, encoding: .utf8)
        let third = try await run(bob)
        #expect(third.document.cache?.misses == 3 && third.document.cache?.hits == 0)
    }

    /// A queue's worker restores from the cache and stores in it, as a run here does: what a
    /// worker stored, a run here restores; what a run here stored, a worker restores.
    @Test(arguments: StoreKind.testable)
    func aQueuesWorkerSharesTheCacheWithRunsHere(_ kind: StoreKind) async throws {
        let fixture = try RunnerFixture(file: """
            version: 1
            jobs:
              made: { run: echo made > made.txt && echo said, outputs: [made.txt] }
              used: { needs: [made], run: cat made.txt made.txt > used.txt, inputs: [made.txt], outputs: [used.txt] }
            """)
        let cache = try DirectoryCache(path: fixture.directory.file("cache"))
        try await kind.withStore(in: fixture.directory) { store, location in
            let through = try await fixture.runThrough(store, location: location, runs: 1, cache: (cache, CacheNamespaces()))
            #expect(through.map(\.error) == [nil], "\(fixture.said.withLock { $0 })")
            // Stored by the worker: a run here restores both.
            let file = try RunnerFixture.load(fixture.here)
            var settings = RunSettings()
            settings.json = true
            settings.cache = CacheSettings(location: fixture.directory.file("cache"))
            var session = RunSession(file: file, settings: settings, output: fixture.output)
            session.recorder = try fixture.journal.beginRun(workflow: RunSession.key(of: file))
            _ = try await session.run(control: RunControl(runner: ProcessRunner(terminationGrace: .seconds(2))))
            let text = try #require(fixture.said.withLock { $0 }.last { $0.hasPrefix("{") })
            let document = try JSONDecoder().decode(ReportDocument.self, from: Data(text.utf8))
            #expect(document.cache?.hits == 2, "\(fixture.said.withLock { $0 })")
            #expect(try String(contentsOfFile: fixture.here + "/used.txt", encoding: .utf8) == "made\nmade\n")
            // The queue's history marks the worker's attempts as they were: run, not restored.
            let queued = QueueHistory(store: store, location: location)
            let run = try #require(try await queued.run(through[0].id))
            #expect(run.attempts.map(\.exit) == ["exit code 0", "exit code 0"])
        }
        // A second queue, a fresh worker directory: the worker restores what it stored before.
        try FileManager.default.removeItem(atPath: fixture.there + "/made.txt")
        try FileManager.default.removeItem(atPath: fixture.there + "/used.txt")
        try await StoreKind.sqlite.withStore(in: try TemporaryDirectory()) { store, location in
            let through = try await fixture.runThrough(store, location: location, runs: 1, cache: (cache, CacheNamespaces()))
            #expect(through.map(\.error) == [nil], "\(fixture.said.withLock { $0 })")
            let run = try #require(try await QueueHistory(store: store, location: location).run(through[0].id))
            #expect(run.attempts.count == 2 && run.attempts.allSatisfy { $0.exit.hasPrefix("restored from the cache (key ") }, "\(run.attempts)")
            #expect(try String(contentsOfFile: fixture.there + "/used.txt", encoding: .utf8) == "made\nmade\n")
        }
    }

    /// A cached job sees only the base set and the variables its file declares; a job that
    /// opts out with `inherit-env` sees them all, and is not cached.
    @Test func aCachedJobRunsInAClosedEnvironment() async throws {
        let root = try checkout("env", file: """
            version: 1
            env: { DECLARED: "yes" }
            jobs:
              closed: { run: env > closed.txt, outputs: [closed.txt] }
              open: { run: env > open.txt, outputs: [open.txt], inherit-env: true }
            """)
        let ran = try await run(root)
        #expect(ran.document.cache?.misses == 1 && ran.document.cache?.stored == 1)
        func names(_ file: String) throws -> Set<String> {
            Set(try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n")
                .compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        }
        let allowed = Set(JobKeys.baseVariables + ["DECLARED", "SEQUENCER_JOB", "SEQUENCER_ATTEMPT", "PWD", "SHLVL", "_", "OLDPWD"])
        let closed = try names("closed.txt")
        #expect(closed.isSubset(of: allowed), "\(closed.subtracting(allowed))")
        #expect(closed.contains("DECLARED"))
        let inherited = Set(ProcessInfo.processInfo.environment.keys)
        #expect(inherited.isSubset(of: try names("open.txt")))
    }
}
