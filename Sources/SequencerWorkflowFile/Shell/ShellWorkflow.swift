public import Sequencer
public import SequencerProcess
import Foundation

/// A workflow file made runnable: each job runs its command as a process, its output going
/// to a file, and each attempt recorded in ``log``. The missing parent directories of a job's
/// `outputs` are created before its command runs.
///
/// ```swift
/// let file = try WorkflowFile.load(path: "sequencer.yml")
/// let shell = try ShellWorkflow(file: file, runner: ProcessRunner(), outputDirectory: ".sequencer/output")
/// let report = await (try shell.workflow.start()).report()
/// ```
public struct ShellWorkflow: Sendable {
    /// The file the jobs come from.
    public let file: WorkflowFile
    /// The jobs, ready to start, added in ``StartOrder`` (file order when no durations are
    /// given). Jobs of a lane start in file order, except that a job is never placed after one
    /// that needs it.
    public let workflow: Workflow
    /// Every attempt of every job, as it ends.
    public let log: AttemptLog
    /// Where each job's output goes: see ``outputPath(of:attempt:)``.
    public let outputDirectory: String
    /// The file names of the jobs' output, by job name.
    private let outputNames: [String: String]
    /// Each job's environment (without `SEQUENCER_ATTEMPT`), by job name.
    private let environments: [String: [String: String]]

    /// - Parameters:
    ///   - file: a checked workflow file.
    ///   - runner: starts the processes.
    ///   - outputDirectory: an existing directory for the jobs' output files.
    ///   - log: where each attempt is recorded as it ends.
    ///   - environment: the variables every job starts with (by default, this process's);
    ///     the file's `env` and then the job's `env` are added to them, and `SEQUENCER_JOB`
    ///     (the job's name) and `SEQUENCER_ATTEMPT` (1, 2, …).
    /// - Throws: ``WorkflowFileError`` if the library rejects the jobs (which a checked file
    ///   does not cause).
    ///   - upToDate: decides whether a job is up to date before its first attempt (it is then
    ///     skipped as up to date), and hears of its success; nil runs every job.
    ///   - durations: how long each job took in its last successful attempt, by job name: when
    ///     more jobs are ready than workers, the one with the longest remaining path starts
    ///     first (see ``StartOrder``). Empty: in file order.
    ///   - cache: restores a job's outputs instead of running it, when it has them, and keeps
    ///     them after it succeeds; a job it caches runs in its closed environment. Nil: none.
    public init(
        file: WorkflowFile, runner: ProcessRunner, outputDirectory: String, log: AttemptLog = AttemptLog(),
        environment: [String: String]? = nil, upToDate: (any UpToDateCheck)? = nil, durations: [String: Duration] = [:],
        cache: (any ShellJobCache)? = nil
    ) throws(WorkflowFileError) {
        self.file = file
        self.log = log
        self.outputDirectory = outputDirectory
        var names: [String: String] = [:]
        for (index, job) in file.jobs.enumerated() { names[job.name] = Self.fileName(for: job.name, index: index) }
        outputNames = names

        let inherited = environment ?? ProcessInfo.processInfo.environment
        let base = inherited.merging(file.environment) { $1 }
        let directory = URL(fileURLWithPath: file.directory).standardizedFileURL.path
        var environments: [String: [String: String]] = [:]
        var workflow = Workflow()
        workflow.reserveCapacity(file.jobs.count)
        for lane in file.lanes { workflow.lane(lane.name, width: lane.width, ordered: lane.ordered) }
        for job in StartOrder.ordered(file.jobs, durations: durations) {
            var variables = cache?.environment(of: job, inherited: inherited) ?? base.merging(job.environment) { $1 }
            variables["SEQUENCER_JOB"] = job.name
            environments[job.name] = variables
            let command = ProcessCommand.shell(
                job.run, environment: variables,
                directory: job.workingDirectory.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 } ?? directory)
            let name = job.name, log = log, outputs = job.outputs
            let outputName = names[job.name] ?? job.name
            do {
                try workflow.add(
                    JobID(job.name), needs: job.needs.map { JobID($0.name) }, lane: job.lane, priority: job.priority,
                    timeout: job.timeout, retry: job.retry
                ) { context in
                    if let upToDate, context.attempt == 1, upToDate.isUpToDate(job) {
                        context.markUpToDate()
                        return
                    }
                    let outputPath = outputDirectory + "/" + Self.attemptFileName(outputName, attempt: context.attempt)
                    var store: (@Sendable (String, Duration) async -> Void)?
                    var abandon: (@Sendable () async -> Void)?
                    if let cache {
                        let start = context.elapsed
                        switch await cache.lookUp(job, printedPath: outputPath) {
                        case .restored(let key):
                            log.append(AttemptRecord(
                                job: name, attempt: context.attempt, startedAt: start, endedAt: context.elapsed,
                                exit: .exited(0), startError: nil, outputPath: outputPath, restored: key))
                            upToDate?.succeeded(job)
                            return
                        case .missed(let keep, let giveUp): (store, abandon) = (keep, giveUp)
                        case .uncached: break
                        }
                    }
                    let ran: Duration
                    do {
                        ran = try await Self.runAttempt(
                            of: name, command: command, outputs: outputs, context: context, runner: runner, log: log,
                            outputPath: outputPath)
                    } catch {
                        await abandon?()
                        throw error
                    }
                    await store?(outputPath, ran)
                    upToDate?.succeeded(job)
                }
            } catch {
                throw WorkflowFileError(diagnostics: [
                    Diagnostic(file: job.definedIn, location: job.location, message: "\(error)")
                ])
            }
        }
        do {
            try workflow.validate()
        } catch {
            let job = (error as? WorkflowError)?.jobs.first.flatMap { file.job(named: $0.rawValue) }
            throw WorkflowFileError(diagnostics: [
                Diagnostic(file: job?.definedIn ?? file.path, location: job?.location ?? SourceLocation(line: 1, column: 1),
                           message: "\(error)")
            ])
        }
        self.workflow = workflow
        self.environments = environments
    }

    /// A job's command as its process ran it, with `$NAME` and `${NAME}` replaced by their
    /// values in the job's environment, so it can be pasted to reproduce a failure:
    /// `$CC -c a.c` with `env: { CC: cc }` gives `cc -c a.c`. Quoting, `$(...)` and the
    /// variables the command sets itself stay as written.
    /// - Parameters:
    ///   - job: the job's name.
    ///   - attempt: the attempt, for `SEQUENCER_ATTEMPT`.
    /// - Returns: the command, or nil if there is no such job.
    public func command(of job: String, attempt: Int = 1) -> String? {
        guard let script = file.job(named: job)?.run, var variables = environments[job] else { return nil }
        variables["SEQUENCER_ATTEMPT"] = String(attempt)
        return DisplayCommand.text(of: script, environment: variables)
    }

    /// The file that holds (or will hold) the output of one attempt of a job; an attempt that
    /// printed nothing leaves no file.
    public func outputPath(of job: String, attempt: Int = 1) -> String {
        outputDirectory + "/" + Self.attemptFileName(outputNames[job] ?? job, attempt: attempt)
    }

    private static func runAttempt(
        of job: String, command: ProcessCommand, outputs: [String], context: JobContext, runner: ProcessRunner,
        log: AttemptLog, outputPath: String
    ) async throws -> Duration {
        var attemptCommand = command
        attemptCommand.environment["SEQUENCER_ATTEMPT"] = String(context.attempt)
        let start = context.elapsed
        let exit: ProcessExit
        do {
            try Self.makeParentDirectories(of: outputs, in: command.directory)
            exit = try await runner.run(attemptCommand, outputPath: outputPath)
            Self.removeIfEmpty(outputPath)
        } catch {
            Self.removeIfEmpty(outputPath)
            let message = (error as? ProcessError)?.description ?? "\(error)"
            log.append(AttemptRecord(
                job: job, attempt: context.attempt, startedAt: start, endedAt: context.elapsed, exit: nil,
                startError: message, outputPath: outputPath))
            throw ShellJobError(job: job, exit: nil, message: message, outputPath: outputPath)
        }
        log.append(AttemptRecord(
            job: job, attempt: context.attempt, startedAt: start, endedAt: context.elapsed, exit: exit,
            startError: nil, outputPath: outputPath))
        // A process stopped because the job was cancelled (or timed out) is not a failure.
        try context.checkCancellation()
        guard exit.succeeded else {
            throw ShellJobError(job: job, exit: exit, message: "\(exit)", outputPath: outputPath)
        }
        return context.elapsed - start
    }

    /// The jobs with every job after the jobs it needs, otherwise in file order (a depth-first
    /// walk of needs, without recursion). The file has no cycles.
    /// - Complexity: O(jobs + needs).
    public static func needsFirst(_ jobs: [WorkflowFile.Job]) -> [WorkflowFile.Job] {
        var index: [String: Int] = [:]
        for (position, job) in jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        var placed = [Bool](repeating: false, count: jobs.count)
        var order: [WorkflowFile.Job] = []
        order.reserveCapacity(jobs.count)
        for root in jobs.indices where !placed[root] {
            var stack: [(job: Int, next: Int)] = [(root, 0)]
            placed[root] = true
            while let top = stack.last {
                let needs = jobs[top.job].needs
                if top.next < needs.count {
                    stack[stack.count - 1].next += 1
                    if let need = index[needs[top.next].name], !placed[need] {
                        placed[need] = true
                        stack.append((need, 0))
                    }
                    continue
                }
                stack.removeLast()
                order.append(jobs[top.job])
            }
        }
        return order
    }

    /// A file name for a job's output: the name itself when it is safe in a path, else the
    /// name with other characters replaced and the job's position added, so names stay unique.
    private static func fileName(for job: String, index: Int) -> String {
        let safe = job.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
        if safe && !job.hasPrefix(".") { return job }
        let replaced = String(job.unicodeScalars.map {
            $0.isASCII && CharacterSet.alphanumerics.contains($0) ? Character($0) : "_"
        })
        return "\(replaced.prefix(100))-\(index)"
    }

    private static func attemptFileName(_ name: String, attempt: Int) -> String {
        attempt == 1 ? name + ".log" : "\(name).attempt\(attempt).log"
    }
}

/// Why a shell job failed: its process exited with a non-zero status, was killed by a signal,
/// or could not start.
public struct ShellJobError: Error, Sendable, CustomStringConvertible {
    /// The job's name.
    public let job: String
    /// How the process ended; nil if it could not start.
    public let exit: ProcessExit?
    /// `exit code 2`, `killed by SIGKILL`, or why the process could not start.
    public let message: String
    /// The file with the attempt's output.
    public let outputPath: String

    public var description: String { message }
}
