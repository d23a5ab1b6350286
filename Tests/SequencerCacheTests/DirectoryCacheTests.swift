import Foundation
import SequencerCache
import SequencerTestHelpers
import Testing

/// The directory backend keeps the store's promises: complete results only, checked blobs,
/// whole writes, namespaces, read-only, and a clear refusal of what is not its own.
@Suite struct DirectoryCacheTests {
    let directory: TemporaryDirectory
    let cache: DirectoryCache

    init() throws {
        directory = try TemporaryDirectory()
        cache = try DirectoryCache(path: directory.file("cache"))
    }

    /// A file with `text`, and its digest.
    private func file(_ name: String, _ text: String) throws -> (path: String, digest: CacheDigest) {
        let path = directory.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, CacheDigest.of(Data(text.utf8)))
    }

    /// A result of one output stored under a new key in `namespace`.
    private func storeResult(_ text: String, in namespace: String = "main") async throws -> (key: CacheDigest, result: ActionResult) {
        let (path, digest) = try file("out-\(UUID().uuidString)", text)
        try await cache.storeBlob(digest, from: path)
        let preimage = KeyPreimage([KeyPreimage.Entry(.command, "make \(text)")])
        let result = ActionResult(
            outputs: [.init(path: "out.txt", digest: digest, size: Int64(text.utf8.count))], printed: nil, preimage: preimage,
            duration: 1.5, storedAt: 1_000)
        try await cache.store(.result(result), for: preimage.digest, in: namespace)
        return (preimage.digest, result)
    }

    @Test func aStoredResultIsFoundAndItsBlobsFetchedByteForByte() async throws {
        let (key, result) = try await storeResult("hello\n")
        #expect(try await cache.record(for: key, in: ["main"]) == .found(.result(result), namespace: "main"))
        let target = directory.file("restored.txt")
        try await cache.fetchBlob(result.outputs[0].digest, to: target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "hello\n")
        #expect(try await cache.record(for: CacheDigest.of(Data("other".utf8)), in: ["main"]) == .missing)
    }

    /// A reader sees only the namespaces it trusts, in its order: a writer to `pr-7` never
    /// changes what a reader of `main` gets.
    @Test func namespacesKeepWritersApart() async throws {
        let (key, result) = try await storeResult("from a branch", in: "pr-7")
        #expect(try await cache.record(for: key, in: ["main"]) == .missing)
        #expect(try await cache.record(for: key, in: ["main", "pr-7"]) == .found(.result(result), namespace: "pr-7"))
        var poisoned = result
        poisoned.duration = 99
        try await cache.store(.result(poisoned), for: key, in: "main")
        #expect(try await cache.record(for: key, in: ["main", "pr-7"]) == .found(.result(poisoned), namespace: "main"))
        await #expect(throws: CacheError.self) { try await cache.store(.result(result), for: key, in: "../main") }
        await #expect(throws: CacheError.self) { _ = try await cache.record(for: key, in: [""]) }
    }

    /// A result whose blob is gone is not served (bazel's "missing digest").
    @Test func aResultWhoseBlobIsGoneIsIncomplete() async throws {
        let (key, result) = try await storeResult("soon gone")
        let blob = directory.file("cache/cas/\(result.outputs[0].digest.hex.prefix(2))/\(result.outputs[0].digest.hex)")
        try FileManager.default.removeItem(atPath: blob)
        #expect(try await cache.record(for: key, in: ["main"]) == .incomplete(missing: result.outputs[0].digest, namespace: "main"))
    }

    /// A result cannot be stored before its blobs: nothing incomplete is written.
    @Test func aResultIsStoredOnlyAfterItsBlobs() async throws {
        let digest = CacheDigest.of(Data("never stored".utf8))
        let result = ActionResult(
            outputs: [.init(path: "x", digest: digest, size: 12)], printed: nil, preimage: KeyPreimage([]), duration: 0, storedAt: 0)
        await #expect(throws: CacheError.self) { try await cache.store(.result(result), for: digest, in: "main") }
        #expect(try await cache.record(for: digest, in: ["main"]) == .missing)
    }

    /// A blob whose bytes no longer match its digest is refused, removed, and never served again.
    @Test func aDamagedBlobIsRefusedAndRemoved() async throws {
        let (key, result) = try await storeResult("good bytes")
        let digest = result.outputs[0].digest
        let blob = directory.file("cache/cas/\(digest.hex.prefix(2))/\(digest.hex)")
        try "bad bytes!".write(toFile: blob, atomically: false, encoding: .utf8)
        let target = directory.file("restored.txt")
        try "what was here".write(toFile: target, atomically: true, encoding: .utf8)
        do {
            try await cache.fetchBlob(digest, to: target)
            Issue.record("a damaged blob was served")
        } catch let error as CacheError {
            #expect(error.code == .damaged && error.location == blob, "\(error)")
        }
        // The file it was to replace is as it was, and the result is no longer complete.
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "what was here")
        #expect(!FileManager.default.fileExists(atPath: blob))
        #expect(try await cache.record(for: key, in: ["main"]) == .incomplete(missing: digest, namespace: "main"))
    }

    /// A file that changed between its hashing and its storing is not stored under the old digest.
    @Test func aFileThatChangedIsNotStored() async throws {
        let (path, digest) = try file("moving.txt", "before")
        try "after".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            try await cache.storeBlob(digest, from: path)
            Issue.record("a changed file was stored")
        } catch let error as CacheError {
            #expect(error.code == .changed, "\(error)")
        }
        #expect(try await cache.hasBlob(digest) == false)
    }

    /// A record that cannot be decoded is damage: said, and removed.
    @Test func aDamagedRecordIsRefusedAndRemoved() async throws {
        let (key, _) = try await storeResult("fine")
        let record = directory.file("cache/ac/main/\(key.hex.prefix(2))/\(key.hex)")
        try "{not json".write(toFile: record, atomically: true, encoding: .utf8)
        await #expect(throws: CacheError.self) { _ = try await cache.record(for: key, in: ["main"]) }
        #expect(try await cache.record(for: key, in: ["main"]) == .missing)
    }

    /// A write in progress (left in `tmp/` by a writer that was killed) is never served.
    @Test func halfWrittenFilesAreNeverServed() async throws {
        let digest = CacheDigest.of(Data("whole".utf8))
        try "who".write(toFile: directory.file("cache/tmp/.sequencer-1-half"), atomically: false, encoding: .utf8)
        #expect(try await cache.hasBlob(digest) == false)
        #expect(try await cache.record(for: digest, in: ["main"]) == .missing)
    }

    @Test func aReadOnlyCacheWritesNothing() async throws {
        let (key, result) = try await storeResult("shared")
        let reader = try DirectoryCache(path: directory.file("cache"), readOnly: true)
        #expect(reader.isReadOnly)
        #expect(try await reader.record(for: key, in: ["main"]) == .found(.result(result), namespace: "main"))
        let (path, digest) = try file("new.txt", "new")
        await #expect(throws: CacheError.self) { try await reader.storeBlob(digest, from: path) }
        await #expect(throws: CacheError.self) { try await reader.store(.result(result), for: key, in: "main") }
        #expect(throws: CacheError.self) { _ = try DirectoryCache(path: directory.file("absent"), readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent")))
    }

    /// What is not a cache of this version is refused, and left as it is.
    @Test func otherDirectoriesAndNewerFormatsAreRefusedUntouched() throws {
        let other = directory.file("project")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try "keep me".write(toFile: other + "/notes.txt", atomically: true, encoding: .utf8)
        #expect { _ = try DirectoryCache(path: other) } throws: { ($0 as? CacheError)?.code == .notACache }
        #expect(try FileManager.default.contentsOfDirectory(atPath: other) == ["notes.txt"])

        try "sequencer-cache 2\n".write(toFile: directory.file("cache/FORMAT"), atomically: true, encoding: .utf8)
        #expect { _ = try DirectoryCache(path: directory.file("cache")) } throws: { error in
            guard let error = error as? CacheError else { return false }
            return error.code == .newerFormat && error.message.contains("format 2; this one reads 1")
        }
        let file = directory.file("plain")
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        #expect { _ = try DirectoryCache(path: file) } throws: { ($0 as? CacheError)?.code == .notACache }
    }

    /// Many writers of the same blobs and records at once: every reader sees whole files.
    @Test func concurrentWritersOfOneBlobLeaveItWhole() async throws {
        let text = String(repeating: "0123456789", count: 100_000)
        let (path, digest) = try file("big.txt", text)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let writer = try DirectoryCache(path: self.directory.file("cache"))
                    try await writer.storeBlob(digest, from: path)
                }
            }
            try await group.waitForAll()
        }
        let target = directory.file("back.txt")
        try await cache.fetchBlob(digest, to: target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("cache/tmp")).isEmpty)
    }

    /// Many processes opening a cache that is not there yet, at once: each gets it, whichever
    /// finds the directory half made (its subdirectories, no FORMAT yet).
    @Test func manyOpenersOfANewCacheAllGetIt() async throws {
        let path = directory.file("new-cache")
        // As another opener leaves it between making the directories and FORMAT.
        for sub in ["", "/cas", "/ac"] {
            try FileManager.default.createDirectory(atPath: path + sub, withIntermediateDirectories: true)
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { try DirectoryCache(path: path).isReadOnly == false }
            }
            for try await opened in group { #expect(opened) }
        }
        #expect(try String(contentsOfFile: path + "/FORMAT", encoding: .utf8) == "sequencer-cache 1\n")
    }
}
