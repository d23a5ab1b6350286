import ArgumentParser
import Foundation
import SequencerJournal

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

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let journal = try location.open()
        let found = try run.find(in: journal, location: location)
        guard found.status != "succeeded" else {
            print("run #\(found.id) of \(found.workflow) succeeded: nothing to resume")
            return
        }
        let info = RunInfo(json: found.info) ?? RunInfo(only: [], keepGoing: false)
        let loaded = try expandOrExit(try CompiledWorkflow.load(found.workflow))
        let file = try selectOrExit(loaded, only: info.only)
        var options = execution
        options.keepGoing = options.keepGoing || info.keepGoing
        var session = RunSession(file: file, options: options)
        try session.checkInputs(in: loaded)
        session.recorder = try await journal.recorder(waiting: !execution.noWait) { try journal.resumeRun(found.id) }
        try await session.run()
    }
}
