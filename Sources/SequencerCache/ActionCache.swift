#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One job (a workflow file's) or edge (a ninja build's) as the cache sees it: what went into
/// its key, and who it is for people and for `--explain`.
public struct CacheAction: Sendable {
    /// For people, in messages: the job's name, or the edge's first output.
    public var name: String
    /// The workflow (its file, relative to the root, or `build.ninja`) and the job in it: the
    /// name its latest result is kept under, for `--explain` and `cache ls`.
    public var workflow: String
    public var job: String
    /// What goes into its key before it runs: everything but the inputs its depfile finds.
    public var declared: KeyPreimage
    /// Whether it has a depfile: it is then looked up in two steps.
    public var discovers: Bool
    /// Where this run's outputs go, absolute, in the order they are stored: a restored result's
    /// outputs are written there. Nil: where the result names them, under the root (the same
    /// paths in every checkout). A ninja build's file names may hold the checkout's path.
    public var outputs: [String]?

    public init(name: String, workflow: String, job: String, declared: KeyPreimage, discovers: Bool, outputs: [String]? = nil) {
        (self.name, self.workflow, self.job, self.declared, self.discovers) = (name, workflow, job, declared, discovers)
        self.outputs = outputs
    }
}

/// Where a run writes, and whom it trusts.
public struct CacheNamespaces: Sendable, Hashable {
    /// Where results are stored (`--cache-namespace`).
    public var write: String
    /// Where results are looked for, in order (`--cache-trust`): a writer of another namespace
    /// can never change what these give.
    public var trusted: [String]

    /// By default a run trusts what it writes, then `main`.
    public init(write: String = CacheNamespace.standard, trusted: [String]? = nil) {
        self.write = write
        self.trusted = trusted ?? (write == CacheNamespace.standard ? [write] : [write, CacheNamespace.standard])
    }
}

/// The cache's side of running an action, whatever runs it: before, a look-up that restores a
/// complete entry; after a success, a check that nothing changed while it ran, then the store.
///
/// An action with a depfile is looked up in two steps, as ccache's direct mode does: its first
/// key (everything declared) names the sets of inputs its depfile found on the runs stored so
/// far; each set, hashed as the files are here, gives a second key, of a result. A checkout
/// with no depfile yet still hits.
///
/// Nothing the cache does fails an action: what cannot be done is said (`warn`), and it runs.
public final class ActionCache: Sendable {
    /// How many sets of discovered inputs an action's first key keeps, newest first.
    public static let discoveredSets = 8

    public let store: any CacheStore
    public let root: ProjectRoot
    public let namespaces: CacheNamespaces
    public let statistics = CacheStatistics()
    /// The digests of the files its keys name, each read once while it stays as it was (a
    /// header that many actions include); a runner hashes its declared inputs with it too.
    public let digests = FileDigests()
    /// Whether entries are restored (`--force` runs every action, and stores what it made).
    private let restores: Bool
    private let explain: (@Sendable (_ name: String, _ words: String) -> Void)?
    private let warn: @Sendable (String) -> Void
    /// Whether a miss claims its key first (``CacheClaims``), so that two runners never run
    /// one action at once: a queue's workers. Nil: every miss runs.
    private let coalescing: Coalescing?

    /// How a runner claims the keys it runs, and waits for those others run.
    public struct Coalescing: Sendable {
        /// Who claims: the runner (a worker's name); each claim adds a number of its own, so
        /// that the runner's own jobs coalesce with each other too.
        public var owner: String
        /// How long a claim lasts unrenewed (a PostgreSQL claim whose holder died goes then);
        /// the holder renews it three times as often while it runs.
        public var lease: Duration
        /// How often a waiter looks for the result.
        public var poll: Duration
        /// The longest a waiter waits before it runs the action itself.
        public var longestWait: Duration

        public init(owner: String, lease: Duration = .seconds(30), poll: Duration = .milliseconds(200), longestWait: Duration = .seconds(3600)) {
            (self.owner, self.lease, self.poll, self.longestWait) = (owner, lease, poll, longestWait)
        }
    }

    /// - Parameters:
    ///   - explain: told, for each action, whether it was restored or why it missed
    ///     (`--explain`); nil to work nothing of it out.
    ///   - warn: told what could not be done (a restore that failed, a result not stored).
    ///   - coalescing: a miss claims its key first, and waits for another runner's result.
    public init(
        store: any CacheStore, root: ProjectRoot, namespaces: CacheNamespaces = CacheNamespaces(), restores: Bool = true,
        coalescing: Coalescing? = nil, explain: (@Sendable (String, String) -> Void)? = nil,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        (self.store, self.root, self.namespaces, self.restores) = (store, root, namespaces, restores)
        (self.coalescing, self.explain, self.warn) = (coalescing, explain, warn)
    }

    /// What a look-up did.
    public enum Lookup: Sendable {
        /// The outputs are in place, and the printed output at the path given: the action does
        /// not run.
        case restored(key: CacheDigest, result: ActionResult)
        /// It runs; ``store(_:ticket:after:discovered:outputs:printedPath:duration:)`` takes its result.
        case missed(Ticket)
    }

    /// What a miss hands to the store: when the action started, by the files' clock, and the
    /// claim on its key, when it holds one (given up by the store, or ``abandon(_:)``).
    public struct Ticket: Sendable {
        let started: Int64
        var claim: Claim?
    }

    /// A key this runner claimed, renewed until it is given up.
    final class Claim: Sendable {
        let key: CacheDigest
        let owner: String
        let renewal: Task<Void, Never>

        init(key: CacheDigest, owner: String, renewal: Task<Void, Never>) {
            (self.key, self.owner, self.renewal) = (key, owner, renewal)
        }
    }

    /// Looks `action` up in the trusted namespaces, and restores its outputs when an entry is
    /// complete. With coalescing, a miss claims the action's key, or waits while another
    /// runner holds it and restores what it stores.
    /// - Parameter printedPath: where what it printed goes, when restored.
    public func lookUp(_ action: CacheAction, printedPath: String) async -> Lookup {
        var ticket = Ticket(started: Self.fileClock())
        do {
            let (restored, explained) = try await find(action, printedPath: printedPath)
            if let restored { return restored }
            if let explain, restores, !explained { explain(action.name, "not in the cache: " + (try await whyMissed(action))) }
        } catch {
            warn("sequencer: \(action.name): the cache could not be read (\(error)); it runs")
        }
        switch await coalesce(action, printedPath: printedPath) {
        case .restored(let lookup)?: return lookup
        case .claimed(let claim)?: ticket.claim = claim
        case nil: break
        }
        statistics.update { $0.misses += 1 }
        return .missed(ticket)
    }

    /// The action's result restored, when the cache has a complete one; and whether why not was
    /// said already.
    private func find(_ action: CacheAction, printedPath: String) async throws -> (Lookup?, explained: Bool) {
        guard restores else { return (nil, true) }
        for key in try await resultKeys(of: action) {
            switch try await store.record(for: key, in: namespaces.trusted) {
            case .found(.result(let result), let namespace):
                if await restore(result, of: action, key: key, printedPath: printedPath) {
                    explain?(action.name, "restored from the cache (key \(key.short), namespace \(namespace))")
                    return (.restored(key: key, result: result), true)
                }
                return (nil, true)
            case .incomplete(let missing, let namespace):
                explain?(action.name, "not restored: its entry in the cache (key \(key.short), namespace \(namespace)) "
                         + "is incomplete, blob \(missing.short) is gone")
                return (nil, true)
            case .found, .missing: continue
            }
        }
        return (nil, false)
    }

    private enum Coalesced {
        case restored(Lookup)
        case claimed(Claim)
    }

    /// Claims the action's key, waiting while another runner holds it: its result, restored
    /// once it stores it; the claim, when this runner is to run it; nil without coalescing, or
    /// when claims cannot be made (it runs anyway).
    private func coalesce(_ action: CacheAction, printedPath: String) async -> Coalesced? {
        guard restores, let coalescing, !store.isReadOnly, let claims = store as? any CacheClaims else { return nil }
        let key = action.declared.digest
        let owner = coalescing.owner + " " + UUID().uuidString
        let started = ContinuousClock.now
        var wait = ClaimWait(longestWait: coalescing.longestWait)
        var found: Lookup?
        while true {
            switch wait.step {
            case .claim:
                do {
                    let won = try await claims.claim(key, owner: owner, lease: coalescing.lease)
                    wait.next(.claimed(won: won, elapsed: ContinuousClock.now - started))
                } catch {
                    warn("sequencer: \(action.name): its key cannot be claimed (\(error)); it runs")
                    wait.next(.claimFailed)
                }
            case .wait(let say):
                if say { explain?(action.name, "another runner is running it (key \(key.short)); waiting for its result") }
                let cancelled = (try? await Task.sleep(for: coalescing.poll)) == nil
                wait.next(.waited(cancelled: cancelled))
            case .lookUp:
                found = (try? await find(action, printedPath: printedPath))?.0
                wait.next(.lookedUp(found: found != nil))
            case .restore:
                return found.map { .restored($0) }
            case .run(claimed: false):
                return nil
            case .run(claimed: true):
                let renewal = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: coalescing.lease / 3)
                        guard !Task.isCancelled else { return }
                        _ = try? await claims.claim(key, owner: owner, lease: coalescing.lease)
                    }
                }
                return .claimed(Claim(key: key, owner: owner, renewal: renewal))
            }
        }
    }

    /// Gives up the claim a miss holds, without storing (the action failed, or was stopped).
    public func abandon(_ ticket: Ticket) async {
        guard let claim = ticket.claim, let claims = store as? any CacheClaims else { return }
        // The renewal ends before the release: one in flight would take the claim again after
        // it, and hold it with no one to give it up (a directory's lock until the process
        // ends; PostgreSQL's lease until it runs out), so waiters waited for nothing.
        claim.renewal.cancel()
        await claim.renewal.value
        try? await claims.release(claim.key, owner: claim.owner)
    }

    // MARK: Looking up

    /// The keys of the results that may be the action's: its own without a depfile; one for
    /// each set of inputs its depfile found before, with one.
    private func resultKeys(of action: CacheAction) async throws -> [CacheDigest] {
        guard action.discovers else { return [action.declared.digest] }
        guard case .found(.discovered(let sets), _) = try await store.record(
            for: Self.firstKey(action.declared), in: namespaces.trusted) else { return [] }
        return sets.compactMap { discovered($0, into: action.declared)?.digest }
    }

    /// The first key of an action with a depfile: where the sets of inputs it found are kept.
    static func firstKey(_ declared: KeyPreimage) -> CacheDigest {
        declared.adding([KeyPreimage.Entry(.format, "lookup", "discovered inputs")]).digest
    }

    /// `declared` with the files of `set` (relative to the root, or absolute) by content as
    /// they are now; nil when one is missing (the set cannot be this run's).
    private func discovered(_ set: [String], into declared: KeyPreimage) -> KeyPreimage? {
        var entries: [KeyPreimage.Entry] = []
        for path in set {
            guard let digest = digests.digest(of: resolve(path))?.digest else { return nil }
            entries.append(.init(.discovered, path, digest.hex))
        }
        return declared.adding(entries)
    }

    /// Why `action` missed, against its latest entry in a trusted namespace.
    private func whyMissed(_ action: CacheAction) async throws -> String {
        let latest = KeyPreimage.latestKey(workflow: action.workflow, job: action.job)
        guard case .found(.latest(let key), let namespace) = try await store.record(for: latest, in: namespaces.trusted) else {
            return "no entry for it yet" + (action.discovers ? " (nor for its depfile's inputs)" : "")
        }
        let nearest: ActionResult
        switch try await store.record(for: key, in: [namespace]) {
        case .found(.result(let result), _): nearest = result
        case .incomplete(let missing, _): return "its nearest entry (key \(key.short)) is incomplete: blob \(missing.short) is gone"
        default: return "its nearest entry (key \(key.short)) is gone"
        }
        // The nearest entry's discovered inputs, as they are here.
        var mine = action.declared
        if action.discovers {
            let names = nearest.preimage.entries.filter { $0.kind == .discovered }.map(\.name)
            mine = mine.adding(names.map { .init(.discovered, $0, digests.digest(of: resolve($0))?.digest.hex ?? "missing") })
        }
        let difference = mine.firstDifference(from: nearest.preimage) ?? "the same inputs, stored under another key"
        return "\(difference), against its nearest entry (key \(key.short))"
    }

    // MARK: Restoring

    /// Writes the result's outputs and printed output in place; false (said) when one fails.
    private func restore(_ result: ActionResult, of action: CacheAction, key: CacheDigest, printedPath: String) async -> Bool {
        do {
            var bytes: Int64 = 0
            let targets = action.outputs.flatMap { $0.count == result.outputs.count ? $0 : nil }
            for (index, output) in result.outputs.enumerated() {
                let target = targets?[index] ?? resolve(output.path)
                let parent = (target as NSString).deletingLastPathComponent
                if !parent.isEmpty { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
                try await store.fetchBlob(output.digest, to: target)
                if output.executable { chmod(target, 0o755) }
                bytes += output.size
            }
            if let printed = result.printed { try await store.fetchBlob(printed, to: printedPath) }
            statistics.update {
                $0.hits += 1
                $0.bytesRestored += bytes
                $0.secondsSaved += result.duration
            }
            return true
        } catch {
            statistics.update { $0.failedRestores += 1 }
            warn("sequencer: \(action.name): its entry in the cache (key \(key.short)) could not be restored (\(error)); it runs")
            return false
        }
    }

    // MARK: Storing

    /// Stores the result of `action`, which just succeeded, unless an input changed while it
    /// ran (bazel#3360): a declared one whose content is not what it was before (`after`, the
    /// declared pre-image taken again now), or one its depfile found written since it started.
    /// - Parameters:
    ///   - discovered: the files its depfile named (as written, or absolute), declared ones
    ///     among them or not.
    ///   - outputs: the files it made, absolute.
    ///   - printedPath: a file holding what it printed, if it printed anything.
    public func store(
        _ action: CacheAction, ticket: Ticket, after: KeyPreimage, discovered: [String], outputs: [String], printedPath: String?,
        duration: Duration
    ) async {
        await keep(action, ticket: ticket, after: after, discovered: discovered, outputs: outputs, printedPath: printedPath, duration: duration)
        // Released once stored: a waiter finds the result, or runs the action when there is none.
        await abandon(ticket)
    }

    private func keep(
        _ action: CacheAction, ticket: Ticket, after: KeyPreimage, discovered: [String], outputs: [String], printedPath: String?,
        duration: Duration
    ) async {
        guard !store.isReadOnly else { return }
        do {
            guard let preimage = checkedAgain(action, ticket: ticket, after: after, discovered: discovered) else {
                statistics.update { $0.notStored += 1 }
                return
            }
            var stored: [ActionResult.Output] = []
            var bytes: Int64 = 0
            for path in outputs {
                guard Self.isRegularFile(path), let file = CacheDigest.ofFile(path) else {
                    throw CacheError(.io, location: path, "an output is not a file it made")
                }
                try await store.storeBlob(file.digest, from: path)
                stored.append(.init(path: root.relative(path), digest: file.digest, size: file.size, executable: access(path, X_OK) == 0))
                bytes += file.size
            }
            var printed: (digest: CacheDigest, size: Int64)?
            if let printedPath, let file = CacheDigest.ofFile(printedPath), file.size > 0 {
                try await store.storeBlob(file.digest, from: printedPath)
                printed = file
                bytes += file.size
            }
            var result = ActionResult(
                outputs: stored, printed: printed?.digest, preimage: preimage,
                duration: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18,
                storedAt: Int64(Date().timeIntervalSince1970 * 1000))
            (result.job, result.workflow, result.printedSize) = (action.job, action.workflow, printed?.size)
            let key = preimage.digest
            try await store.store(.result(result), for: key, in: namespaces.write)
            if action.discovers { try await addDiscovered(preimage, declared: action.declared) }
            try await store.store(.latest(key), for: KeyPreimage.latestKey(workflow: action.workflow, job: action.job), in: namespaces.write)
            statistics.update {
                $0.stored += 1
                $0.bytesStored += bytes
            }
        } catch {
            statistics.update { $0.notStored += 1 }
            warn("sequencer: \(action.name): its result is not stored in the cache: \(error)")
        }
    }

    /// Counts a result not stored, and says why.
    public func warnNotStored(_ name: String, _ why: String) {
        statistics.update { $0.notStored += 1 }
        warn("sequencer: \(name): its result is not stored in the cache: \(why)")
    }

    /// The action's pre-image as it ran (with what its depfile found), or nil (said) when an
    /// input changed while it ran.
    private func checkedAgain(_ action: CacheAction, ticket: Ticket, after: KeyPreimage, discovered: [String]) -> KeyPreimage? {
        if let difference = after.firstDifference(from: action.declared) {
            warn("sequencer: \(action.name): its result is not stored in the cache: an input changed while it ran (\(difference))")
            return nil
        }
        guard action.discovers else { return action.declared }
        let known = Set(action.declared.entries.filter { $0.kind == .input || $0.kind == .volatile }.map(\.name))
        var set: [String] = []
        for name in discovered {
            let relative = root.relative(name)
            guard !known.contains(relative), !set.contains(relative) else { continue }
            // Written since the action started, or in the same tick of the files' clock: it may
            // have changed while it ran (ccache's "too new" files).
            if let modified = Self.modificationTime(of: resolve(relative)), modified >= ticket.started {
                warn("sequencer: \(action.name): its result is not stored in the cache: \(relative), found by its depfile, "
                     + "changed while it ran")
                return nil
            }
            set.append(relative)
        }
        guard let preimage = self.discovered(set, into: action.declared) else {
            warn("sequencer: \(action.name): its result is not stored in the cache: a file its depfile names is missing")
            return nil
        }
        return preimage
    }

    /// Adds the discovered inputs of `preimage` to the sets under the action's first key.
    private func addDiscovered(_ preimage: KeyPreimage, declared: KeyPreimage) async throws {
        let set = preimage.entries.filter { $0.kind == .discovered }.map(\.name)
        let first = Self.firstKey(declared)
        var sets: [[String]] = []
        if case .found(.discovered(let known), _) = try await store.record(for: first, in: [namespaces.write]) { sets = known }
        sets.removeAll { $0 == set }
        sets.insert(set, at: 0)
        try await store.store(.discovered(Array(sets.prefix(Self.discoveredSets))), for: first, in: namespaces.write)
    }

    // MARK: Files

    /// A path the cache keeps (relative to the root, or absolute), absolute here.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : root.path + "/" + path
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// A file's modification time, in nanoseconds since 1970.
    private static func modificationTime(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        return Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
    }

    /// Now, by the clock files' times are taken from (in nanoseconds since 1970): Linux stamps
    /// a file with its coarse clock, which lags the precise one by up to a tick, so a file
    /// written after this moment has a time no earlier than it.
    static func fileClock() -> Int64 {
        var now = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        let lag: Int64 = 0
        #else
        clock_gettime(CLOCK_REALTIME, &now)
        let lag: Int64 = 10_000_000
        #endif
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - lag
    }
}
