#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation
public import SequencerCache
import SequencerJournal
public import SequencerWorkflowFile

/// A workflow file's jobs through a shared output cache: before a cached job runs, its outputs
/// are restored when the cache has a complete entry for its key; after it succeeds, they are
/// stored, unless an input changed while it ran.
///
/// A job with a depfile is looked up in two steps, as ccache's direct mode does: its first key
/// (command, tool, variables, declared inputs) names the sets of inputs its depfile found on the
/// runs stored so far; each set, hashed as the files are here, gives a second key, of a result.
/// A fresh checkout has no depfile yet, and still hits.
///
/// What cannot be cached is said, and the job runs: nothing the cache does fails a job.
public final class WorkflowCache: ShellJobCache {
    /// Where a run writes, and whom it trusts.
    public struct Namespaces: Sendable, Hashable {
        /// Where results are stored (`--cache-namespace`).
        public var write: String
        /// Where results are looked for, in order (`--cache-trust`): a writer of another
        /// namespace can never change what these give.
        public var trusted: [String]

        public init(write: String = CacheNamespace.standard, trusted: [String]? = nil) {
            self.write = write
            self.trusted = trusted ?? (write == CacheNamespace.standard ? [write] : [write, CacheNamespace.standard])
        }
    }

    /// How many sets of discovered inputs a job's first key keeps, newest first.
    static let discoveredSets = 8

    public let store: any CacheStore
    public let keys: JobKeys
    public let namespaces: Namespaces
    public let statistics = CacheStatistics()
    private let inherited: [String: String]
    /// The workflow file's path relative to the root: with a job's name, where its latest key is kept.
    private let workflow: String
    /// Whether entries are restored (`--force` runs every job, and stores what it made).
    private let restores: Bool
    private let explain: (@Sendable (_ job: String, _ words: String) -> Void)?
    private let warn: @Sendable (String) -> Void

    /// - Parameters:
    ///   - explain: told, for each cached job, whether it was restored or why it missed
    ///     (`--explain`); nil to work nothing of it out.
    ///   - warn: told what could not be done (a restore that failed, a result not stored).
    ///   - restores: false runs every cached job, storing what it makes (`--force`).
    public init(
        store: any CacheStore, file: WorkflowFile, namespaces: Namespaces = Namespaces(),
        inherited: [String: String] = ProcessInfo.processInfo.environment, expansions: PatternExpansions = PatternExpansions(),
        restores: Bool = true, explain: (@Sendable (String, String) -> Void)? = nil, warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.restores = restores
        self.store = store
        keys = JobKeys(file: file, expansions: expansions)
        self.namespaces = namespaces
        self.inherited = inherited
        workflow = keys.root.relative(URL(fileURLWithPath: file.path).standardizedFileURL.path)
        self.explain = explain
        self.warn = warn
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
        let started = Self.fileClock()
        do {
            var explained = !restores
            for key in try await resultKeys(of: job, declared: declared) where restores {
                switch try await store.record(for: key, in: namespaces.trusted) {
                case .found(.result(let result), let namespace):
                    if await restore(result, of: job, key: key, printedPath: printedPath) {
                        explain?(job.name, "restored from the cache (key \(key.short), namespace \(namespace))")
                        return .restored(key: key.short)
                    }
                    explained = true
                case .incomplete(let missing, let namespace):
                    explain?(job.name, "not restored: its entry in the cache (key \(key.short), namespace \(namespace)) "
                             + "is incomplete, blob \(missing.short) is gone")
                    explained = true
                case .found, .missing: continue
                }
                break
            }
            if let explain, !explained { explain(job.name, "not in the cache: " + (try await whyMissed(job, declared: declared))) }
        } catch {
            warn("sequencer: \(job.name): the cache could not be read (\(error)); it runs")
        }
        statistics.update { $0.misses += 1 }
        return .missed { [self] printedPath, duration in
            await self.keep(job, declared: declared, printedPath: printedPath, duration: duration, started: started)
        }
    }

    // MARK: Looking up

    /// The keys of the results that may be `job`'s, with their pre-images: one for a job without
    /// a depfile; one for each set of inputs its depfile found before, for a job with one.
    private func resultKeys(of job: WorkflowFile.Job, declared: KeyPreimage) async throws -> [CacheDigest] {
        guard job.depfile != nil else { return [declared.digest] }
        guard case .found(.discovered(let sets), _) = try await store.record(
            for: Self.firstKey(declared), in: namespaces.trusted) else { return [] }
        return sets.compactMap { discovered($0, into: declared)?.digest }
    }

    /// The first key of a job with a depfile: where the sets of inputs it found are kept.
    static func firstKey(_ declared: KeyPreimage) -> CacheDigest {
        declared.adding([KeyPreimage.Entry(.format, "lookup", "discovered inputs")]).digest
    }

    /// `declared` with the files of `set` (relative to the root, or absolute) by content as
    /// they are now; nil when one is missing (the set cannot be this run's).
    private func discovered(_ set: [String], into declared: KeyPreimage) -> KeyPreimage? {
        var entries: [KeyPreimage.Entry] = []
        for path in set {
            guard let digest = CacheDigest.ofFile(resolve(path))?.digest else { return nil }
            entries.append(.init(.discovered, path, digest.hex))
        }
        return declared.adding(entries)
    }

    /// Why `job` missed, against its latest entry in a trusted namespace.
    private func whyMissed(_ job: WorkflowFile.Job, declared: KeyPreimage) async throws -> String {
        let latest = KeyPreimage.latestKey(workflow: workflow, job: job.name)
        guard case .found(.latest(let key), let namespace) = try await store.record(for: latest, in: namespaces.trusted) else {
            return "no entry for it yet" + (job.depfile != nil ? " (nor for its depfile's inputs)" : "")
        }
        let nearest: ActionResult
        switch try await store.record(for: key, in: [namespace]) {
        case .found(.result(let result), _): nearest = result
        case .incomplete(let missing, _): return "its nearest entry (key \(key.short)) is incomplete: blob \(missing.short) is gone"
        default: return "its nearest entry (key \(key.short)) is gone"
        }
        // The nearest entry's discovered inputs, as they are here.
        var mine = declared
        if job.depfile != nil {
            let names = nearest.preimage.entries.filter { $0.kind == .discovered }.map(\.name)
            mine = declared.adding(names.map { .init(.discovered, $0, CacheDigest.ofFile(resolve($0))?.digest.hex ?? "missing") })
        }
        let difference = mine.firstDifference(from: nearest.preimage) ?? "the same inputs, stored under another key"
        return "\(difference), against its nearest entry (key \(key.short))"
    }

    // MARK: Restoring

    /// Writes the result's outputs and printed output in place; false (said) when one fails.
    private func restore(_ result: ActionResult, of job: WorkflowFile.Job, key: CacheDigest, printedPath: String) async -> Bool {
        do {
            var bytes: Int64 = 0
            for output in result.outputs {
                let target = resolve(output.path)
                try makeParent(of: target)
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
            warn("sequencer: \(job.name): its entry in the cache (key \(key.short)) could not be restored (\(error)); it runs")
            return false
        }
    }

    // MARK: Storing

    /// Stores the result of `job`, which just succeeded, unless an input changed while it ran.
    private func keep(_ job: WorkflowFile.Job, declared: KeyPreimage, printedPath: String, duration: Duration, started: Int64) async {
        guard !store.isReadOnly else { return }
        do {
            guard let preimage = try checkedAgain(job, declared: declared, started: started) else {
                statistics.update { $0.notStored += 1 }
                return
            }
            var outputs: [ActionResult.Output] = []
            var bytes: Int64 = 0
            let directory = keys.directory(of: job)
            let paths = job.outputEntries.map(\.path) + (job.depfile.map { [$0.path] } ?? [])
            for path in paths {
                let absolute = keys.absolute(path, in: directory)
                guard isRegularFile(absolute), let file = CacheDigest.ofFile(absolute) else {
                    throw CacheError(.io, location: absolute, "an output is not a file it made")
                }
                try await store.storeBlob(file.digest, from: absolute)
                outputs.append(.init(
                    path: keys.root.relative(absolute), digest: file.digest, size: file.size, executable: isExecutable(absolute)))
                bytes += file.size
            }
            var printed: CacheDigest?
            if let file = CacheDigest.ofFile(printedPath) {
                try await store.storeBlob(file.digest, from: printedPath)
                printed = file.digest
                bytes += file.size
            }
            var result = ActionResult(
                outputs: outputs, printed: printed, preimage: preimage, duration: Double(duration.components.seconds)
                    + Double(duration.components.attoseconds) / 1e18,
                storedAt: Int64(Date().timeIntervalSince1970 * 1000))
            result.job = job.name
            result.workflow = workflow
            let key = preimage.digest
            try await store.store(.result(result), for: key, in: namespaces.write)
            if job.depfile != nil { try await addDiscovered(preimage, declared: declared) }
            try await store.store(.latest(key), for: KeyPreimage.latestKey(workflow: workflow, job: job.name), in: namespaces.write)
            statistics.update {
                $0.stored += 1
                $0.bytesStored += bytes
            }
        } catch {
            statistics.update { $0.notStored += 1 }
            warn("sequencer: \(job.name): its result is not stored in the cache: \(error)")
        }
    }

    /// The job's pre-image as it ran (with what its depfile found), or nil (said) when an input
    /// changed while it ran (bazel#3360): a declared input whose content is not what it was
    /// before, or a discovered one written since the job started.
    private func checkedAgain(_ job: WorkflowFile.Job, declared: KeyPreimage, started: Int64) throws -> KeyPreimage? {
        guard let now = keys.preimage(of: job, inherited: inherited, inputs: FileHasher()) else { return nil }
        if let difference = now.firstDifference(from: declared) {
            warn("sequencer: \(job.name): its result is not stored in the cache: an input changed while it ran (\(difference))")
            return nil
        }
        guard let depfile = job.depfile else { return declared }
        let directory = keys.directory(of: job)
        let path = keys.absolute(depfile.path, in: directory)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CacheError(.io, location: path, "its depfile cannot be read")
        }
        let listed: [String]
        do {
            listed = try Depfile.inputs(in: text)
        } catch {
            throw CacheError(.io, location: path, "its depfile cannot be read: \(error)")
        }
        let known = Set(declared.entries.filter { $0.kind == .input || $0.kind == .volatile }.map(\.name))
        var set: [String] = []
        for name in listed {
            let relative = keys.root.relative(Depfile.normalized(keys.absolute(name, in: directory)))
            guard !known.contains(relative), !set.contains(relative) else { continue }
            // Written since the job started, or in the same tick of the files' clock: it may have
            // changed while it ran.
            if let modified = modificationTime(of: resolve(relative)), modified >= started {
                warn("sequencer: \(job.name): its result is not stored in the cache: \(relative), found by its depfile, "
                     + "changed while it ran")
                return nil
            }
            set.append(relative)
        }
        guard let preimage = discovered(set, into: declared) else {
            throw CacheError(.io, location: path, "a file its depfile names is missing")
        }
        return preimage
    }

    /// Adds the discovered inputs of `preimage` to the sets under the job's first key.
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
    private func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : keys.root.path + "/" + path
    }

    private func makeParent(of path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    }

    private func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    private func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    /// A file's modification time, in nanoseconds since 1970.
    private func modificationTime(of path: String) -> Int64? {
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
