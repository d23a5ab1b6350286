import Foundation
import PostgresTestSupport
import SequencerCache
import SequencerCacheHTTP
import SequencerPostgres
import SequencerTestHelpers
import Testing

/// A cache that fails says so clearly, and never hangs a run: a server that does not answer is
/// given up after its deadline, one that is gone is an error at once, and a PostgreSQL cache of
/// a newer format is refused untouched.
@Suite(.suiteTimeLimit) struct CacheFailureTests {
    @Test func aServerThatHangsIsGivenUpAfterItsDeadline() async throws {
        let silent = try SilentServer()
        let cache = try HTTPCache(url: "http://127.0.0.1:\(silent.port)/", deadline: .milliseconds(300))
        await #expect {
            _ = try await cache.record(for: CacheDigest.of(Data("k".utf8)), in: ["main"])
        } throws: { error in
            guard let error = error as? CacheError else { return false }
            return error.code == .io && error.message.contains("no answer within")
        }
    }

    @Test func aServerThatIsGoneIsAnErrorAtOnce() async throws {
        let port = try SilentServer().port  // closed as soon as it is made: nothing listens there
        let cache = try HTTPCache(url: "http://127.0.0.1:\(port)/")
        await #expect { _ = try await cache.hasBlob(CacheDigest.of(Data("x".utf8))) } throws: { ($0 as? CacheError)?.code == .io }
        #expect { _ = try HTTPCache(url: "ftp://example.invalid/") } throws: { ($0 as? CacheError)?.code == .notACache }
    }

    @Test(.enabled(if: TestServer.available)) func aPostgreSQLCacheOfANewerFormatIsRefused() async throws {
        try await TestServer.withDatabase { url in
            let first = try await PostgresCache(url: url)
            await first.close()
            try await TestServer.admin(url, "INSERT INTO sequencer_cache.format (format) VALUES (2)")
            await #expect { _ = try await PostgresCache(url: url) } throws: { error in
                guard let error = error as? CacheError else { return false }
                return error.code == .newerFormat && error.message.contains("format 2; this one reads 1")
            }
            #expect(try await TestServer.number(url, "SELECT count(*) FROM sequencer_cache.format") == 2)
            await #expect { _ = try await PostgresCache(url: "postgres://nobody@127.0.0.1:1/none") } throws: { ($0 as? CacheError)?.code == .io }
        }
    }
}
