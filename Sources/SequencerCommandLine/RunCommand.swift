import ArgumentParser
import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerQueue
import SequencerRunner
import SequencerWorkflowFile

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a workflow file's jobs.",
        discussion: """
            The workflow file is the one -f names; else the first argument, when it is an existing \
            file ending in .yml or .yaml; else ./sequencer.yml. The other arguments are targets, as \
            for make: a job's name, an output of a job, or a pattern of either ('compile-*'); the \
            targets and the jobs they need run (all jobs when there are none).

            Each job's command runs with /bin/sh -c (or directly, when it has no shell syntax) in \
            the file's directory, in its own process group. Its output goes to \
            .sequencer/output/RUN/JOB.log beside the file; a failed job's output is printed. \
            The run is recorded in the journal (.sequencer/journal.sqlite): a job with outputs \
            whose command, environment, inputs and needed jobs have not changed since its last \
            success is skipped as up to date, and an interrupted run can be finished with \
            `sequencer resume`. Ctrl-C (or SIGTERM) stops the run: running commands get SIGTERM, \
            and SIGKILL after the grace period; a second Ctrl-C kills them at once.

            With --dry-run, nothing runs and nothing is written (the journal is only read): each \
            job is listed, in run order, as up to date, would run (with the reason --explain \
            gives) or may run: it runs only if a job that runs before it changes what it reads \
            (a recompile that gives the same bytes leaves it up to date).

            With --watch, the run is followed by a wait: when an input of a job changes (a \
            file, a file a glob matches, or a header its depfile named), the run still going \
            is stopped (as by Ctrl-C) and, once changes have been quiet for --debounce, the \
            jobs whose inputs changed and the jobs that depend on them run again, with the \
            jobs the last run did not finish. Editing the workflow file reloads it and runs it all \
            (with the usual up-to-date checks). Changes to the jobs' declared outputs and \
            under .sequencer/ are ignored, and so is a write that leaves a file as it was. \
            Ctrl-C ends the watch (exit status 130).
            """
    )

    /// The file, and the jobs to run (the jobs whose outputs these are, or the jobs a pattern
    /// such as 'compile-*' matches) with the jobs they need.
    @OptionGroup var targets: TargetArguments

    @OptionGroup var execution: ExecutionOptions
    @OptionGroup var journal: JournalOptions
    @OptionGroup var queue: QueueOptions

    @Flag(name: [.customShort("n"), .customLong("dry-run")],
          help: "Print what would run or may run and why (or that it is up to date), running nothing and writing nothing.")
    var dryRun = false

    @Flag(help: "After the run, wait; when an input changes, run again what it affects. Ctrl-C ends it.")
    var watch = false

    @Flag(help: ArgumentHelp(
        "Export the run as OpenTelemetry spans over OTLP/HTTP (to $OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318), through sequencer-otel."))
    var otel = false

    @Option(help: ArgumentHelp(
        "With --watch, how long changes must be quiet before a run starts (default: $SEQUENCER_DEBOUNCE, or 100ms).",
        valueName: "duration"))
    var debounce: String?

    func validate() throws {
        if dryRun, watch { throw ValidationError("--dry-run and --watch cannot be used together") }
        if dryRun, queue.location != nil { throw ValidationError("--dry-run cannot be used with --queue (or SEQUENCER_QUEUE)") }
        if watch, queue.location != nil { throw ValidationError("--watch cannot be used with --queue (or SEQUENCER_QUEUE)") }
        if debounce != nil, !watch { throw ValidationError("--debounce needs --watch") }
        if execution.cache.cache != nil, queue.location != nil {
            throw ValidationError("--cache is a worker's with --queue: give it to `sequencer worker` (or set SEQUENCER_CACHE where workers run)")
        }
        if watch { _ = try quiet }
    }

    /// How long changes must be quiet before a watch run: `--debounce`, else `SEQUENCER_DEBOUNCE`, else 100 ms.
    var quiet: Duration {
        get throws {
            if let debounce { return try duration(debounce, option: "--debounce") }
            guard let text = ProcessInfo.processInfo.environment["SEQUENCER_DEBOUNCE"] else { return .milliseconds(100) }
            return try duration(text, option: "SEQUENCER_DEBOUNCE")
        }
    }

    func run() async throws {
        // A runner's typed error is said here once, and becomes the exit status.
        try await exitingOnRunnerError { try await runWorkflow() }
    }

    private func runWorkflow() async throws {
        if otel { try Telemetry.handOverUnlessExporting() }
        signal(SIGPIPE, SIG_IGN)
        let named = targets.named
        try named.checkDefaultFileExists()
        let path = named.path, only = named.targets
        if dryRun {
            // Parsed, not read from a compiled copy: a dry run writes none.
            let loaded = try expandOrExit(try loadOrExit(path))
            try DryRunSession(file: try selectOrExit(loaded, named), options: execution, journal: journal).run(whole: loaded)
            return
        }
        let settings = try execution.settings(journal: journal)
        let output = execution.output
        if watch {
            #if canImport(Glibc)
            let noJournal = execution.noJournal
            let load: @Sendable () throws -> (whole: WorkflowFile, selected: WorkflowFile) = {
                let whole = try expandOrExit(noJournal ? try loadOrExit(path) : try CompiledWorkflow.load(path))
                return (whole, try selectOrExit(whole, only: only))
            }
            let loaded = try load()
            let journal = noJournal ? nil : try journal.openForRun(beside: loaded.selected.directory)
            let session = WatchSession(only: only, settings: settings, output: output, quiet: try quiet, load: load)
            try await session.run(loaded, journal: journal)
            #else
            printError("error: --watch needs Linux (inotify)")
            throw ExitCode(ExitStatus.invalid)
            #endif
        }
        if let location = queue.location, let run = queue.attach {
            return try await QueueLocation.session(location, json: execution.json, output: output).follow(QueueRunID(run))
        }
        // A run begun before the arguments were parsed (`sequencer run` with no argument).
        var begun = UpToDateShortcut.takeHandedOver()
        let everyJob = only.isEmpty && !execution.noJournal && queue.location == nil
        if begun == nil, everyJob, !execution.force, !execution.json, execution.trace == nil {
            switch try await UpToDateShortcut.run(path: path, settings: settings, output: output) {
            case .ended: return
            case .notTaken(let run): begun = run
            }
        }
        // Read while the file loads: the journal beside it, for the file's runs.
        let prefetch = execution.noJournal || queue.location != nil || begun != nil ? nil : JournalPrefetch(
            path: journal.path(beside: JournalPrefetch.directory(ofFile: path)), workflow: JournalHistory.workflowKey(ofFile: path))
        let (unexpanded, digests) = execution.noJournal ? (try loadOrExit(path), nil) : try CompiledWorkflow.loadWithDigests(path)
        let loaded = try expandOrExit(unexpanded)
        let workflowFile = try selectOrExit(loaded, named)
        ProcessLifetime.keep([loaded, workflowFile])
        if let location = queue.location {
            let session = try await QueueLocation.session(location, json: execution.json, output: output)
            let run = { try await session.follow(try await session.submit(workflowFile, force: execution.force)) }
            return try await otel ? Telemetry.tracing(workflowFile, run) : run()
        }
        var session = RunSession(file: workflowFile, settings: settings, output: output)
        if otel { session.ended = Telemetry.reporter(for: workflowFile) }
        try session.checkInputs(in: loaded)
        if everyJob, let digests, UpToDateState.canDescribe(loaded, pathsUseVariables: unexpanded.pathsUseVariables) {
            session.stateSource = digests
        }
        let journalPath = journal.path(beside: workflowFile.directory)
        let prefetched = prefetch.flatMap { $0.journal?.path == journalPath ? $0 : nil }
        if let begun {
            session.recorder = begun.recorder
        } else if !execution.noJournal, let journal = try prefetched?.journal ?? self.journal.openForRun(beside: workflowFile.directory) {
            let info = RunInfo(only: only, keepGoing: execution.keepGoing)
            session.recorder = try await journal.recorder(waiting: settings.waitsForJournal, diagnostics: printError) {
                try journal.beginRun(workflow: RunSession.key(of: workflowFile), info: info.json)
            }
            session.prefetched = prefetched?.current()
        }
        if execution.explain, session.recorder == nil {
            printError("warning: --explain has nothing to explain without the journal: every job runs")
        }
        try await session.run()
    }
}

/// The file limited to `only` and what they need, or exit status 2 for an unknown name.
func selectOrExit(_ file: WorkflowFile, only: [String]) throws -> WorkflowFile {
    do {
        return try file.selecting(only)
    } catch {
        printError("error: " + error.description.replacingOccurrences(of: "\n", with: "\nerror: "))
        throw ExitCode(ExitStatus.invalid)
    }
}

/// A duration option's value, or a usage error (exit status 2).
func duration(_ text: String, option: String) throws -> Duration {
    do {
        return try WorkflowFile.duration(text)
    } catch {
        throw ValidationError("\(option): \(error)")
    }
}
