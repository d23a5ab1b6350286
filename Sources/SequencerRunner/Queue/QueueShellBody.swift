import Foundation
package import Sequencer
package import SequencerProcess
package import SequencerQueue
package import SequencerWorkflowFile
import SequencerHistory
import SequencerBuild
package import SequencerCache

/// How a worker runs one attempt of a workflow's job: the command in the workflow's directory,
/// its output to a scratch file and then into the queue's attempt log.
package struct QueueShellBody: Sendable {
    let directory: String
    let runner: ProcessRunner
    /// Where its checks read the fingerprints, and where its attempts and fingerprints go: the
    /// queue's store, through the history protocols.
    let history: QueueHistory
    let writer: QueueRunWriter
    let worker: String
    let scratch: String
    /// The workflow's name in the queue.
    let workflow: String
    /// This worker's copy of the workflow file: read again when a job does not match it (the
    /// file was edited since the worker started).
    let file: Locked<WorkflowFile>
    /// Where the worker's warnings go (a job refused, an input that is not there).
    let warn: @Sendable (String) -> Void
    /// The shared output cache the worker restores jobs from and stores them in, with its
    /// namespaces; nil: none. Its keys follow the worker's copy of the file (``cache(for:)``).
    let cacheStore: (store: any CacheStore, namespaces: CacheNamespaces)?
    private let workflowCache = Locked<WorkflowCache?>(nil)

    /// A body for the jobs of `file`, run in its directory by `runner`, their attempts kept in
    /// `store` under `worker`'s name, their output written in `scratch` first.
    package init(
        file: WorkflowFile, runner: ProcessRunner, store: any RunStore, worker: String, scratch: String,
        cache: (store: any CacheStore, namespaces: CacheNamespaces)? = nil, warn: @escaping @Sendable (String) -> Void
    ) {
        cacheStore = cache
        directory = URL(fileURLWithPath: file.directory).standardizedFileURL.path
        self.runner = runner
        history = QueueHistory(store: store, location: "the queue of worker \(worker)")
        self.worker = worker
        self.scratch = scratch
        workflow = QueueShellJob.workflowName(of: file)
        writer = QueueRunWriter(store: store, workflow: workflow, worker: worker)
        self.file = Locked(file)
        self.warn = warn
    }

    /// What a body returns for a job it found up to date (and 0 for one it ran): the run's
    /// follower tells them apart.
    package static let upToDate = 1

    /// The most output an attempt keeps: its last 8 MiB.
    static let outputLimit = 8 << 20

    /// Runs the attempt; returns its exit code (0), or throws for a failure.
    package func run(_ job: QueueShellJob, context: JobContext) async throws -> Int {
        let (id, attempt) = context.durableJob ?? (DurableJobID(0), context.attempt)
        let (declared, refusal) = self.declared(job)
        if let refusal {
            // Another copy of the workflow (another version, or another project of the same
            // name): the job goes back for a worker whose copy matches, and is not failed.
            warn("worker \(worker): not running \(job.name) (job \(id)): \(refusal); it goes back to the queue")
            let now = NewAttempt.now()
            writer.recordAttempt(NewAttempt(
                job: job.name, queueJob: id.rawValue, attempt: attempt, startedAt: now, endedAt: now, end: .refused,
                exit: "not run here: \(refusal)"))
            await writer.flush()
            throw CannotRunHere(refusal)
        }
        // A store that cannot be read now makes the job run: never a failure for that.
        var upToDate: QueueUpToDate?
        if let declared {
            upToDate = try? await QueueUpToDate(
                job: declared, in: file.withLock { $0 }, workflow: workflow, history: history, writer: writer, force: job.force ?? false, warn: warn)
        }
        if let upToDate, let declared, upToDate.check.isUpToDate(declared) {
            let now = NewAttempt.now()
            writer.recordAttempt(NewAttempt(
                job: job.name, queueJob: id.rawValue, attempt: attempt, startedAt: now, endedAt: now, end: .upToDate, exit: "up to date"))
            await writer.flush()
            return Self.upToDate
        }
        let directory = job.workingDirectory.map { $0.hasPrefix("/") ? $0 : self.directory + "/" + $0 } ?? self.directory
        let cache: WorkflowCache? = declared.flatMap { self.cache(for: $0) }
        let inherited = ProcessInfo.processInfo.environment
        var closed: [String: String]?
        if let cache, let declared { closed = cache.environment(of: declared, inherited: inherited) }
        var environment = closed ?? inherited.merging(job.environment) { $1 }
        environment["SEQUENCER_JOB"] = job.name
        environment["SEQUENCER_ATTEMPT"] = String(attempt)
        let logPath = scratch + "/\(id.rawValue)-\(attempt).log"
        let startedAt = NewAttempt.now()
        // Restored from the shared cache: it does not run.
        var store: (@Sendable (String, Duration) async -> Void)?
        var abandon: (@Sendable () async -> Void)?
        if let cache, let declared {
            switch await cache.lookUp(declared, printedPath: logPath) {
            case .restored(let key):
                let output = Self.output(at: logPath)
                try? FileManager.default.removeItem(atPath: logPath)
                writer.recordAttempt(NewAttempt(
                    job: job.name, queueJob: id.rawValue, attempt: attempt, startedAt: startedAt, endedAt: NewAttempt.now(),
                    end: .succeeded, exit: HistoryAttempt.restoredExit(key: key), exitCode: 0, output: output.map { .bytes($0) } ?? .none))
                await writer.flush()
                if let upToDate { await upToDate.succeeded(declared) }
                return 0
            case .missed(let keep, let giveUp): (store, abandon) = (keep, giveUp)
            case .uncached: break
            }
        }
        let clock = ContinuousClock.now
        var exit: ProcessExit?
        var summary: String
        do {
            try ShellWorkflow.makeParentDirectories(of: job.outputs, in: directory)
            let ended = try await runner.run(.shell(job.command, environment: environment, directory: directory).dyingWithParent(), outputPath: logPath)
            exit = ended
            summary = ended.description
        } catch {
            summary = (error as? ProcessError)?.description ?? "\(error)"
        }
        let output = Self.output(at: logPath)
        if exit?.succeeded == true, !Task.isCancelled {
            await store?(logPath, ContinuousClock.now - clock)
        } else {
            await abandon?()
        }
        try? FileManager.default.removeItem(atPath: logPath)
        let stopped = Task.isCancelled
        let end: NewAttempt.End = stopped ? .stopped : exit?.succeeded == true ? .succeeded : .failed
        var code: Int?
        var signal: Int?
        switch exit {
        case .exited(let value)?: code = Int(value)
        case .signaled(let value)?: signal = Int(value)
        case nil: break
        }
        // The log is the record of what ran, kept even for an attempt whose lease was lost.
        writer.recordAttempt(NewAttempt(
            job: job.name, queueJob: id.rawValue, attempt: attempt, startedAt: startedAt, endedAt: NewAttempt.now(), end: end,
            exit: summary, exitCode: code, signal: signal, output: output.map { .bytes($0) } ?? .none))
        await writer.flush()
        try context.checkCancellation()
        guard exit?.succeeded == true else { throw QueueShellJobFailure(job: job.name, summary: summary) }
        // A fingerprint that could not be kept makes the job run again next time; it succeeded.
        if let upToDate, let declared { await upToDate.succeeded(declared) }
        return 0
    }

    /// The cache's view of this worker's copy of the workflow (made again when the copy was
    /// read again); nil without a cache.
    func cache(for job: WorkflowFile.Job) -> WorkflowCache? {
        guard let cacheStore else { return nil }
        let current = file.withLock { $0 }
        return workflowCache.withLock { cache in
            if let cache, cache.keys.file.jobs.first(where: { $0.name == job.name })?.run == job.run { return cache }
            // Its jobs coalesce with every other runner's, and with each other (each claim is one job's).
            let made = WorkflowCache(
                store: cacheStore.store, file: current, namespaces: cacheStore.namespaces,
                coalescing: ActionCache.Coalescing(owner: worker), warn: warn)
            cache = made
            return made
        }
    }

    /// The job as this worker's copy of the workflow declares it; or why this worker must not
    /// run it, when that copy does not have it (the file is read again first, in case it was
    /// edited since).
    func declared(_ job: QueueShellJob) -> (WorkflowFile.Job?, refusal: String?) {
        func find() -> WorkflowFile.Job? { file.withLock { file in file.jobs.first { $0.name == job.name } } }
        if find()?.run != job.command, let edited = try? WorkflowFile.load(path: file.withLock { $0.path }).expandingVariables() {
            file.withLock { $0 = edited }
        }
        let path = file.withLock { $0.path }
        guard let declared = find() else { return (nil, "this worker's \(path) has no job '\(job.name)'") }
        guard declared.run == job.command else { return (nil, "this worker's \(path) runs another command for '\(job.name)'") }
        return (declared, nil)
    }

    static func output(at path: String) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        guard size > 0 else { return nil }
        let kept = min(Int(size), outputLimit)
        try? handle.seek(toOffset: size - UInt64(kept))
        let data = (try? handle.readToEnd()) ?? Data()
        return kept < Int(size) ? Data("[the first \(Int(size) - kept) bytes were cut]\n".utf8) + data : data
    }

    package static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// A job's command failed: its summary (`exit code 1`, `killed by SIGKILL`, a start error).
struct QueueShellJobFailure: Error, CustomStringConvertible {
    let job: String
    let summary: String
    var description: String { "\(job): \(summary)" }
}
