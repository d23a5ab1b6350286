import Foundation
@testable import SequencerCache
import SequencerTestHelpers
import Testing

/// A directory cache's claim is a `flock` on its file. A process forks a job's command at any
/// moment, and the child shares the claim's open file, and so its lock, until it execs: a
/// claim given up meanwhile must still be free at once (CI runs 66 and 67 found one held).
@Suite struct DirectoryClaimTests {
    @Test func aClaimGivenUpIsFreeWhileAForkedChildStillSharesItsFile() async throws {
        let directory = try TemporaryDirectory()
        let cache = try DirectoryCache(path: directory.file("cache"))
        let key = CacheDigest.of(Data("k".utf8))
        #expect(try await cache.claim(key, owner: "first", lease: .seconds(30)))
        // The child's copy of the descriptor, as fork makes it: the same open file.
        let held = try #require(cache.heldClaims.withLock { $0[key.hex + "\u{0}" + "first"] })
        let childsCopy = dup(held)
        #expect(childsCopy >= 0)
        defer { close(childsCopy) }
        try await cache.release(key, owner: "first")
        #expect(try await cache.claim(key, owner: "second", lease: .seconds(30)), "given up, the claim is free")
    }
}
