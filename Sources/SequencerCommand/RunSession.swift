import ArgumentParser
import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerOutput
import SequencerProcess
import SequencerWorkflowFile
import SequencerHistory

/// One run of a workflow file, new or resumed: progress, signals, the journal, the summary.
struct RunSession {
    let file: WorkflowFile
    let options: ExecutionOptions
    /// Records the run (in its journal); nil with `--no-journal`.
    var recorder: JournalRecorder?
    /// The recorder's journal as read while the file loaded, if still current.
    var prefetched: JournalPrefetch.Read?
    /// The run's glob expansions, shared by the input check and the up-to-date checks.
    let expansions = PatternExpansions()

    init(file: WorkflowFile, options: ExecutionOptions) {
        self.file = file
        self.options = options
    }

    /// The key of a workflow file in the journal: its absolute path.
    static func key(of file: WorkflowFile) -> String { absolutePath(file.path) }

    /// The digests of the workflow file and of its includes as loaded, when its every job
    /// runs and an ``UpToDateState`` can describe it: a no-op run then keeps one.
    var stateSource: (fileDigest: String, includeDigests: [String])?
    /// The warnings the input check printed (kept with the state, for the shortcut to print).
    var warnings: [String] = []

    /// Only these jobs run; the others are skipped as up to date (nil: every job may run).
    /// A watch sets it to the jobs a change affects and the jobs that depend on them.
    var only: Set<String>?

    /// Runs the jobs, stopping them on SIGINT or SIGTERM; throws the exit status unless it is 0.
    func run() async throws {
        let runner = ProcessRunner(terminationGrace: try duration(options.gracePeriod, option: "--grace-period"))
        let control = RunControl(runner: runner)
        let interrupts = Interrupts(first: { control.stop(interrupted: true) }, again: { runner.signalAll(SIGKILL) })
        guard let report = try await run(control: control, stopSignals: { interrupts.stop() }) else { return }
        if control.interrupted { throw ExitCode(ExitStatus.interrupted) }
        // The jobs ran, but the journal was found damaged while recording: said as an error.
        if recorder?.writeError?.code == .damaged { throw ExitCode(ExitStatus.invalid) }
        if report.status != .succeeded { throw ExitCode(ExitStatus.failed) }
    }

    /// Whether a run whose every job is up to date ends before it starts (see
    /// `skipIfAllUpToDate`), with no report. A watch wants each run's report.
    var skipsWhenUpToDate = true

    /// Runs the jobs with `control`'s runner, until they end or `control` stops them.
    /// - Parameter stopSignals: called when the run has ended, before its summary.
    /// - Returns: the run's report; nil when every job was up to date and nothing started.
    func run(control: RunControl, stopSignals: () -> Void = {}) async throws -> RunReport? {
        defer {
            recorder?.close()
            deleteOldRuns()
        }
        let grace = try duration(options.gracePeriod, option: "--grace-period")
        let progressDescriptor = options.json ? STDERR_FILENO : STDOUT_FILENO
        let console = Console(descriptor: progressDescriptor, isLive: Console.isTerminal(progressDescriptor))
        if skipsWhenUpToDate, try skipIfAllUpToDate(console: console) {
            stopSignals()
            return nil
        }
        let upToDate = try upToDate(console: console)
        ProcessLifetime.keep(upToDate)
        let outputDirectory = try makeOutputDirectory()
        defer { rmdir(outputDirectory) }  // when every job printed nothing: it is empty
        let runner = control.runner
        let progress = Progress(
            console: console, file: file, verbose: options.verbose, showsSuccessOutput: !options.noSuccessOutput)
        let recorder = self.recorder
        let shell: ShellWorkflow
        do {
            shell = try ShellWorkflow(
                file: file, runner: runner, outputDirectory: outputDirectory,
                log: AttemptLog { attempt in
                    progress.attemptEnded(attempt)
                    recorder?.recordAttempt(
                        job: attempt.job, attempt: attempt.attempt, startedAt: attempt.startedAt, endedAt: attempt.endedAt,
                        exit: attempt.exitSummary, exitCode: attempt.exitCode, signal: attempt.signal,
                        // A job that printed nothing has no output file.
                        output: FileManager.default.fileExists(atPath: attempt.outputPath) ? attempt.outputPath : nil)
                },
                upToDate: upToDate, durations: lastDurations())
        } catch {
            printError(error.description)
            throw ExitCode(ExitStatus.invalid)
        }

        let (events, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let runOptions = RunOptions(
            maxConcurrency: options.jobs, deadline: try options.deadline.map { try duration($0, option: "--deadline") },
            keepGoing: options.keepGoing, events: continuation,
            // Longer than the runner's SIGTERM-to-SIGKILL wait, so a stopped job's process has
            // always been killed and reaped before the job ends.
            gracePeriod: grace + .seconds(5),
            recorder: recorder)
        log.debug("starting", metadata: [
            "file": "\(file.path)", "jobs": "\(file.jobs.count)", "concurrency": "\(options.jobs)",
            "output": "\(outputDirectory)", "deadline": "\(options.deadline ?? "none")",
            "keepGoing": "\(options.keepGoing)", "run": "\(recorder.map { "\($0.runID)" } ?? "not journaled")",
        ])
        // The session's graph, so that the web page draws this run as it ran once the file changes.
        recorder?.recordGraph(HistoryGraph(file: file))
        // Signals are handled from before the first process starts, so none can be orphaned.
        control.console = console
        let run: Run
        do {
            run = try shell.workflow.start(runOptions)
        } catch let error as JournalError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        } catch {
            printError("\(file.path): error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        control.started(run)
        if let recorder {
            console.line("sequencer: \(recorder.isResuming ? "resuming" : "run") #\(recorder.runID) of \(file.path)")
        }
        await progress.follow(events, shell: shell)
        let report = await run.report()
        stopSignals()
        log.debug("finished", metadata: [
            "status": "\(report.status)", "duration": "\(report.duration)", "globWalks": "\(expansions.walks)",
        ])
        if let error = recorder?.writeError {
            printError(error.code == .damaged
                ? "error: the run could not be recorded in full (recording stopped): \(error)"
                : "warning: the run could not be recorded in full: \(error)")
        }

        let summary = RunSummary(report: report, shell: shell, interrupted: control.interrupted)
        summary.print(to: console)
        if let trace = options.trace { try writeTrace(to: trace, report: report, shell: shell) }
        if options.json {
            let document = ReportDocument(
                file: shell.file, report: report, attempts: shell.log.all, interrupted: control.interrupted)
            write(document.json() + "\n", to: STDOUT_FILENO)
        }
        return report
    }

    /// Ends the run without starting it when every job is up to date (decided in one pass,
    /// see `UpToDate.allUpToDate()`): the journal gets the records such a run leaves, and the
    /// console the lines. Not for a resumed run, nor with `--force`; with `--json` or `--trace`
    /// the run starts as usual, for its report.
    /// - Returns: Whether the run ended here.
    private func skipIfAllUpToDate(console: Console) throws -> Bool {
        guard let recorder, !recorder.isResuming, !options.force, !options.json, options.trace == nil,
              file.jobs.allSatisfy({ !$0.outputEntries.isEmpty }) else { return false }
        // The fingerprints read while the file loaded (without their parts) are enough to tell,
        // but for a job with a depfile: the files its depfile named are among its parts.
        let withParts = file.jobs.contains { $0.depfile != nil }
        let prefetched = self.prefetched.flatMap { $0.journal === recorder.journal ? $0 : nil }
        let check: UpToDate
        do {
            let stored = withParts ? nil : prefetched?.fingerprints
            check = UpToDate(
                file: file, stored: try stored ?? recorder.journal.fingerprints(workflow: Self.key(of: file), withParts: withParts),
                hasher: FileHasher(cache: try prefetched?.fileHashes ?? recorder.journal.fileHashes(), recorder: recorder),
                expansions: expansions, recorder: recorder, force: false, explain: nil)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        ProcessLifetime.keep(check)
        // With the files the pass read, for the next no-op run's shortcut, when the file allows.
        let names: [String]
        var state: [UInt8]?
        if let source = stateSource {
            guard let decided = check.allUpToDateWithFiles() else { return false }
            names = decided.names
            state = UpToDateState(
                fileDigest: source.fileDigest, includes: file.includes.map(Self.absolute), includeDigests: source.includeDigests,
                listings: file.listings, directory: Self.absolute(file.directory), warnings: warnings,
                // Absolute: a later run may start in another directory.
                names: decided.names, files: decided.files.map { UpToDateState.File(path: Self.absolute($0.path), stamp: $0.stamp) }
            ).encoded()
        } else {
            guard let decided = check.allUpToDate() else { return false }
            names = decided
        }
        Self.endUpToDate(
            jobs: names, path: file.path, recorder: recorder, console: console, verbose: options.verbose, state: state,
            globWalks: expansions.walks)
        return true
    }

    /// `path` from the working directory, unless it is absolute (as written: no `..` resolved).
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Records and reports a run whose every job (`jobs`, needs first) was up to date, and
    /// keeps `state` (an encoded ``UpToDateState``) for the next one when there is one.
    static func endUpToDate(
        jobs names: [String], path: String, recorder: JournalRecorder, console: Console, verbose: Bool, state: [UInt8]?,
        globWalks: Int = 0
    ) {
        // Each job "ran" when the pass ended, taking no time (as up-to-date jobs take next to
        // none): the pass's whole length on every job would read as each job's in `show`.
        let checkEnd = recorder.elapsed
        // In the order the run would have added them.
        let jobs = names.map { JobID($0) }
        console.line("sequencer: run #\(recorder.runID) of \(path)")
        if verbose {
            let total = jobs.count
            var lines = ""
            for (index, job) in jobs.enumerated() { lines += "[\(index + 1)/\(total)] up to date \(job)\n" }
            if !lines.isEmpty { lines.removeLast() }
            console.line(lines)
        }
        let duration = recorder.elapsed
        do {
            try recorder.recordUpToDateRun(
                jobs: jobs, checked: [(start: Duration, end: Duration)](repeating: (checkEnd, checkEnd), count: jobs.count),
                duration: duration, state: state)
        } catch {
            printError("warning: the run could not be recorded in full: \(error)")
        }
        log.debug("finished", metadata: [
            "status": "succeeded", "duration": "\(duration)", "globWalks": "\(globWalks)", "started": "none, all up to date",
        ])
        RunSummary.printAllUpToDate(jobs: jobs.count, duration: duration, to: console)
    }

    /// How long each job took in its last successful attempt, from the journal (empty without
    /// one, or if it cannot be read: the jobs then start in file order). Read only when jobs run.
    private func lastDurations() -> [String: Duration] {
        guard let recorder else { return [:] }
        do {
            return try recorder.journal.lastSuccessDurations(workflow: Self.key(of: file)).mapValues { .nanoseconds($0) }
        } catch {
            log.debug("cannot read the jobs' last durations", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    /// The up-to-date checks, when the run is journaled and some job has outputs.
    private func upToDate(console: Console) throws -> (any UpToDateCheck)? {
        let check = try journalChecks(console: console)
        guard let only else { return check }
        return SelectedJobs(only: only, check: check)
    }

    private func journalChecks(console: Console) throws -> UpToDate? {
        guard let recorder else { return nil }
        let journal = recorder.journal
        guard file.jobs.contains(where: { !$0.outputs.isEmpty }) || options.explain else { return nil }
        do {
            let stored = try journal.fingerprints(workflow: Self.key(of: file))
            let hasher = FileHasher(cache: try journal.fileHashes(), recorder: recorder)
            // Each check (fingerprint, why the job runs) goes in the journal, for `sequencer
            // serve`'s job and compare pages; why to the console too with --explain.
            recorder.willRecordChecks()
            var explain: (@Sendable (String, String) -> Void)?
            if options.explain {
                explain = { job, reason in console.line("explain: \(job) runs: \(reason)") }
            }
            return UpToDate(
                file: file, stored: stored, hasher: hasher, expansions: expansions, recorder: recorder,
                force: options.force, explain: explain, warn: { printError($0.description) })
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
    }

    /// Deletes the file's runs beyond the newest `--keep-runs`, with their output. Nothing is
    /// deleted when the run just recorded is not among the newest (an old run resumed), nor
    /// while another process records in the journal: a later run trims it.
    private func deleteOldRuns() {
        guard let recorder else { return }
        Self.deleteOldRuns(recorder: recorder, key: Self.key(of: file), keep: try? options.runsToKeep)
    }

    /// Deletes the file's runs beyond the newest `keep` (none when `keep` is 0 or nil).
    static func deleteOldRuns(recorder: JournalRecorder, key: String, keep: Int?) {
        guard let keep, keep > 0 else { return }
        do {
            // One more than kept: when the file has no more runs than it keeps, nothing is deleted.
            let newest = try recorder.journal.runIDs(workflow: key, limit: keep + 1)
            guard newest.count > keep, newest.prefix(keep).contains(recorder.runID) else { return }
            _ = try recorder.journal.deleteRunsAndOutput(keeping: keep, workflow: key)
        } catch {
            log.debug("old runs not deleted", metadata: ["error": "\(error)"])
        }
    }

    /// `.sequencer/output/RUN` beside the workflow file for a journaled run, or
    /// `.sequencer/output` (or a temporary directory if that cannot be written). The path is
    /// absolute: the journal keeps it for `sequencer show --output`, which may run elsewhere.
    private func makeOutputDirectory() throws -> String {
        let files = FileManager.default
        var directory = absolutePath(file.directory) + "/.sequencer/output"
        if let recorder { directory += "/\(recorder.runID)" }
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return directory
        } catch {
            let fallback = NSTemporaryDirectory() + "sequencer-output-\(getpid())"
            log.warning("cannot write \(directory) (\(error.localizedDescription)); output goes to \(fallback)")
            try files.createDirectory(atPath: fallback, withIntermediateDirectories: true)
            return fallback
        }
    }

    private func writeTrace(to path: String, report: RunReport, shell: ShellWorkflow) throws {
        let trace = ChromeTrace(file: shell.file, report: report, attempts: shell.log.all)
        do {
            try trace.json().write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            printError("error: cannot write the trace to \(path): \(error.localizedDescription)")
            throw ExitCode(ExitStatus.failed)
        }
    }
}
