import Foundation
import SequencerCache
import SequencerTestHelpers
import Testing

/// `sequencer cache verify` and `gc` on a directory cache: damage found and removed, the least
/// recently used removed first, a size kept.
@Suite struct DirectoryCacheMaintenanceTests {
    let directory: TemporaryDirectory
    let cache: DirectoryCache

    init() throws {
        directory = try TemporaryDirectory()
        cache = try DirectoryCache(path: directory.file("cache"))
    }

    /// Stores a result of one output of `size` bytes (of `byte`), last used `age` seconds ago.
    @discardableResult
    private func store(_ name: String, size: Int, byte: UInt8, age: TimeInterval) async throws -> (key: CacheDigest, blob: CacheDigest) {
        let bytes = Data(repeating: byte, count: size)
        let path = directory.file(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        let digest = CacheDigest.of(bytes)
        try await cache.storeBlob(digest, from: path)
        let preimage = KeyPreimage([KeyPreimage.Entry(.command, "make \(name)")])
        var result = ActionResult(
            outputs: [.init(path: name, digest: digest, size: Int64(size))], printed: nil, preimage: preimage, duration: 1, storedAt: 0)
        result.job = name
        try await cache.store(.result(result), for: preimage.digest, in: "main")
        let used = Date(timeIntervalSinceNow: -age)
        for file in [blobPath(digest), recordPath(preimage.digest)] {
            try FileManager.default.setAttributes([.modificationDate: used], ofItemAtPath: file)
        }
        return (preimage.digest, digest)
    }

    private func blobPath(_ digest: CacheDigest) -> String { directory.file("cache/cas/\(digest.hex.prefix(2))/\(digest.hex)") }
    private func recordPath(_ key: CacheDigest) -> String { directory.file("cache/ac/main/\(key.hex.prefix(2))/\(key.hex)") }

    @Test func usageAndListingSayWhatIsKept() async throws {
        try await store("old", size: 100, byte: 1, age: 300)
        try await store("new", size: 200, byte: 2, age: 10)
        let usage = cache.usage()
        #expect(usage.blobs == 2 && usage.blobBytes == 300 && usage.results == ["main": 2])
        #expect(cache.results().map(\.result.job) == ["new", "old"])
        #expect(cache.results(in: ["other"]).isEmpty)
    }

    @Test func verifyFindsDamageAndRepairRemovesIt() async throws {
        let damaged = try await store("a", size: 100, byte: 1, age: 0)
        let gone = try await store("b", size: 100, byte: 2, age: 0)
        try await store("c", size: 100, byte: 3, age: 0)
        try Data("x".utf8).write(to: URL(fileURLWithPath: blobPath(damaged.blob)))
        try FileManager.default.removeItem(atPath: blobPath(gone.blob))
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: directory.file("cache/ac/main/zz")))
        let found = try cache.verify(repair: false)
        #expect(found.damagedBlobs == [blobPath(damaged.blob)])
        #expect(found.damagedRecords == [directory.file("cache/ac/main/zz")])
        #expect(found.incompleteResults == [recordPath(gone.key)])
        // Reading does not repair.
        #expect(FileManager.default.fileExists(atPath: blobPath(damaged.blob)))

        // Repairing removes the damaged blob first, so its result is incomplete too, and goes.
        let repaired = try cache.verify(repair: true)
        #expect(Set(repaired.incompleteResults) == [recordPath(gone.key), recordPath(damaged.key)])
        #expect(try cache.verify(repair: false).isClean)
        #expect(try await cache.record(for: damaged.key, in: ["main"]) == .missing)
        #expect(cache.results().map(\.result.job) == ["c"])
    }

    @Test func gcRemovesTheLeastRecentlyUsedUntilTheCacheFits() async throws {
        let oldest = try await store("oldest", size: 1000, byte: 1, age: 3000)
        try await store("middle", size: 1000, byte: 2, age: 2000)
        try await store("newest", size: 1000, byte: 3, age: 1000)
        let before = cache.usage().totalBytes
        let collected = try cache.collect(maxSize: before - 500)
        #expect(collected.sizeAfter <= before - 500)
        #expect(cache.results().map(\.result.job) == ["newest", "middle"])
        #expect(try await cache.record(for: oldest.key, in: ["main"]) == .missing)
        // A use makes a result the most recent: it outlives a newer one.
        let middle = try #require(cache.results().first { $0.result.job == "middle" })
        _ = try await cache.record(for: middle.key, in: ["main"])
        try await cache.fetchBlob(middle.result.outputs[0].digest, to: directory.file("back"))
        _ = try cache.collect(maxSize: cache.usage().totalBytes - 500)
        #expect(cache.results().map(\.result.job) == ["middle"])
        #expect(try cache.verify(repair: false).isClean)
    }

    @Test func gcRemovesStaleTemporariesAndKeepsFreshOnes() throws {
        let stale = directory.file("cache/tmp/.sequencer-1-stale")
        let fresh = directory.file("cache/tmp/.sequencer-1-fresh")
        for file in [stale, fresh] { try Data("half".utf8).write(to: URL(fileURLWithPath: file)) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stale)
        _ = try cache.collect(maxSize: nil)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))
    }

    @Test func aReadOnlyCacheIsNotCollectedOrRepaired() throws {
        let readOnly = try DirectoryCache(path: directory.file("cache"), readOnly: true)
        #expect { _ = try readOnly.collect(maxSize: 0) } throws: { ($0 as? CacheError)?.code == .readOnly }
        #expect { _ = try readOnly.verify(repair: true) } throws: { ($0 as? CacheError)?.code == .readOnly }
    }
}
