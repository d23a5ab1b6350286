import ArgumentParser
import Foundation
import Sequencer
import SequencerJournal
import SequencerQueue
import SequencerWorkflowFile

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a workflow file's jobs.",
        discussion: """
            Each job's command runs with /bin/sh -c (or directly, when it has no shell syntax) in \
            the file's directory, in its own process group. Its output goes to \
            .sequencer/output/RUN/JOB.log beside the file; a failed job's output is printed. \
            The run is recorded in the journal (.sequencer/journal.sqlite): a job with outputs \
            whose command, environment, inputs and needed jobs have not changed since its last \
            success is skipped as up to date, and an interrupted run can be finished with \
            `sequencer resume`. Ctrl-C (or SIGTERM) stops the run: running commands get SIGTERM, \
            and SIGKILL after the grace period; a second Ctrl-C kills them at once.
            """
    )

    @OptionGroup var file: FileArgument

    @Argument(help: ArgumentHelp(
        "Run only these jobs (or the jobs whose outputs these are), and the jobs they need (default: every job).",
        valueName: "job"))
    var only: [String] = []

    @OptionGroup var execution: ExecutionOptions
    @OptionGroup var journal: JournalOptions
    @OptionGroup var queue: QueueOptions

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        if let location = queue.location, let run = queue.attach {
            let session = QueueRunSession(location: QueueLocation.shown(location), store: try await QueueLocation.open(location), json: execution.json)
            throw ExitCode(try await session.follow(QueueRunID(run)))
        }
        // Read while the file loads: the journal beside it, for the file's runs.
        let prefetch = execution.noJournal || queue.location != nil ? nil : JournalPrefetch(
            path: journal.path(beside: JournalPrefetch.directory(ofFile: file.file)), workflow: absolutePath(file.file))
        let loaded = try expandOrExit(execution.noJournal ? try loadOrExit(file.file) : try CompiledWorkflow.load(file.file))
        let workflowFile = try selectOrExit(loaded, only: only)
        ProcessLifetime.keep([loaded, workflowFile])
        if let location = queue.location {
            let session = QueueRunSession(location: QueueLocation.shown(location), store: try await QueueLocation.open(location), json: execution.json)
            let run = try await session.submit(workflowFile, force: execution.force)
            throw ExitCode(try await session.follow(run))
        }
        var session = RunSession(file: workflowFile, options: execution)
        try session.checkInputs(in: loaded)
        let journalPath = journal.path(beside: workflowFile.directory)
        let prefetched = prefetch.flatMap { $0.journal?.path == journalPath ? $0 : nil }
        if !execution.noJournal, let journal = try prefetched?.journal ?? self.journal.openForRun(beside: workflowFile.directory) {
            let info = RunInfo(only: only, keepGoing: execution.keepGoing)
            session.recorder = try await journal.recorder(waiting: !execution.noWait) {
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
