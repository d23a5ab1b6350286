import Foundation
import Sequencer
import SequencerBuild
import SequencerCache
import SequencerTestHelpers
import SequencerWorkflowFile
import Testing

/// The cache as a run uses it, one job at a time: the job's "run" is a closure here, so that a
/// test can do what a command would (write its outputs, edit an input half-way). One test for
/// each way a shared cache goes wrong (issue 29), each failing without its guard.
@Suite struct WorkflowCacheTests {
    let directory: TemporaryDirectory
    let store: DirectoryCache
    let said = Locked<[String]>([])

    init() throws {
        directory = try TemporaryDirectory()
        store = try DirectoryCache(path: directory.file("cache"))
    }

    /// A checkout named `name` of a project whose job `copy` copies `in.txt` to `out/copy.txt`
    /// with `mytool`, found on the `PATH` it is given. `job` adds keys to the job.
    private func checkout(_ name: String, input: String = "v1\n", job extra: String = "") throws -> (file: WorkflowFile, root: String) {
        let root = directory.file(name)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try input.write(toFile: root + "/in.txt", atomically: true, encoding: .utf8)
        try """
            version: 1
            jobs:
              copy:
                run: mytool in.txt out/copy.txt
                inputs: [in.txt]
                outputs: [out/copy.txt]
            \(extra)
            """.write(toFile: root + "/sequencer.yml", atomically: true, encoding: .utf8)
        return (try WorkflowFile.load(path: root + "/sequencer.yml").expandingVariables(), root)
    }

    /// A directory holding an executable `mytool` whose script is `body`.
    private func tool(in name: String, _ body: String = "cp \"$1\" \"$2\"") throws -> String {
        let folder = directory.file(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "#!/bin/sh\n\(body)\n".write(toFile: folder + "/mytool", atomically: true, encoding: .utf8)
        chmod(folder + "/mytool", 0o755)
        return folder
    }

    private func cache(
        _ file: WorkflowFile, path: String, namespaces: CacheNamespaces = .init(), store: (any CacheStore)? = nil
    ) -> WorkflowCache {
        let said = said
        return WorkflowCache(
            store: store ?? self.store, file: file, namespaces: namespaces, inherited: ["PATH": path + ":/usr/bin:/bin"],
            explain: { job, words in said.withLock { $0.append("explain: \(job): \(words)") } },
            warn: { line in said.withLock { $0.append(line) } })
    }

    private enum Outcome: Equatable { case uncached, restored, ran }

    /// Looks `job` up; when it misses, "runs" it with `run` (by default, copying as `mytool`
    /// does) and hands its result to the cache.
    @discardableResult
    private func run(
        _ cache: WorkflowCache, _ root: String, job name: String = "copy", printed: String = "copied\n",
        _ run: ((String) throws -> Void)? = nil
    ) async throws -> Outcome {
        let job = try #require(cache.keys.file.job(named: name))
        let printedPath = directory.file("printed-\(UUID().uuidString).log")
        switch await cache.lookUp(job, printedPath: printedPath) {
        case .uncached: return .uncached
        case .restored:
            #expect(try String(contentsOfFile: printedPath, encoding: .utf8) == printed)
            return .restored
        case .missed(let store, _):
            try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
            if let run {
                try run(root)
            } else {
                try FileManager.default.copyItem(atPath: root + "/in.txt", toPath: root + "/out/copy.txt")
            }
            try printed.write(toFile: printedPath, atomically: true, encoding: .utf8)
            await store(printedPath, .seconds(2))
            return .ran
        }
    }

    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func aSecondCheckoutAtAnotherPathIsRestoredByteForByte() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada")
        let (bob, bobRoot) = try checkout("bob")
        #expect(try await run(cache(ada, path: tools), adaRoot) == .ran)
        let bobCache = cache(bob, path: tools)
        #expect(try await run(bobCache, bobRoot) == .restored)
        #expect(try text(bobRoot + "/out/copy.txt") == "v1\n")
        let figures = bobCache.statistics.current
        #expect(figures.hits == 1 && figures.misses == 0 && figures.bytesRestored == 3 && figures.secondsSaved == 2)
        #expect(said.withLock { $0 }.contains { $0.hasPrefix("explain: copy: restored from the cache (key ") })
    }

    /// bazel#3360: a result made from an input that changed after its key was taken is never
    /// stored under that key.
    @Test func aResultWhoseInputChangedWhileTheJobRanIsNotStored() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada")
        let adaCache = cache(ada, path: tools)
        #expect(try await run(adaCache, adaRoot) { root in
            // Edited after the key was taken, before the command read it.
            try "v2\n".write(toFile: root + "/in.txt", atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: root + "/in.txt", toPath: root + "/out/copy.txt")
        } == .ran)
        #expect(adaCache.statistics.current.stored == 0 && adaCache.statistics.current.notStored == 1)
        #expect(said.withLock { $0 }.contains { $0.contains("an input changed while it ran (input in.txt differs)") })
        // A checkout with the input as it was when the key was taken must not get "v2".
        let (bob, bobRoot) = try checkout("bob")
        #expect(try await run(cache(bob, path: tools), bobRoot) == .ran)
        #expect(try text(bobRoot + "/out/copy.txt") == "v1\n")
    }

    /// tensorflow/build#73: another compiler first on PATH is another key; the same one at
    /// another path is the same.
    @Test func anotherToolOnPathMissesAndTheSameToolElsewhereHits() async throws {
        let (ada, adaRoot) = try checkout("ada")
        try await run(cache(ada, path: try tool(in: "bin")), adaRoot)
        let (bob, bobRoot) = try checkout("bob")
        #expect(try await run(cache(bob, path: try tool(in: "other-bin", "cp \"$1\" \"$2\" # v2")), bobRoot) == .ran)
        #expect(said.withLock { $0 }.contains { $0.contains("explain: copy: not in the cache: the tool 'mytool' differs") })
        let (cyd, cydRoot) = try checkout("cyd")
        #expect(try await run(cache(cyd, path: try tool(in: "same-bin")), cydRoot) == .restored)
    }

    /// bazel#8250: an entry whose blob is gone is never served; the job runs.
    @Test func anEntryWhoseBlobIsGoneIsNotServed() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada")
        try await run(cache(ada, path: tools), adaRoot)
        let blob = CacheDigest.of(Data("v1\n".utf8))
        try FileManager.default.removeItem(atPath: directory.file("cache/cas/\(blob.hex.prefix(2))/\(blob.hex)"))
        let (bob, bobRoot) = try checkout("bob")
        let bobCache = cache(bob, path: tools)
        #expect(try await run(bobCache, bobRoot) == .ran)
        #expect(bobCache.statistics.current.hits == 0)
        #expect(said.withLock { $0 }.contains { $0.contains("is incomplete, blob \(blob.short) is gone") })
        // Running stored it again, whole.
        let (cyd, cydRoot) = try checkout("cyd")
        #expect(try await run(cache(cyd, path: tools), cydRoot) == .restored)
    }

    /// A damaged blob is refused and removed; the job runs, with nothing half-restored served.
    @Test func aDamagedBlobIsNotRestored() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada")
        try await run(cache(ada, path: tools), adaRoot)
        let blob = CacheDigest.of(Data("v1\n".utf8))
        try "v9\n".write(toFile: directory.file("cache/cas/\(blob.hex.prefix(2))/\(blob.hex)"), atomically: false, encoding: .utf8)
        let (bob, bobRoot) = try checkout("bob")
        let bobCache = cache(bob, path: tools)
        #expect(try await run(bobCache, bobRoot) == .ran)
        #expect(try text(bobRoot + "/out/copy.txt") == "v1\n")
        #expect(bobCache.statistics.current.failedRestores == 1)
    }

    /// Nx's CVE-2025-36852: a writer of another namespace never changes what `main` gives.
    @Test func anUntrustedNamespaceIsNeverRead() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada")
        let feature = CacheNamespaces(write: "feature")
        #expect(feature.trusted == ["feature", "main"])
        // The feature branch stores a result (poisoned, say) under the job's key.
        try await run(cache(ada, path: tools, namespaces: feature), adaRoot) { root in
            try "poison\n".write(toFile: root + "/out/copy.txt", atomically: true, encoding: .utf8)
        }
        let (bob, bobRoot) = try checkout("bob")
        #expect(try await run(cache(bob, path: tools), bobRoot) == .ran)
        #expect(try text(bobRoot + "/out/copy.txt") == "v1\n")
        // Main's own result is what main readers get, even once the feature's exists.
        let (cyd, cydRoot) = try checkout("cyd")
        #expect(try await run(cache(cyd, path: tools), cydRoot) == .restored)
        #expect(try text(cydRoot + "/out/copy.txt") == "v1\n")
        // A reader that trusts the feature's namespace first gets the feature's.
        let (dan, danRoot) = try checkout("dan")
        #expect(try await run(cache(dan, path: tools, namespaces: feature), danRoot) == .restored)
        #expect(try text(danRoot + "/out/copy.txt") == "poison\n")
    }

    /// bazel#10075: a declared volatile input (a stamp) is left out of the key, and said.
    @Test func aVolatileStampIsLeftOutOfTheKey() async throws {
        let tools = try tool(in: "bin")
        let job = """
              stamped:
                run: mytool in.txt out/stamped.txt
                inputs: [in.txt, stamp.txt]
                volatile: [stamp.txt]
                outputs: [out/stamped.txt]
            """
        let (ada, adaRoot) = try checkout("ada", job: job)
        try "built at 10:00\n".write(toFile: adaRoot + "/stamp.txt", atomically: true, encoding: .utf8)
        let copy: (String) throws -> Void = { root in
            try FileManager.default.copyItem(atPath: root + "/in.txt", toPath: root + "/out/stamped.txt")
        }
        try await run(cache(ada, path: tools), adaRoot, job: "stamped", copy)
        let (bob, bobRoot) = try checkout("bob", job: job)
        try "built at 11:00\n".write(toFile: bobRoot + "/stamp.txt", atomically: true, encoding: .utf8)
        #expect(try await run(cache(bob, path: tools), bobRoot, job: "stamped", copy) == .restored)
        #expect(said.withLock { $0 }.contains("explain: stamped: volatile input stamp.txt is left out of its key"))
        // Not volatile, the stamp is an input like any other.
        let (cyd, cydRoot) = try checkout("cyd", job: job.replacingOccurrences(of: "volatile: [stamp.txt]", with: ""))
        try "built at 12:00\n".write(toFile: cydRoot + "/stamp.txt", atomically: true, encoding: .utf8)
        #expect(try await run(cache(cyd, path: tools), cydRoot, job: "stamped", copy) == .ran)
    }

    /// Turborepo#3142: a miss says the first thing that differs from the job's nearest entry.
    @Test func aMissSaysWhatDiffersFromTheNearestEntry() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada")
        try await run(cache(ada, path: tools), adaRoot)
        let (bob, bobRoot) = try checkout("bob", input: "v2\n")
        #expect(try await run(cache(bob, path: tools), bobRoot) == .ran)
        #expect(said.withLock { $0 }.contains { $0.hasPrefix("explain: copy: not in the cache: input in.txt differs, against its nearest entry") })
    }

    /// A depfile's inputs, in two steps: a checkout with no depfile yet hits, and a changed
    /// header misses, said by name.
    @Test func inputsFoundByADepfileAreLookedUpInTwoSteps() async throws {
        let tools = try tool(in: "bin")
        let job = """
              compile:
                run: mytool main.c out/main.o
                inputs: [main.c]
                outputs: [out/main.o]
                depfile: out/main.d
            """
        func make(_ name: String, header: String) throws -> (WorkflowFile, String) {
            let (file, root) = try checkout(name, job: job)
            try "#include \"h.h\"\n".write(toFile: root + "/main.c", atomically: true, encoding: .utf8)
            try header.write(toFile: root + "/h.h", atomically: true, encoding: .utf8)
            return (file, root)
        }
        let compile: (String) throws -> Void = { root in
            try "object\n".write(toFile: root + "/out/main.o", atomically: true, encoding: .utf8)
            try "out/main.o: main.c h.h\n".write(toFile: root + "/out/main.d", atomically: true, encoding: .utf8)
        }
        let (ada, adaRoot) = try make("ada", header: "#define A 1\n")
        // As a checkout's files are: written before the job started, not in the same tick.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: adaRoot + "/h.h")
        #expect(try await run(cache(ada, path: tools), adaRoot, job: "compile", compile) == .ran)
        let (bob, bobRoot) = try make("bob", header: "#define A 1\n")
        #expect(try await run(cache(bob, path: tools), bobRoot, job: "compile", compile) == .restored)
        #expect(try text(bobRoot + "/out/main.d").hasPrefix("out/main.o: main.c h.h"))
        let (cyd, cydRoot) = try make("cyd", header: "#define A 2\n")
        #expect(try await run(cache(cyd, path: tools), cydRoot, job: "compile", compile) == .ran)
        #expect(said.withLock { $0 }.contains {
            $0.hasPrefix("explain: compile: not in the cache: input h.h (found by its depfile) differs")
        })
    }

    /// A file the depfile names that was written while the job ran may have changed under it:
    /// the result is not stored (ccache's "too new" files).
    @Test func aDiscoveredInputWrittenWhileTheJobRanIsNotStored() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada", job: """
              compile:
                run: mytool main.c out/main.o
                outputs: [out/main.o]
                depfile: out/main.d
            """)
        let adaCache = cache(ada, path: tools)
        try await run(adaCache, adaRoot, job: "compile") { root in
            try "#define A 3\n".write(toFile: root + "/h.h", atomically: true, encoding: .utf8)
            try "object\n".write(toFile: root + "/out/main.o", atomically: true, encoding: .utf8)
            try "out/main.o: h.h\n".write(toFile: root + "/out/main.d", atomically: true, encoding: .utf8)
        }
        #expect(adaCache.statistics.current.stored == 0 && adaCache.statistics.current.notStored == 1)
        #expect(said.withLock { $0 }.contains { $0.contains("h.h, found by its depfile, changed while it ran") })
    }

    @Test func aReadOnlyCacheStoresNothing() async throws {
        let tools = try tool(in: "bin")
        let (ada, adaRoot) = try checkout("ada")
        let readOnly = try DirectoryCache(path: directory.file("cache"), readOnly: true)
        let adaCache = cache(ada, path: tools, store: readOnly)
        #expect(try await run(adaCache, adaRoot) == .ran)
        #expect(adaCache.statistics.current.stored == 0)
        let (bob, bobRoot) = try checkout("bob")
        #expect(try await run(cache(bob, path: tools), bobRoot) == .ran)
    }

    /// `cache: false`, `inherit-env: true` and a job without outputs are never cached, and the
    /// last two run with the environment they would have without a cache.
    @Test func optedOutJobsAreNotCached() async throws {
        let tools = try tool(in: "bin")
        let (file, root) = try checkout("ada", job: """
              off: { run: mytool in.txt out/off.txt, outputs: [out/off.txt], cache: false }
              open: { run: mytool in.txt out/open.txt, outputs: [out/open.txt], inherit-env: true }
              none: mytool in.txt out/none.txt
            """)
        let jobs = cache(file, path: tools)
        for name in ["off", "open", "none"] {
            #expect(try await run(jobs, root, job: name) == .uncached)
            #expect(jobs.environment(of: try #require(file.job(named: name)), inherited: ["SECRET": "1"]) == nil)
        }
        let copy = try #require(file.job(named: "copy"))
        let closed = try #require(jobs.environment(of: copy, inherited: ["SECRET": "1", "PATH": "/bin", "HOME": "/home/ada"]))
        #expect(closed == ["PATH": "/bin", "HOME": "/home/ada"])
    }
}
