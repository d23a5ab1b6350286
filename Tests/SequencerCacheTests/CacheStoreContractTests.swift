import Foundation
import PostgresTestSupport
import SequencerCache
import SequencerCacheHTTP
import SequencerPostgres
import SequencerServe
import SequencerTestHelpers
import Testing

/// What every cache backend promises (``CacheStore``), checked on each: the directory, and
/// PostgreSQL on a real server. Complete results only, checked blobs, whole writes,
/// namespaces, read-only.
@Suite(.suiteTimeLimit) struct CacheStoreContractTests {
    enum Backend: String, CaseIterable, CustomStringConvertible {
        case directory, postgres, http
        var description: String { rawValue }
        static let testable: [Backend] = TestServer.available ? allCases : [.directory, .http]
    }

    /// A backend's store, and what a test does to it behind its back.
    struct Subject: Sendable {
        let store: any CacheStore
        let files: TemporaryDirectory
        /// The same cache, opened read-only.
        let readOnly: @Sendable () async throws -> any CacheStore
        /// Removes a blob's bytes, as eviction or a lost disk would.
        let removeBlob: @Sendable (CacheDigest) async throws -> Void
        /// Replaces a (small) blob's bytes with others.
        let damageBlob: @Sendable (CacheDigest, String) async throws -> Void
        /// Whether a damaged blob, once found, is removed (a Bazel HTTP cache's cannot be: it
        /// is not served, and the next store puts it right).
        var removesDamage = true
        /// Makes a result (its key) and its blob last used that many seconds earlier than they were.
        var age: @Sendable (CacheDigest, CacheDigest, TimeInterval) async throws -> Void = { _, _, _ in }

        /// A file holding `text`, and its digest.
        func file(_ text: String) throws -> (path: String, digest: CacheDigest) {
            let path = files.file("file-\(UUID().uuidString)")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return (path, CacheDigest.of(Data(text.utf8)))
        }

        /// A result of one output holding `text`, stored (blob first) under a new key.
        func storeResult(_ text: String, in namespace: String = "main") async throws -> (key: CacheDigest, result: ActionResult) {
            let (path, digest) = try file(text)
            try await store.storeBlob(digest, from: path)
            let preimage = KeyPreimage([KeyPreimage.Entry(.command, "make \(text.prefix(40)) \(UUID().uuidString)")])
            let result = ActionResult(
                outputs: [.init(path: "out.txt", digest: digest, size: Int64(text.utf8.count))], printed: nil, preimage: preimage,
                duration: 1.5, storedAt: 1_000)
            try await store.store(.result(result), for: preimage.digest, in: namespace)
            return (preimage.digest, result)
        }
    }

    func with(_ backend: Backend, _ body: (Subject) async throws -> Void) async throws {
        let files = try TemporaryDirectory()
        switch backend {
        case .directory:
            let path = files.file("cache")
            let store = try DirectoryCache(path: path)
            @Sendable func blob(_ digest: CacheDigest) -> String { "\(path)/cas/\(digest.hex.prefix(2))/\(digest.hex)" }
            var subject = Subject(
                store: store, files: files, readOnly: { try DirectoryCache(path: path, readOnly: true) },
                removeBlob: { try FileManager.default.removeItem(atPath: blob($0)) },
                damageBlob: { digest, text in try text.write(toFile: blob(digest), atomically: false, encoding: .utf8) })
            subject.age = { key, digest, seconds in
                for file in [blob(digest), "\(path)/ac/main/\(key.hex.prefix(2))/\(key.hex)"] {
                    let used = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date ?? Date()
                    try FileManager.default.setAttributes([.modificationDate: used.addingTimeInterval(-seconds)], ofItemAtPath: file)
                }
            }
            try await body(subject)
        case .http:
            let path = files.file("served")
            let served = try DirectoryCache(path: path)
            let (ready, address) = AsyncStream.makeStream(of: String.self)
            let server = Task { try await CacheServer(cache: served, host: "127.0.0.1", port: 0).run { address.yield($0) } }
            defer { server.cancel() }
            var iterator = ready.makeAsyncIterator()
            let url = try #require(await iterator.next())
            @Sendable func blob(_ digest: CacheDigest) -> String { "\(path)/cas/\(digest.hex.prefix(2))/\(digest.hex)" }
            var subject = Subject(
                store: try HTTPCache(url: url), files: files, readOnly: { try HTTPCache(url: url, readOnly: true) },
                removeBlob: { try FileManager.default.removeItem(atPath: blob($0)) },
                damageBlob: { digest, text in try text.write(toFile: blob(digest), atomically: false, encoding: .utf8) })
            subject.removesDamage = false
            try await body(subject)
        case .postgres:
            try await TestServer.withDatabase { url in
                let store = try await PostgresCache(url: url)
                do {
                    var subject = Subject(
                        store: store, files: files,
                        // Closed when it goes (its pool ends), and dropped with the database.
                        readOnly: { try await PostgresCache(url: url, readOnly: true) },
                        removeBlob: { try await TestServer.admin(url, "DELETE FROM sequencer_cache.blobs WHERE digest = '\($0.hex)'") },
                        damageBlob: { digest, text in
                            try await TestServer.admin(url, "UPDATE sequencer_cache.blobs SET data = convert_to('\(text)', 'UTF8') WHERE digest = '\(digest.hex)'")
                        })
                    subject.age = { key, digest, seconds in
                        let earlier = Int64(seconds * 1000)
                        try await TestServer.admin(url, "UPDATE sequencer_cache.records SET used_at = used_at - \(earlier) WHERE key = '\(key.hex)'")
                        try await TestServer.admin(url, "UPDATE sequencer_cache.blobs SET used_at = used_at - \(earlier) WHERE digest = '\(digest.hex)'")
                    }
                    try await body(subject)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
            }
        }
    }

    @Test(arguments: Backend.testable)
    func aStoredResultIsFoundAndItsBlobsFetchedByteForByte(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let (key, result) = try await cache.storeResult("hello\n")
            #expect(try await cache.store.record(for: key, in: ["main"]) == .found(.result(result), namespace: "main"))
            let target = cache.files.file("restored.txt")
            try await cache.store.fetchBlob(result.outputs[0].digest, to: target)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "hello\n")
            #expect(try await cache.store.record(for: CacheDigest.of(Data("other".utf8)), in: ["main"]) == .missing)
            // Large and empty blobs too (a large one is kept in chunks by PostgreSQL).
            for text in [String(repeating: "0123456789abcdef", count: 200_000), ""] {
                let (path, digest) = try cache.file(text)
                try await cache.store.storeBlob(digest, from: path)
                try await cache.store.storeBlob(digest, from: path)
                #expect(try await cache.store.hasBlob(digest))
                let back = cache.files.file("back-\(text.count)")
                try await cache.store.fetchBlob(digest, to: back)
                #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(text.utf8))
            }
        }
    }

    /// A reader sees only the namespaces it trusts, in its order: a writer to `pr-7` never
    /// changes what a reader of `main` gets.
    @Test(arguments: Backend.testable)
    func namespacesKeepWritersApart(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let (key, result) = try await cache.storeResult("from a branch", in: "pr-7")
            #expect(try await cache.store.record(for: key, in: ["main"]) == .missing)
            #expect(try await cache.store.record(for: key, in: ["main", "pr-7"]) == .found(.result(result), namespace: "pr-7"))
            var mainOwn = result
            mainOwn.duration = 99
            try await cache.store.store(.result(mainOwn), for: key, in: "main")
            #expect(try await cache.store.record(for: key, in: ["main", "pr-7"]) == .found(.result(mainOwn), namespace: "main"))
            await #expect(throws: CacheError.self) { try await cache.store.store(.result(result), for: key, in: "../main") }
            await #expect(throws: CacheError.self) { _ = try await cache.store.record(for: key, in: [""]) }
        }
    }

    /// bazel#8250: a result whose blob is gone is not served.
    @Test(arguments: Backend.testable)
    func aResultWhoseBlobIsGoneIsIncomplete(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let (key, result) = try await cache.storeResult("soon gone")
            try await cache.removeBlob(result.outputs[0].digest)
            #expect(try await cache.store.record(for: key, in: ["main"]) == .incomplete(missing: result.outputs[0].digest, namespace: "main"))
            #expect(try await cache.store.hasBlob(result.outputs[0].digest) == false)
        }
    }

    /// A result cannot be stored before its blobs: nothing incomplete is written.
    @Test(arguments: Backend.testable)
    func aResultIsStoredOnlyAfterItsBlobs(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let digest = CacheDigest.of(Data("never stored".utf8))
            let result = ActionResult(
                outputs: [.init(path: "x", digest: digest, size: 12)], printed: nil, preimage: KeyPreimage([]), duration: 0, storedAt: 0)
            await #expect(throws: CacheError.self) { try await cache.store.store(.result(result), for: digest, in: "main") }
            #expect(try await cache.store.record(for: digest, in: ["main"]) == .missing)
        }
    }

    /// A blob whose bytes no longer match its digest is refused, removed, and never served
    /// again; the file it was to replace stays as it was.
    @Test(arguments: Backend.testable)
    func aDamagedBlobIsRefusedAndRemoved(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let (key, result) = try await cache.storeResult("good bytes")
            let digest = result.outputs[0].digest
            try await cache.damageBlob(digest, "bad bytes!")
            let target = cache.files.file("restored.txt")
            try "what was here".write(toFile: target, atomically: true, encoding: .utf8)
            await #expect { try await cache.store.fetchBlob(digest, to: target) } throws: { ($0 as? CacheError)?.code == .damaged }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "what was here")
            if cache.removesDamage {
                #expect(try await cache.store.record(for: key, in: ["main"]) == .incomplete(missing: digest, namespace: "main"))
            } else {
                await #expect { try await cache.store.fetchBlob(digest, to: target) } throws: { ($0 as? CacheError)?.code == .damaged }
            }
        }
    }

    /// A file whose bytes are not those of the digest it is stored under is not stored.
    @Test(arguments: Backend.testable)
    func aFileThatChangedIsNotStored(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let (path, digest) = try cache.file("before")
            try "after".write(toFile: path, atomically: true, encoding: .utf8)
            await #expect { try await cache.store.storeBlob(digest, from: path) } throws: { ($0 as? CacheError)?.code == .changed }
            #expect(try await cache.store.hasBlob(digest) == false)
        }
    }

    @Test(arguments: Backend.testable)
    func aReadOnlyCacheWritesNothing(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let (key, result) = try await cache.storeResult("shared")
            let reader = try await cache.readOnly()
            #expect(reader.isReadOnly)
            #expect(try await reader.record(for: key, in: ["main"]) == .found(.result(result), namespace: "main"))
            let (path, digest) = try cache.file("new")
            await #expect { try await reader.storeBlob(digest, from: path) } throws: { ($0 as? CacheError)?.code == .readOnly }
            await #expect { try await reader.store(.result(result), for: key, in: "main") } throws: { ($0 as? CacheError)?.code == .readOnly }
            #expect(try await cache.store.hasBlob(digest) == false)
        }
    }

    /// Many writers of the same blob and record at once: readers see them whole.
    @Test(arguments: Backend.testable)
    func concurrentWritersOfOneBlobLeaveItWhole(_ backend: Backend) async throws {
        try await with(backend) { (cache: Subject) async throws in
            let text = String(repeating: "0123456789", count: 300_000)
            let (path, digest) = try cache.file(text)
            let result = ActionResult(
                outputs: [.init(path: "big", digest: digest, size: Int64(text.utf8.count))], printed: nil, preimage: KeyPreimage([]),
                duration: 0, storedAt: 0)
            let store = cache.store
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        try await store.storeBlob(digest, from: path)
                        try await store.store(.result(result), for: digest, in: "main")
                    }
                }
                try await group.waitForAll()
            }
            let target = cache.files.file("back.txt")
            try await store.fetchBlob(digest, to: target)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == text)
            #expect(try await store.record(for: digest, in: ["main"]) == .found(.result(result), namespace: "main"))
        }
    }

    /// Many look-ups in a row, each a request of its own: every one is answered. (An HTTP
    /// server answers a request without a body, and closes the connection, as soon as it has its
    /// head; a client that failed on writing the rest lost the answer, once in a few hundred.)
    /// 100 rounds, 300 requests a backend: under the whole suite's load on two cores, each
    /// request waits its turn behind hundreds of tasks, and 400 rounds, then 200, took over
    /// five minutes (CI runs 73 and 75). The cache stress step makes 3,000 look-ups more.
    @Test(arguments: Backend.testable)
    func everyOneOfManyLookUpsIsAnswered(_ backend: Backend) async throws {
        try await with(backend) { subject in
            let (key, result) = try await subject.storeResult("looked up again and again")
            let missing = CacheDigest.of(Data("never stored".utf8))
            for round in 0..<100 {
                #expect(try await subject.store.hasBlob(result.outputs[0].digest), "round \(round)")
                #expect(try await !subject.store.hasBlob(missing), "round \(round)")
                #expect(try await subject.store.record(for: key, in: ["main"]) == .found(.result(result), namespace: "main"), "round \(round)")
            }
        }
    }
}
