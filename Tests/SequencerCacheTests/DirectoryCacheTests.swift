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
        #expect(throws: CacheError.self) { _ = try DirectoryCache(path: directory.file("absent"), readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent")))
        let file = directory.file("plain")
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        #expect { _ = try DirectoryCache(path: file) } throws: { ($0 as? CacheError)?.code == .notACache }
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
