import Foundation
import SequencerCache
import SequencerCacheHTTP
import SequencerServe
import SequencerTestHelpers
import Testing

/// A cache server's task cancelled while clients connect ends, and never takes the process
/// down: a connection accepted but not yet served when the cancel came was dropped unserved,
/// and SwiftNIO traps on that ("Deinited NIOAsyncWriter without calling finish()", a CI run
/// whose test had gone over its time limit and cancelled the server under its clients; then CI
/// run 78, where the server's graceful shutdown ran out of its two seconds under load and was
/// cancelled, so it is no longer bounded; see `serveUntilCancelled`). Small
/// (12 rounds of 8 clients): under the whole suite's load, 40 rounds of 16 took over five
/// minutes, and loaded every other test while they ran.
@Suite(.suiteTimeLimit) struct CacheServerShutdownTests {
    @Test func aServerCancelledUnderItsClientsEnds() async throws {
        let files = try TemporaryDirectory()
        let cache = try DirectoryCache(path: files.file("served"))
        for round in 0..<12 {
            let (ready, address) = AsyncStream.makeStream(of: String.self)
            let server = Task { try await CacheServer(cache: cache, host: "127.0.0.1", port: 0).run { address.yield($0) } }
            var addresses = ready.makeAsyncIterator()
            let url = try #require(await addresses.next())
            let client = try HTTPCache(url: url)
            let missing = CacheDigest.of(Data("never stored".utf8))
            // Clients keep connecting, and the server is cancelled as the first answer comes:
            // connections are being accepted at that moment.
            let (answered, answer) = AsyncStream.makeStream(of: Void.self)
            let clients = Task {
                defer { answer.finish() }
                await withDiscardingTaskGroup { group in
                    for _ in 0..<8 {
                        group.addTask {
                            for _ in 0..<4 {
                                guard (try? await client.hasBlob(missing)) != nil else { return }
                                answer.yield()
                            }
                        }
                    }
                }
            }
            // The first answer, or the clients' end if every request failed (on a loaded
            // machine one may miss its deadline): either way the server is cancelled under them.
            var answers = answered.makeAsyncIterator()
            _ = await answers.next()
            server.cancel()
            let ended = await server.result
            if case .failure(let error) = ended {
                #expect(error is CancellationError, "round \(round): \(error)")
            }
            await clients.value
        }
    }
}
