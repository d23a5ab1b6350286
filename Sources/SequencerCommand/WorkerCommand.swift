import ArgumentParser
import Foundation
import Sequencer
import SequencerProcess
import SequencerQueue
import SequencerWorkflowFile

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run the jobs that `sequencer run --queue` submitted, from a durable queue.",
        discussion: """
            A worker serves the workflows whose files it is given: it takes their jobs from the \
            queue (never another workflow's) and runs each command in its copy of the workflow's \
            directory, with the environment the submitter read from the file added to its own. \
            Each attempt's output is kept in the queue (`sequencer show RUN --output JOB --queue \
            ...`). Any number of workers may work one queue, in any processes; a job whose \
            worker dies runs again on another once its lease expires (--lease, 30 s). Ctrl-C (or \
            SIGTERM) stops the worker: its running commands get SIGTERM and their jobs go back \
            to the queue at once; a second Ctrl-C kills them.
            """
    )

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "The durable queue: an SQLite file, sqlite:PATH, or postgres://user:password@host/database (default: $SEQUENCER_QUEUE).", valueName: "location"))
    var queueLocation: String?

    @Option(name: [.customShort("f"), .customLong("file")], help: ArgumentHelp(
        "A workflow file whose jobs this worker runs; repeat it for more (default: sequencer.yml).", valueName: "file"))
    var files: [String] = []

    @Option(name: [.short, .long], help: "The most jobs running at once; the default is the number of cores.")
    var jobs: Int = RunOptions.activeProcessorCount

    @Option(help: ArgumentHelp(
        "Take only the jobs of these lanes, comma-separated (default: every job, in a lane or not): a machine with a GPU serves `--lanes gpu`.",
        valueName: "lanes"))
    var lanes: String?

    @Option(help: ArgumentHelp("How long a stopped command may take to exit after SIGTERM before it gets SIGKILL.",
                               valueName: "duration"))
    var gracePeriod = "2s"

    @Option(help: ArgumentHelp(
        "How often the worker renews its leases and hears that a run it works on was cancelled.", valueName: "duration"))
    var heartbeat = "2s"

    @Option(help: ArgumentHelp(
        "How long a job stays this worker's without a heartbeat: after it dies, its jobs run elsewhere this much later.",
        valueName: "duration"))
    var lease = "30s"

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        _ = try duration(gracePeriod, option: "--grace-period")
        guard try duration(heartbeat, option: "--heartbeat") < duration(lease, option: "--lease") else {
            throw ValidationError("--heartbeat must be shorter than --lease")
        }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        guard let location = QueueOptions.location(queueLocation) else {
            throw ValidationError("give the queue with --queue LOCATION, or in SEQUENCER_QUEUE")
        }
        var workflows: [(name: String, file: WorkflowFile)] = []
        for path in files.isEmpty ? ["sequencer.yml"] : files {
            let file = try expandOrExit(try loadOrExit(path))
            let name = QueueShellJob.workflowName(of: file)
            if let other = workflows.first(where: { $0.name == name }) {
                throw ValidationError("\(path) and \(other.file.path) are both workflow '\(name)' (the name of their directory): give one")
            }
            workflows.append((name, file))
        }
        let served = lanes.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        if let served {
            let declared = Set(workflows.flatMap { $0.file.lanes.map(\.name) })
            for lane in served where !declared.contains(lane) {
                throw ValidationError("--lanes: no workflow file given declares lane '\(lane)' (declared: \(declared.sorted().joined(separator: ", ")))")
            }
        }
        let store = try await QueueLocation.open(location)
        let shown = QueueLocation.shown(location)
        var options = DurableQueue.Options()
        options.heartbeat = try duration(heartbeat, option: "--heartbeat")
        options.lease = try duration(lease, option: "--lease")
        // An SQLite queue has no notification between processes: a job another process
        // released is seen at the next look, so look often (a cheap read). PostgreSQL notifies
        // (LISTEN/NOTIFY); its poll is only the fallback for a notification lost with a
        // connection.
        options.poll = QueueLocation.isPostgres(location) ? .seconds(2) : .milliseconds(200)
        let worker = "\(ProcessInfo.processInfo.hostName):\(getpid())"
        options.storeTrouble = { error in printError("worker \(worker): \(error); trying again") }
        let queue = DurableQueue(store: store, options: options)
        let runner = ProcessRunner(terminationGrace: try duration(gracePeriod, option: "--grace-period"))
        let scratch = try FileManager.default.url(
            for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: URL(fileURLWithPath: NSTemporaryDirectory()), create: true
        ).path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for (name, file) in workflows {
            let body = QueueShellBody(
                directory: URL(fileURLWithPath: file.directory).standardizedFileURL.path, runner: runner, store: store, worker: worker,
                scratch: scratch, workflow: name, file: Locked(file))
            let kinds: [String?] = served.map { served in file.lanes.map(\.name).filter(served.contains) } ?? file.lanes.map(\.name) + [nil]
            for lane in kinds {
                queue.register(QueueShellJob.kind(ofWorkflow: name, lane: lane)) { (job: QueueShellJob, context: JobContext) -> Int in
                    try await body.run(job, context: context)
                }
            }
            let only = served.map { _ in ", lanes " + kinds.compactMap { $0 }.joined(separator: ", ") } ?? ""
            printError("worker \(worker): serving workflow '\(name)' (\(absolutePath(file.directory)))\(only) from \(shown), \(jobs) at once")
        }
        let working = Task { try await queue.work(maxConcurrency: jobs) }
        let interrupts = Interrupts(
            first: {
                printError("interrupted: stopping; running jobs go back to the queue; interrupt again to kill them")
                working.cancel()
            },
            again: { runner.signalAll(SIGKILL) })
        defer { interrupts.stop() }
        do {
            try await working.value
            try? await queue.close()
            if interrupts.happened { throw ExitCode(ExitStatus.interrupted) }
        } catch is CancellationError {
            try? await queue.close()
            throw ExitCode(ExitStatus.interrupted)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError("error: the queue \(shown): \(error)")
            throw ExitCode(ExitStatus.failed)
        }
    }
}

/// How a worker runs one attempt of a workflow's job: the command in the workflow's directory,
/// its output to a scratch file and then into the queue's attempt log.
struct QueueShellBody: Sendable {
    let directory: String
    let runner: ProcessRunner
    let store: any RunStore
    let worker: String
    let scratch: String
    /// The workflow's name in the queue.
    let workflow: String
    /// This worker's copy of the workflow file: read again when a job does not match it (the
    /// file was edited since the worker started).
    let file: Locked<WorkflowFile>

    /// What a body returns for a job it found up to date (and 0 for one it ran): the run's
    /// follower tells them apart.
    static let upToDate = 1

    /// The most output an attempt keeps: its last 8 MiB.
    static let outputLimit = 8 << 20

    /// Runs the attempt; returns its exit code (0), or throws for a failure.
    func run(_ job: QueueShellJob, context: JobContext) async throws -> Int {
        let (id, attempt) = context.durableJob ?? (DurableJobID(0), context.attempt)
        let (declared, refusal) = self.declared(job)
        if let refusal {
            // Another copy of the workflow (another version, or another project of the same
            // name): the job goes back for a worker whose copy matches, and is not failed.
            printError("worker \(worker): not running \(job.name) (job \(id)): \(refusal); it goes back to the queue")
            let now = Self.now()
            try? await store.recordAttempt(
                QueueAttempt(
                    job: id, attempt: attempt, worker: worker, startedAt: now, endedAt: now, outcome: "refused", exitCode: nil, signal: nil,
                    summary: "not run here: \(refusal)", output: nil))
            throw CannotRunHere(refusal)
        }
        // A store that cannot be read now makes the job run: never a failure for that.
        var upToDate: QueueUpToDate?
        if let declared {
            upToDate = try? await QueueUpToDate(job: declared, in: file.withLock { $0 }, workflow: workflow, store: store, force: job.force ?? false)
        }
        if let upToDate, let declared, upToDate.check.isUpToDate(declared) {
            let now = Self.now()
            try? await store.recordAttempt(
                QueueAttempt(
                    job: id, attempt: attempt, worker: worker, startedAt: now, endedAt: now, outcome: "upToDate", exitCode: nil, signal: nil,
                    summary: "up to date", output: nil))
            return Self.upToDate
        }
        let directory = job.workingDirectory.map { $0.hasPrefix("/") ? $0 : self.directory + "/" + $0 } ?? self.directory
        var environment = ProcessInfo.processInfo.environment.merging(job.environment) { $1 }
        environment["SEQUENCER_JOB"] = job.name
        environment["SEQUENCER_ATTEMPT"] = String(attempt)
        let logPath = scratch + "/\(id.rawValue)-\(attempt).log"
        let startedAt = Self.now()
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
        try? FileManager.default.removeItem(atPath: logPath)
        let stopped = Task.isCancelled
        let outcome = stopped ? "stopped" : exit?.succeeded == true ? "succeeded" : "failed"
        var code: Int?
        var signal: Int?
        switch exit {
        case .exited(let value)?: code = Int(value)
        case .signaled(let value)?: signal = Int(value)
        case nil: break
        }
        // The log is the record of what ran, kept even for an attempt whose lease was lost.
        try? await store.recordAttempt(
            QueueAttempt(
                job: id, attempt: attempt, worker: worker, startedAt: startedAt, endedAt: Self.now(), outcome: outcome, exitCode: code,
                signal: signal, summary: summary, output: output))
        try context.checkCancellation()
        guard exit?.succeeded == true else { throw QueueShellJobFailure(job: job.name, summary: summary) }
        // A fingerprint that could not be kept makes the job run again next time; it succeeded.
        if let upToDate, let declared { try? await upToDate.succeeded(declared, now: Self.now()) }
        return 0
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

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// A job's command failed: its summary (`exit code 1`, `killed by SIGKILL`, a start error).
struct QueueShellJobFailure: Error, CustomStringConvertible {
    let job: String
    let summary: String
    var description: String { "\(job): \(summary)" }
}
