import Foundation
import SequencerCache
import SequencerTestHelpers
import Synchronization
import Testing

/// Eight runners on one directory cache at once, round after round, while a collector evicts
/// under them, as a team's checkouts and a `gc` share a mount: every restore gives the bytes its
/// key stands for (never another key's, never half), every miss stores, half the runners
/// coalesce on keys (a claim on each miss, a wait on another's), and nothing hangs: a watchdog
/// prints every thread's stack and fails the process when operations stop.
///
/// `SEQUENCER_STRESS_ROUNDS` sets the number of rounds of 1,000 look-ups; without it, one round
/// of 300 runs with the other suites. CI runs the long form in a step of its own:
/// `SEQUENCER_STRESS_ROUNDS=10 swift test --skip-build --filter CacheStressTests`.
@Suite struct CacheStressTests {
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

    @Test("runners restoring, storing and coalescing on one directory cache while it is collected")
    func runnersAndACollectorShareOneDirectoryCache() async throws {
        let asked = ProcessInfo.processInfo.environment["SEQUENCER_STRESS_ROUNDS"].flatMap { Int($0) }
        let rounds = asked ?? 1
        let perRound = asked == nil ? 300 : 1_000
        let files = try TemporaryDirectory(prefix: "cache-stress")
        defer { files.remove() }
        let store = try DirectoryCache(path: files.file("cache"))
        let watchdog = Watchdog("cache stress", stall: .seconds(60))
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
            let next = Shared(0)
            let done = Shared(false)
            // Evicts down to about a tenth of what the keys make, again and again, on a thread of
            // its own (Swift's pool is the runners'), while they work.
            let collector = Task.detached {
                try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Int, any Error>) in
                    Thread.detachNewThread {
                        var collections = 0
                        do {
                            while !done.value.load(ordering: .relaxed) {
                                _ = try store.collect(maxSize: 250_000, staleAfter: 3600)
                                collections += 1
                            }
                            finished.resume(returning: collections)
                        } catch {
                            finished.resume(throwing: error)
                        }
                    }
                }
            }
            let (hits, stores, wrong) = try await withThrowingTaskGroup(of: (Int, Int, [String]).self) { group in
                for (lane, (root, cache)) in runners.enumerated() {
                    group.addTask {
                        var (hits, stores, wrong) = (0, 0, [String]())
                        var random = SystemRandomNumberGenerator()
                        while next.value.add(1, ordering: .relaxed).oldValue < perRound {
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
            done.value.store(true, ordering: .relaxed)
            let collections = try await collector.value
            watchdog.note("round \(round + 1) of \(rounds): \(hits) restored, \(stores) stored, \(collections) collections")
            #expect(wrong.isEmpty, "round \(round + 1): restored outputs that are not their key's: \(wrong.prefix(5))")
            let verification = try store.verify(repair: false)
            #expect(verification.damagedBlobs.isEmpty && verification.damagedRecords.isEmpty, "round \(round + 1): \(verification)")
            #expect(store.usage().temporaries == 0, "round \(round + 1): writes left temporary files behind")
            totals = (totals.hits + hits, totals.stores + stores, totals.collections + collections)
        }
        // Both ways were taken: a test that only ever missed (or only hit) proves little.
        #expect(totals.hits > 0 && totals.stores > 0 && totals.collections > 0)
        let said = warnings.withLock { $0 }
        print("cache stress: \(rounds * perRound) look-ups by \(Self.width) runners: \(totals.hits) restored, \(totals.stores) stored, "
            + "\(totals.collections) collections, \(said.count) warnings\(said.first.map { " (first: \($0))" } ?? "")")
    }
}

/// An atomic value several tasks share.
private final class Shared<Value: AtomicRepresentable>: Sendable where Value: Sendable {
    let value: Atomic<Value>
    init(_ initial: Value) { value = Atomic(initial) }
}
