import Foundation
import PostgresTestSupport
import SequencerCache
import SequencerCacheHTTP
import SequencerPostgres
import SequencerServe
import SequencerTestHelpers
import Synchronization
import Testing

/// Eight runners on one cache at once, round after round, while a collector evicts under them,
/// as a team's checkouts share a cache that `gc` keeps: every restore gives the bytes its
/// key stands for (never another key's, never half), every miss stores, half the runners
/// coalesce on keys (a claim on each miss, a wait on another's), and nothing hangs: a watchdog
/// prints every thread's stack and fails the process when operations stop. On each backend: a
/// directory, `sequencer cache serve` over HTTP (its directory collected behind the server), and
/// PostgreSQL (on a real server, when there is one).
///
/// `SEQUENCER_STRESS_ROUNDS` sets the number of rounds of 1,000 look-ups; without it, one round
/// of 300 runs with the other suites. CI runs the long form in a step of its own:
/// `SEQUENCER_STRESS_ROUNDS=10 swift test --skip-build --filter CacheStressTests`.
@Suite struct CacheStressTests {
    enum Backend: String, CaseIterable, CustomStringConvertible {
        case directory, http, postgres
        var description: String { rawValue }
        static let testable: [Backend] = TestServer.available ? allCases : [.directory, .http]
    }

    /// Runs `body` with the backend's store and what collects it (for HTTP, the server's
    /// directory, behind its back).
    func with(
        _ backend: Backend, _ files: TemporaryDirectory,
        _ body: (_ store: any CacheStore, _ collect: @escaping @Sendable () async throws -> Void) async throws -> Void
    ) async throws {
        switch backend {
        case .directory:
            let cache = try DirectoryCache(path: files.file("cache"))
            try await body(cache) { _ = try cache.collect(maxSize: Self.maxSize, staleAfter: 3600) }
        case .http:
            let served = try DirectoryCache(path: files.file("served"))
            let (ready, address) = AsyncStream.makeStream(of: String.self)
            let server = Task { try await CacheServer(cache: served, host: "127.0.0.1", port: 0).run { address.yield($0) } }
            defer { server.cancel() }
            var iterator = ready.makeAsyncIterator()
            let url = try #require(await iterator.next())
            try await body(try HTTPCache(url: url)) { _ = try served.collect(maxSize: Self.maxSize, staleAfter: 3600) }
        case .postgres:
            try await TestServer.withDatabase { url in
                let cache = try await PostgresCache(url: url)
                do {
                    try await body(cache) { _ = try await cache.collect(maxSize: Self.maxSize, staleAfter: 3600) }
                } catch {
                    await cache.close()
                    throw error
                }
                await cache.close()
            }
        }
    }

    /// What the collector evicts down to: about two fifths of what the keys make (in-flight writes
    /// fit: a smaller cache evicts blobs before their results are stored, and nothing is ever hit).
    static let maxSize: Int64 = 1_000_000
    static let width = 8
    static let keys = 24

    /// The bytes action `key` makes: its own line, repeated, 100 B to about 190 KB.
    static func bytes(_ key: Int) -> Data {
        let line = Data("action \(key) made this\n".utf8)
        let size = 100 + (key * 7_919) % 190_000
        var data = Data(capacity: size + line.count)
        while data.count < size { data.append(line) }
        return data.prefix(size)
    }

    static func action(_ key: Int) -> CacheAction {
        CacheAction(
            name: "make-\(key)", workflow: "stress.yml", job: "make-\(key)",
            declared: KeyPreimage([.init(.command, "make \(key)"), .init(.input, "in/\(key).txt", CacheDigest.of(Data("input \(key)".utf8)).hex)]),
            discovers: false)
    }

    @Test("runners restoring, storing and coalescing on one cache while it is collected", arguments: Backend.testable)
    func runnersAndACollectorShareOneCache(_ backend: Backend) async throws {
        let files = try TemporaryDirectory(prefix: "cache-stress")
        defer { files.remove() }
        try await with(backend, files) { store, collect in
            try await stress(backend, store, collect, files)
        }
    }

    func stress(
        _ backend: Backend, _ store: any CacheStore, _ collect: @escaping @Sendable () async throws -> Void,
        _ files: TemporaryDirectory
    ) async throws {
        let size = StressSize.current
        let rounds = size.rounds ?? 1
        let perRound = size.isLongForm ? 1_000 : 300
        // With the other suites (under the sanitizer, a million-job validation holds both of
        // Swift's pool threads for minutes), the first look-up can wait long: CI's run 42
        // stopped so. StressSize allows for it.
        let watchdog = Watchdog("cache stress (\(backend))", stall: size.stall)
        defer { watchdog.stop() }
        let warnings = Mutex<[String]>([])
        // Each runner is a checkout of its own, at its own path: the keys are the same.
        let runners = try (0..<Self.width).map { lane in
            let root = files.file("checkout-\(lane)")
            try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
            return (root, ActionCache(
                store: store, root: ProjectRoot(root),
                coalescing: lane % 2 == 0 ? .init(owner: "lane-\(lane)", poll: .milliseconds(2), longestWait: .seconds(30)) : nil,
                warn: { words in warnings.withLock { $0.append(words) } }))
        }
        var totals = (hits: 0, stores: 0, collections: 0)
        for round in 0..<rounds {
            let turns = Turns()
            // Every look-up is one runner's; every 20th, a collection as well, while the others work.
            let (hits, stores, wrong) = try await withThrowingTaskGroup(of: (Int, Int, [String]).self) { group in
                for (lane, (root, cache)) in runners.enumerated() {
                    group.addTask {
                        var (hits, stores, wrong) = (0, 0, [String]())
                        var random = SystemRandomNumberGenerator()
                        while case let turn = turns.take(), turn < perRound {
                            if turn % 20 == 19 { try await collect() }
                            let key = Int.random(in: 0..<Self.keys, using: &random)
                            let action = Self.action(key)
                            let output = root + "/out/\(key).bin"
                            unlink(output)
                            switch await cache.lookUp(action, printedPath: root + "/printed-\(key)") {
                            case .restored:
                                hits += 1
                                let found = FileManager.default.contents(atPath: output)
                                if found != Self.bytes(key) {
                                    wrong.append("lane \(lane), key \(key): \(found.map { "\($0.count) bytes, not those it stands for" } ?? "no output")")
                                }
                            case .missed(let ticket):
                                try Self.bytes(key).write(to: URL(fileURLWithPath: output), options: .atomic)
                                await cache.store(
                                    action, ticket: ticket, after: action.declared, discovered: [], outputs: [output], printedPath: nil,
                                    duration: .milliseconds(1))
                                stores += 1
                            }
                            watchdog.progress()
                        }
                        return (hits, stores, wrong)
                    }
                }
                return try await group.reduce((0, 0, [String]())) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2) }
            }
            let collections = perRound / 20
            watchdog.note("round \(round + 1) of \(rounds): \(hits) restored, \(stores) stored, \(collections) collections")
            #expect(wrong.isEmpty, "round \(round + 1): restored outputs that are not their key's: \(wrong.prefix(5))")
            let verification = try await (store as? any CacheMaintenance)?.verify(repair: false) ?? CacheVerification()
            #expect(verification.damagedBlobs.isEmpty && verification.damagedRecords.isEmpty, "round \(round + 1): \(verification)")
            #expect(try await (store as? any CacheMaintenance)?.usage().temporaries ?? 0 == 0, "round \(round + 1): writes left temporary files behind")
            totals = (totals.hits + hits, totals.stores + stores, totals.collections + collections)
        }
        // Both ways were taken: a test that only ever missed (or only hit) proves little.
        #expect(totals.hits > 0 && totals.stores > 0)
        let said = warnings.withLock { $0 }
        print("cache stress (\(backend)): \(rounds * perRound) look-ups by \(Self.width) runners: \(totals.hits) restored, \(totals.stores) stored, "
            + "\(totals.collections) collections, \(said.count) warnings\(said.first.map { " (first: \($0))" } ?? "")")
    }
}

/// Hands out 0, 1, 2, … to several tasks.
private final class Turns: Sendable {
    private let value = Atomic(0)
    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
