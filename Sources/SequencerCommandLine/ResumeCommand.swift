import ArgumentParser
import Foundation
import SequencerHistory
import SequencerJournal
import SequencerQueue
import SequencerRunner

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Finish a run that was interrupted, or that failed: run again what did not succeed.",
        discussion: """
            The jobs that succeeded (or were up to date) in the run are not run again; every \
            other job runs, as part of the same run. RUN defaults to the last run of the file \
            when it did not succeed. The run's job selection and --keep-going are reused.
            """
    )

    @Argument(help: "The run: its number, or `last` (the default).")
    var run: RunSelector = RunSelector(argument: "last")!

    @OptionGroup var location: JournalLocation
    @OptionGroup var execution: ExecutionOptions

    func validate() throws {
        guard !execution.noJournal else { throw ValidationError("resume needs the journal: --no-journal cannot be used") }
    }

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "Resume a run submitted to this durable queue: submit the jobs that did not succeed in it as a new run, and follow it (default: $SEQUENCER_QUEUE when set).",
        valueName: "location"))
    var queueLocation: String?

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        if let queue = QueueOptions.location(queueLocation) {
            let session = try await QueueLocation.session(queue, create: false, json: execution.json, output: execution.output)
            let history = QueueHistory(store: session.store, location: session.location)
            let found = try await run.findRun(in: history, workflow: history.workflow(ofFile: location.file))
            let file = try expandOrExit(try loadOrExit(location.file))
            return try await exitingOnRunnerError { try await session.resume(QueueRunID(found.id), file: file) }
        }
        let journal = try location.open()
        let history = JournalHistory(journal: journal)
        let found = try await run.findRun(in: history, workflow: history.workflow(ofFile: location.file))
        guard found.state != .succeeded else {
            print("run #\(found.id) of \(found.workflow) succeeded: nothing to resume")
            return
        }
        let info = RunInfo(json: found.info) ?? RunInfo(only: [], keepGoing: false)
        let loaded = try expandOrExit(try CompiledWorkflow.load(found.workflow))
        let file = try selectOrExit(loaded, only: info.only)
        var settings = try execution.settings(journal: location.journal)
        settings.keepGoing = settings.keepGoing || info.keepGoing
        var session = RunSession(file: file, settings: settings, output: execution.output)
        try await exitingOnRunnerError {
            try session.checkInputs(in: loaded)
            session.recorder = try await journal.recorder(waiting: settings.waitsForJournal, diagnostics: printError) { try journal.resumeRun(found.id) }
            try await session.run()
        }
    }
}
