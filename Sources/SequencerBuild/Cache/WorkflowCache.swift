public import Foundation
public import SequencerCache
import SequencerJournal
public import SequencerWorkflowFile

/// A workflow file's jobs through a shared output cache (``ActionCache``): a cached job (one
/// with outputs, not opted out) runs in its closed environment; before it runs, its outputs are
/// restored when the cache has a complete entry for its key (``JobKeys``); after it succeeds,
/// they are stored, with its depfile, unless an input changed while it ran.
public final class WorkflowCache: ShellJobCache {
    public let cache: ActionCache
    public let keys: JobKeys
    private let inherited: [String: String]
    /// The workflow file's path relative to the root: with a job's name, where its latest key is kept.
    private let workflow: String
    private let explain: (@Sendable (_ job: String, _ words: String) -> Void)?

    public var store: any CacheStore { cache.store }
    public var statistics: CacheStatistics { cache.statistics }

    /// - Parameters:
    ///   - inherited: the environment the run was started in (the base set comes from it).
    ///   - restores: false runs every cached job, storing what it makes (`--force`).
    ///   - coalescing: a miss claims its key, and waits while another runner runs it (a queue's workers).
    ///   - explain: told, for each cached job, whether it was restored or why it missed
    ///     (`--explain`); nil to work nothing of it out.
    ///   - warn: told what could not be done (a restore that failed, a result not stored).
    public init(
        store: any CacheStore, file: WorkflowFile, namespaces: CacheNamespaces = CacheNamespaces(),
        inherited: [String: String] = ProcessInfo.processInfo.environment, expansions: PatternExpansions = PatternExpansions(),
        restores: Bool = true, coalescing: ActionCache.Coalescing? = nil, explain: (@Sendable (String, String) -> Void)? = nil,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        keys = JobKeys(file: file, expansions: expansions)
        cache = ActionCache(
            store: store, root: keys.root, namespaces: namespaces, restores: restores, coalescing: coalescing, explain: explain, warn: warn)
        self.inherited = inherited
        workflow = keys.root.relative(URL(fileURLWithPath: file.path).standardizedFileURL.path)
        self.explain = explain
    }

    public func environment(of job: WorkflowFile.Job, inherited: [String: String]) -> [String: String]? {
        job.isCacheable ? keys.environment(of: job, inherited: inherited) : nil
    }

    public func lookUp(_ job: WorkflowFile.Job, printedPath: String) async -> ShellCacheLookup {
        guard job.isCacheable, let declared = keys.preimage(of: job, inherited: inherited, inputs: FileHasher()) else {
            return .uncached
        }
        for path in keys.volatilePaths(of: job).sorted() {
            explain?(job.name, "volatile input \(path) is left out of its key")
        }
        let action = CacheAction(name: job.name, workflow: workflow, job: job.name, declared: declared, discovers: job.depfile != nil)
        switch await cache.lookUp(action, printedPath: printedPath) {
        case .restored(let key, _): return .restored(key: key.short)
        case .missed(let ticket):
            return .missed(
                store: { [self] printedPath, duration in
                    await self.keep(job, action: action, ticket: ticket, printedPath: printedPath, duration: duration)
                },
                abandon: { [cache] in await cache.abandon(ticket) })
        }
    }

    /// Stores the result of `job`, which just succeeded: its outputs and its depfile.
    private func keep(_ job: WorkflowFile.Job, action: CacheAction, ticket: ActionCache.Ticket, printedPath: String, duration: Duration) async {
        guard !cache.store.isReadOnly, let after = keys.preimage(of: job, inherited: inherited, inputs: FileHasher()) else {
            return await cache.abandon(ticket)
        }
        let directory = keys.directory(of: job)
        var discovered: [String] = []
        if let depfile = job.depfile {
            let path = keys.absolute(depfile.path, in: directory)
            do {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw CacheError(.io, location: path, "it cannot be read")
                }
                discovered = try Depfile.inputs(in: text).map { Depfile.normalized(keys.absolute($0, in: directory)) }
            } catch {
                cache.warnNotStored(job.name, "its depfile cannot be read (\(error))")
                return await cache.abandon(ticket)
            }
        }
        let outputs = (job.outputEntries.map(\.path) + (job.depfile.map { [$0.path] } ?? [])).map { keys.absolute($0, in: directory) }
        await cache.store(
            action, ticket: ticket, after: after, discovered: discovered, outputs: outputs,
            printedPath: printedPath, duration: duration)
    }
}
