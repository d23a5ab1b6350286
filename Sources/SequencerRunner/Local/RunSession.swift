import Foundation
package import Sequencer
package import SequencerBuild
package import SequencerJournal
import SequencerOutput
import SequencerProcess
package import SequencerWorkflowFile
import SequencerHistory
import SequencerCache
import Logging

/// One run of a workflow file here, new or resumed: progress, signals, the journal, the
/// summary. A test runs one in-process, with an output that keeps its lines.
///
/// ```swift
/// var session = RunSession(file: file, settings: settings, output: output)
/// session.recorder = try journal.beginRun(workflow: RunSession.key(of: file), info: nil)
/// try await session.run()  // throws RunnerError .failed when a job failed
/// ```
package struct RunSession {
    package let file: WorkflowFile
    package let settings: RunSettings
    package let output: RunnerOutput
    /// Records the run (in its journal); nil with `--no-journal`.
    package var recorder: JournalRecorder?
    /// The recorder's journal as read while the file loaded, if still current.
    package var prefetched: JournalPrefetch.Read?
    /// The run's glob expansions, shared by the input check and the up-to-date checks.
    package let expansions = PatternExpansions()

    package init(file: WorkflowFile, settings: RunSettings, output: RunnerOutput) {
        self.file = file
        self.settings = settings
        self.output = output
    }

    /// The key of a workflow file in the journal: its absolute path.
    package static func key(of file: WorkflowFile) -> String { JournalHistory.workflowKey(ofFile: file.path) }

    /// The digests of the workflow file and of its includes as loaded, when its every job
    /// runs and an ``UpToDateState`` can describe it: a no-op run then keeps one.
    package var stateSource: (fileDigest: String, includeDigests: [String])?
    /// The warnings the input check printed (kept with the state, for the shortcut to print).
    var warnings: [String] = []

    /// Only these jobs run; the others are skipped as up to date (nil: every job may run).
    /// A watch sets it to the jobs a change affects and the jobs that depend on them.
    package var only: Set<String>?
    /// Told the run's report as soon as the run ends (`--otel` reports its spans).
    package var ended: (@Sendable (RunReport) -> Void)?

    /// Runs the jobs, stopping them on SIGINT or SIGTERM.
    /// - Throws: ``RunnerError``: `.failed` when a job did not succeed, `.interrupted` after a
    ///   signal, `.invalid` for a run that could not start or a journal found damaged.
    package func run() async throws {
        let runner = ProcessRunner(terminationGrace: settings.gracePeriod)
        let control = RunControl(runner: runner)
        let interrupts = Interrupts(first: { control.stop(interrupted: true) }, again: { runner.signalAll(SIGKILL) })
        guard let report = try await run(control: control, stopSignals: { interrupts.stop() }) else { return }
        if control.interrupted { throw RunnerError.interrupted }
        // The jobs ran, but the journal was found damaged while recording: said as an error.
        if recorder?.writeError?.code == .damaged { throw RunnerError(.invalid) }
        if report.status != .succeeded { throw RunnerError.failed }
    }

    /// Whether a run whose every job is up to date ends before it starts (see
    /// `skipIfAllUpToDate`), with no report. A watch wants each run's report.
    package var skipsWhenUpToDate = true

    /// Runs the jobs with `control`'s runner, until they end or `control` stops them.
    /// - Parameter stopSignals: called when the run has ended, before its summary.
    /// - Returns: the run's report; nil when every job was up to date and nothing started.
    package func run(control: RunControl, stopSignals: () -> Void = {}) async throws -> RunReport? {
        defer {
            recorder?.close()
            deleteOldRuns()
        }
        let grace = settings.gracePeriod
        let console = output.progress
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
            console: console, file: file, verbose: settings.verbose, showsSuccessOutput: settings.showsSuccessOutput)
        let recorder = self.recorder
        let cache = try await openCache(console: console)
        let shell: ShellWorkflow
        do {
            shell = try ShellWorkflow(
                file: file, runner: runner, outputDirectory: outputDirectory,
                log: AttemptLog { attempt in
                    progress.attemptEnded(attempt)
                    guard let recorder else { return }
                    recorder.recordAttempt(NewAttempt(
                        job: attempt.job, attempt: attempt.attempt, startedAt: recorder.time(at: attempt.startedAt),
                        endedAt: recorder.time(at: attempt.endedAt), end: attempt.exit?.succeeded == true ? .succeeded : .failed,
                        exit: attempt.restored.map { HistoryAttempt.restoredExit(key: $0) } ?? attempt.exitSummary,
                        exitCode: attempt.exitCode, signal: attempt.signal,
                        // A job that printed nothing has no output file.
                        output: FileManager.default.fileExists(atPath: attempt.outputPath) ? .file(attempt.outputPath) : .none))
                },
                upToDate: upToDate, durations: lastDurations(), cache: cache)
        } catch {
            throw RunnerError(.invalid, error.description)
        }

        let (events, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let runOptions = RunOptions(
            maxConcurrency: settings.jobs, deadline: settings.deadline,
            keepGoing: settings.keepGoing, events: continuation,
            // Longer than the runner's SIGTERM-to-SIGKILL wait, so a stopped job's process has
            // always been killed and reaped before the job ends.
            gracePeriod: grace + .seconds(5),
            recorder: recorder)
        output.log.debug("starting", metadata: [
            "file": "\(file.path)", "jobs": "\(file.jobs.count)", "concurrency": "\(settings.jobs)",
            "output": "\(outputDirectory)", "deadline": "\(settings.deadline.map { "\($0)" } ?? "none")",
            "keepGoing": "\(settings.keepGoing)", "run": "\(recorder.map { "\($0.runID)" } ?? "not journaled")",
        ])
        // The session's graph, so that the web page draws this run as it ran once the file changes.
        recorder?.recordGraph(HistoryGraph(file: file))
        // Signals are handled from before the first process starts, so none can be orphaned.
        control.console = console
        let run: Run
        do {
            run = try shell.workflow.start(runOptions)
        } catch let error as JournalError {
            throw RunnerError(.invalid, "error: \(error)")
        } catch {
            throw RunnerError(.invalid, "\(file.path): error: \(error)")
        }
        control.started(run)
        if let recorder {
            console.line("sequencer: \(recorder.isResuming ? "resuming" : "run") #\(recorder.runID) of \(file.path)")
        }
        await progress.follow(events, shell: shell)
        let report = await run.report()
        ended?(report)
        stopSignals()
        output.log.debug("finished", metadata: [
            "status": "\(report.status)", "duration": "\(report.duration)", "globWalks": "\(expansions.walks)",
        ])
        if let error = recorder?.writeError {
            output.diagnostics(error.code == .damaged
                ? "error: the run could not be recorded in full (recording stopped): \(error)"
                : "warning: the run could not be recorded in full: \(error)")
        }

        let figures = cache?.statistics.current
        if let cache { await trim(cache) }
        let summary = RunSummary(report: report, shell: shell, interrupted: control.interrupted, cache: figures)
        summary.print(to: console)
        if let trace = settings.trace { try writeTrace(to: trace, report: report, shell: shell) }
        if settings.json {
            var document = ReportDocument(
                file: shell.file, report: report, attempts: shell.log.all, interrupted: control.interrupted)
            document.cache = figures.map {
                ReportDocument.Cache(
                    hits: $0.hits, misses: $0.misses, stored: $0.stored, notStored: $0.notStored,
                    bytesRestored: $0.bytesRestored, bytesStored: $0.bytesStored, secondsSaved: $0.secondsSaved)
            }
            output.results(document.json() + "\n")
        }
        return report
    }

    /// Ends the run without starting it when every job is up to date (decided in one pass,
    /// see `UpToDate.allUpToDate()`): the journal gets the records such a run leaves, and the
    /// console the lines. Not for a resumed run, nor with `--force`; with `--json` or `--trace`
    /// the run starts as usual, for its report.
    /// - Returns: Whether the run ended here.
    private func skipIfAllUpToDate(console: Console) throws -> Bool {
        guard let recorder, !recorder.isResuming, !settings.force, !settings.json, settings.trace == nil,
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
            throw RunnerError(.invalid, "error: \(error)")
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
            jobs: names, path: file.path, recorder: recorder, output: output, verbose: settings.verbose, state: state,
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
        jobs names: [String], path: String, recorder: JournalRecorder, output: RunnerOutput, verbose: Bool, state: [UInt8]?,
        globWalks: Int = 0
    ) {
        let console = output.progress
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
            output.diagnostics("warning: the run could not be recorded in full: \(error)")
        }
        output.log.debug("finished", metadata: [
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
            output.log.debug("cannot read the jobs' last durations", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    /// The run's cache, when it has one (`--cache`).
    /// - Throws: ``RunnerError`` `.invalid` when it cannot be opened.
    private func openCache(console: Console) async throws -> WorkflowCache? {
        guard let settings = settings.cache else { return nil }
        let store: any CacheStore
        do {
            store = try await CacheStores.open(settings.location, readOnly: settings.readOnly)
        } catch {
            throw RunnerError(.invalid, "error: the cache cannot be opened: \(error)")
        }
        var explain: (@Sendable (String, String) -> Void)?
        if self.settings.explain { explain = { job, words in console.line("explain: \(job): \(words)") } }
        return WorkflowCache(
            store: store, file: file, namespaces: settings.namespaces, expansions: expansions, restores: !self.settings.force,
            explain: explain,
            warn: { [output] in output.diagnostics($0) })
    }

    /// Keeps a cache (a directory, PostgreSQL) to `--cache-max-size` after a run that stored
    /// something in it.
    private func trim(_ cache: WorkflowCache) async {
        guard let limit = settings.cache?.maxSize, cache.statistics.current.stored > 0,
              let kept = cache.store as? any CacheMaintenance, !kept.isReadOnly else { return }
        do {
            let collected = try await kept.collect(maxSize: limit, staleAfter: 3600)
            output.log.debug("cache trimmed", metadata: ["removed": "\(collected.removedFiles)", "size": "\(collected.sizeAfter)"])
        } catch {
            output.diagnostics("warning: the cache could not be trimmed to --cache-max-size: \(error)")
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
        guard file.jobs.contains(where: { !$0.outputs.isEmpty }) || settings.explain else { return nil }
        do {
            let stored = try journal.fingerprints(workflow: Self.key(of: file))
            let hasher = FileHasher(cache: try journal.fileHashes(), recorder: recorder)
            // Each check (fingerprint, why the job runs) goes in the journal, for `sequencer
            // serve`'s job and compare pages; why to the console too with --explain.
            recorder.willRecordChecks()
            var explain: (@Sendable (String, String) -> Void)?
            if settings.explain {
                explain = { job, reason in console.line("explain: \(job) runs: \(reason)") }
            }
            return UpToDate(
                file: file, stored: stored, hasher: hasher, expansions: expansions, recorder: recorder,
                force: settings.force, explain: explain, warn: { [output] in output.diagnostics($0.description) })
        } catch {
            throw RunnerError(.invalid, "error: \(error)")
        }
    }

    /// Deletes the file's runs beyond the newest `--keep-runs`, with their output. Nothing is
    /// deleted when the run just recorded is not among the newest (an old run resumed), nor
    /// while another process records in the journal: a later run trims it.
    private func deleteOldRuns() {
        guard let recorder else { return }
        Self.deleteOldRuns(recorder: recorder, key: Self.key(of: file), keep: settings.runsToKeep, log: output.log)
    }

    /// Deletes the file's runs beyond the newest `keep` (none when `keep` is 0 or nil).
    static func deleteOldRuns(recorder: JournalRecorder, key: String, keep: Int?, log: Logger) {
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
            output.log.warning("cannot write \(directory) (\(error.localizedDescription)); output goes to \(fallback)")
            try files.createDirectory(atPath: fallback, withIntermediateDirectories: true)
            return fallback
        }
    }

    private func writeTrace(to path: String, report: RunReport, shell: ShellWorkflow) throws {
        let trace = ChromeTrace(file: shell.file, report: report, attempts: shell.log.all)
        do {
            try trace.json().write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw RunnerError(.failed, "error: cannot write the trace to \(path): \(error.localizedDescription)")
        }
    }
}
