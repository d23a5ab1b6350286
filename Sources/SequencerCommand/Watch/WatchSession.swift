#if canImport(Glibc)
import ArgumentParser
import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerProcess
import SequencerWorkflowFile

/// `sequencer run --watch`: runs the workflow file, then runs again what a change affects.
///
/// The logic is `WatchState` (debounce, stopping a run, Ctrl-C); what a path means is
/// `WatchScope`. ``WatchDriver`` drives them: inotify's events, timers, the ends of runs and
/// signals come in on one stream, read by one loop, which acts on what the state returns.
///
/// Runs must not trigger runs. A job's declared outputs and `.sequencer/` never count. A change
/// counts only when the file's content differs from the content seen at its last change (a
/// SHA-256), so a job that rewrites its own input with the same bytes, or an editor saving
/// an unchanged file, starts nothing. A job that changes its own input on every run (appending
/// to it, say) is indistinguishable from a person editing it: it stops the run and starts
/// another, for as long as it does so; declare such a file among its outputs.
struct WatchSession: Sendable {
    let path: String
    let only: [String]
    let options: ExecutionOptions
    let journalOptions: JournalOptions
    let quiet: Duration

    /// Watches until SIGINT or SIGTERM, then exits with status 130.
    func run() async throws {
        let loaded = try load()
        let journal = options.noJournal ? nil : try journalOptions.openForRun(beside: loaded.selected.directory)
        let runner = ProcessRunner(terminationGrace: try duration(options.gracePeriod, option: "--grace-period"))
        let inotify: Inotify
        do {
            inotify = try Inotify()
        } catch {
            printError("error: cannot watch files: \(error)")
            throw ExitCode(ExitStatus.failed)
        }
        let (inputs, continuation) = AsyncStream.makeStream(of: WatchDriver.Input.self)
        Thread.detachNewThread {
            while let events = inotify.next() { continuation.yield(.changed(events)) }
        }
        let interrupts = Interrupts(first: { continuation.yield(.stop) }, again: { runner.signalAll(SIGKILL) })
        defer {
            interrupts.stop()
            inotify.close()
        }
        let driver = WatchDriver(
            session: self, loaded: loaded, journal: journal, runner: runner, inotify: inotify, inputs: continuation)
        try await driver.watch(inputs)
    }

    /// Writes a line where progress goes.
    func say(_ line: String) {
        write(line + "\n", to: options.json ? STDERR_FILENO : STDOUT_FILENO)
    }

    /// The workflow file, whole and with the jobs asked for; exit status 2 (its errors printed)
    /// when it is invalid.
    func load() throws -> (whole: WorkflowFile, selected: WorkflowFile) {
        let whole = try expandOrExit(options.noJournal ? try loadOrExit(path) : try CompiledWorkflow.load(path))
        return (whole, try selectOrExit(whole, only: only))
    }

    /// One run, of the jobs in `selection` (nil: all); nil when it could not start (the
    /// reasons printed).
    func run(
        _ file: (whole: WorkflowFile, selected: WorkflowFile), selection: Set<String>?, journal: SQLiteJournal?,
        control: RunControl
    ) async -> RunReport? {
        do {
            var session = RunSession(file: file.selected, options: options)
            session.only = selection
            session.skipsWhenUpToDate = false
            try session.checkInputs(in: file.whole)
            if let journal {
                let info = RunInfo(only: only, keepGoing: options.keepGoing)
                session.recorder = try await journal.recorder(waiting: !options.noWait) {
                    try journal.beginRun(workflow: RunSession.key(of: file.selected), info: info.json)
                }
            }
            return try await session.run(control: control)
        } catch {
            if !(error is ExitCode) { printError("error: \(error)") }
            return nil
        }
    }
}
#endif
