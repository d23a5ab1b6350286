import Foundation
import PostgresTestSupport
import SequencerCache
import SequencerPostgres
import SequencerTestHelpers
import Testing

/// Two runners never run one key at once: the first claims it and runs; the second waits, and
/// restores what the first stores; a claim given up lets the waiter run. On the directory
/// (file locks) and on PostgreSQL (leases). Gated on what the waiter says, not on time.
@Suite(.timeLimit(.minutes(2))) struct CoalescingTests {
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
