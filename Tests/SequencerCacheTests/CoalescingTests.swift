import Foundation
import Synchronization
import PostgresTestSupport
import SequencerCache
import SequencerPostgres
import SequencerTestHelpers
import Testing

/// Two runners never run one key at once: the first claims it and runs; the second waits, and
/// restores what the first stores; a claim given up lets the waiter run. On the directory
/// (file locks) and on PostgreSQL (leases). Gated on what the waiter says, not on time.
@Suite(.suiteTimeLimit) struct CoalescingTests {
    enum Backend: String, CaseIterable, CustomStringConvertible {
        case directory, postgres
        var description: String { rawValue }
        static let testable: [Backend] = TestServer.available ? allCases : [.directory]
    }

    func with(_ backend: Backend, _ body: (any CacheStore & CacheClaims, TemporaryDirectory) async throws -> Void) async throws {
        let files = try TemporaryDirectory()
        switch backend {
        case .directory: try await body(try DirectoryCache(path: files.file("cache")), files)
        case .postgres:
            try await TestServer.withDatabase { url in
                let store = try await PostgresCache(url: url)
                do {
                    try await body(store, files)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
            }
        }
    }

    /// An action that copies `in.txt` to `out.txt` in `root`, and the two runners' caches; the
    /// second says on `waiting` when it starts to wait.
    func runners(_ store: any CacheStore, _ files: TemporaryDirectory) throws -> (CacheAction, ActionCache, ActionCache, AsyncStream<Void>) {
        let root = files.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "in\n".write(toFile: root + "/in.txt", atomically: true, encoding: .utf8)
        let action = CacheAction(
            name: "copy", workflow: "sequencer.yml", job: "copy",
            declared: KeyPreimage([.init(.command, "cp in.txt out.txt"), .init(.input, "in.txt", CacheDigest.of(Data("in\n".utf8)).hex)]),
            discovers: false)
        let (waiting, said) = AsyncStream.makeStream(of: Void.self)
        let first = ActionCache(store: store, root: ProjectRoot(root), coalescing: .init(owner: "first", poll: .milliseconds(10)))
        let second = ActionCache(
            store: store, root: ProjectRoot(root), coalescing: .init(owner: "second", poll: .milliseconds(10)),
            explain: { _, words in if words.hasPrefix("another runner is running it") { said.yield() } })
        return (action, first, second, waiting)
    }

    @Test(arguments: Backend.testable)
    func aSecondRunnerWaitsForTheFirstsResultAndRestoresIt(_ backend: Backend) async throws {
        try await with(backend) { (store: any CacheStore & CacheClaims, files: TemporaryDirectory) async throws in
            let (action, first, second, waiting) = try runners(store, files)
            guard case .missed(let ticket) = await first.lookUp(action, printedPath: files.file("first.log")) else {
                Issue.record("the first runner found a result in an empty cache")
                return
            }
            let waiter = Task { await second.lookUp(action, printedPath: files.file("second.log")) }
            var said = waiting.makeAsyncIterator()
            await said.next()
            // The first runs, and stores.
            try FileManager.default.copyItem(atPath: files.file("root/in.txt"), toPath: files.file("root/out.txt"))
            await first.store(
                action, ticket: ticket, after: action.declared, discovered: [], outputs: [files.file("root/out.txt")],
                printedPath: nil, duration: .seconds(1))
            guard case .restored = await waiter.value else {
                Issue.record("the second runner ran the action the first had just stored")
                return
            }
            #expect(second.statistics.current.hits == 1 && second.statistics.current.misses == 0)
        }
    }

    @Test(arguments: Backend.testable)
    func aClaimGivenUpLetsTheWaiterRun(_ backend: Backend) async throws {
        try await with(backend) { (store: any CacheStore & CacheClaims, files: TemporaryDirectory) async throws in
            let (action, first, second, waiting) = try runners(store, files)
            guard case .missed(let ticket) = await first.lookUp(action, printedPath: files.file("first.log")) else {
                Issue.record("the first runner found a result in an empty cache")
                return
            }
            let waiter = Task { await second.lookUp(action, printedPath: files.file("second.log")) }
            var said = waiting.makeAsyncIterator()
            await said.next()
            // The first failed: nothing stored, the claim given up.
            await first.abandon(ticket)
            guard case .missed(let claimed) = await waiter.value else {
                Issue.record("the second runner restored a result no one stored")
                return
            }
            // The second holds the key now: a third waits in turn.
            #expect(try await store.claim(action.declared.digest, owner: "third", lease: .seconds(30)) == false)
            await second.abandon(claimed)
            #expect(try await store.claim(action.declared.digest, owner: "third", lease: .seconds(30)))
        }
    }

    /// A claim is given up only after its renewal has ended: a renewal in flight when the claim
    /// was released took it again, and held it with no one to give it up (CI run 43). The store
    /// holds the renewal's claim until the renewal is cancelled, and notes a release that comes
    /// while that claim is still in flight.
    @Test func aClaimIsReleasedOnlyAfterItsRenewalEnds() async throws {
        let files = try TemporaryDirectory()
        let store = RenewalWatch(try DirectoryCache(path: files.file("cache")))
        let root = files.file("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let cache = ActionCache(store: store, root: ProjectRoot(root), coalescing: .init(owner: "o", lease: .milliseconds(3), poll: .milliseconds(1)))
        let action = CacheAction(name: "a", workflow: "w.yml", job: "a", declared: KeyPreimage([.init(.command, "a")]), discovers: false)
        guard case .missed(let ticket) = await cache.lookUp(action, printedPath: files.file("printed")) else {
            Issue.record("a result in an empty cache")
            return
        }
        var renewing = store.renewing.makeAsyncIterator()
        await renewing.next()
        await cache.abandon(ticket)
        #expect(store.releasedDuringRenewal.withLock { $0 } == false, "the claim was released while its renewal was taking it again")
        #expect(try await store.claim(action.declared.digest, owner: "next", lease: .seconds(30)), "the claim is free")
    }

    /// A PostgreSQL claim whose lease ran out unrenewed (its holder died) is taken over.
    @Test(.enabled(if: TestServer.available)) func anExpiredLeaseIsTakenOver() async throws {
        try await with(.postgres) { (store: any CacheStore & CacheClaims, _: TemporaryDirectory) async throws in
            let key = CacheDigest.of(Data("k".utf8))
            #expect(try await store.claim(key, owner: "dead", lease: .seconds(-1)))
            #expect(try await store.claim(key, owner: "alive", lease: .seconds(30)))
            #expect(try await store.claim(key, owner: "late", lease: .seconds(30)) == false)
            // Renewing is claiming again.
            #expect(try await store.claim(key, owner: "alive", lease: .seconds(30)))
        }
    }
}

/// A directory cache whose claims are watched: an owner's second claim (its renewal) says so on
/// `renewing` and stays in flight until its task is cancelled; a release while one is in flight
/// is noted.
private final class RenewalWatch: CacheStore, CacheClaims, Sendable {
    let inner: DirectoryCache
    let renewing: AsyncStream<Void>
    private let said: AsyncStream<Void>.Continuation
    private let claims = Mutex<[String: Int]>([:])
    private let inFlight = Mutex<Set<String>>([])
    let releasedDuringRenewal = Mutex(false)

    init(_ inner: DirectoryCache) {
        self.inner = inner
        (renewing, said) = AsyncStream.makeStream(of: Void.self)
    }

    var isReadOnly: Bool { inner.isReadOnly }
    func record(for key: CacheDigest, in namespaces: [String]) async throws -> CacheLookup { try await inner.record(for: key, in: namespaces) }
    func store(_ record: CacheRecord, for key: CacheDigest, in namespace: String) async throws { try await inner.store(record, for: key, in: namespace) }
    func hasBlob(_ digest: CacheDigest) async throws -> Bool { try await inner.hasBlob(digest) }
    func storeBlob(_ digest: CacheDigest, from path: String) async throws { try await inner.storeBlob(digest, from: path) }
    func fetchBlob(_ digest: CacheDigest, to path: String) async throws { try await inner.fetchBlob(digest, to: path) }

    func claim(_ key: CacheDigest, owner: String, lease: Duration) async throws -> Bool {
        let id = key.hex + " " + owner
        let count = claims.withLock { claims in
            claims[id, default: 0] += 1
            return claims[id] ?? 0
        }
        if count == 2 {
            inFlight.withLock { _ = $0.insert(id) }
            said.yield()
            // Until the renewal is cancelled (a sleep ends at once then). Not a spin of yields:
            // in CI's full run that held a core, and this test took 90 to 155 s.
            try? await Task.sleep(for: .seconds(3_600))
            defer { inFlight.withLock { _ = $0.remove(id) } }
            return try await inner.claim(key, owner: owner, lease: lease)
        }
        return try await inner.claim(key, owner: owner, lease: lease)
    }

    func release(_ key: CacheDigest, owner: String) async throws {
        if inFlight.withLock({ $0.contains(key.hex + " " + owner) }) { releasedDuringRenewal.withLock { $0 = true } }
        try await inner.release(key, owner: owner)
    }
}
