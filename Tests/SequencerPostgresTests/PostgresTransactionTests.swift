import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SequencerCache
import Synchronization
import Testing
@testable import SequencerPostgres
import SequencerTestHelpers

/// A transaction the server ends because another changed what it read (40001) is run again,
/// as a deadlock's (40P01) is: a cache look-up that marks a blob used while `gc` touches it.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .suiteTimeLimit)
struct PostgresTransactionTests {
    @Test func aSerializationFailureIsTriedAgain() async throws {
        try await TestServer.withDatabase { url in
            let cache = try await PostgresCache(url: url)
            do {
                let files = try TemporaryBlob()
                defer { files.remove() }
                try await cache.storeBlob(files.digest, from: files.path)
                let tries = Mutex(0)
                let used = try await cache.transaction("marking a blob used", isolation: "REPEATABLE READ") { connection, logger in
                    let attempt = tries.withLock { tries in
                        tries += 1
                        return tries
                    }
                    // The snapshot is taken here; on the first try another commits a change to the
                    // row before this transaction updates it.
                    let before = try await connection.rows("SELECT used_at FROM sequencer_cache.blobs WHERE digest = \(files.digest.hex)", logger)
                    #expect(before.count == 1)
                    if attempt == 1 {
                        try await TestServer.admin(url, "UPDATE sequencer_cache.blobs SET used_at = used_at + 1 WHERE digest = '\(files.digest.hex)'")
                    }
                    try await connection.rows("UPDATE sequencer_cache.blobs SET used_at = 42 WHERE digest = \(files.digest.hex)", logger)
                    return attempt
                }
                #expect(used == 2, "the first try ended with 40001 and the second committed")
                #expect(tries.withLock { $0 } == 2)
            } catch {
                await cache.close()
                throw error
            }
            await cache.close()
        }
    }
}

/// A small file and its digest.
private struct TemporaryBlob {
    let path = NSTemporaryDirectory() + "/blob-\(UUID().uuidString)"
    let digest: CacheDigest

    init() throws {
        let bytes = Data("a blob to mark used\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        digest = CacheDigest.of(bytes)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
