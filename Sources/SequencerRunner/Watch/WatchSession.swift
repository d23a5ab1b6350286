#if canImport(Glibc)
import Foundation
import Sequencer
import SequencerBuild
package import SequencerJournal
import SequencerProcess
package import SequencerWorkflowFile

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
package struct WatchSession: Sendable {
    /// The jobs named on the command line (empty: every job).
    let only: [String]
    let settings: RunSettings
    let output: RunnerOutput
    /// How long changes must be quiet before a run starts.
    let quiet: Duration
    /// Loads the workflow file, whole and with the jobs asked for; when it is invalid, says
    /// its errors and throws.
    let load: @Sendable () throws -> (whole: WorkflowFile, selected: WorkflowFile)

    package init(
        only: [String], settings: RunSettings, output: RunnerOutput, quiet: Duration,
        load: @escaping @Sendable () throws -> (whole: WorkflowFile, selected: WorkflowFile)
    ) {
        self.only = only
        self.settings = settings
        self.output = output
        self.quiet = quiet
        self.load = load
    }

    /// Runs `loaded` with `journal` (nil: `--no-journal`), then again on changes, until SIGINT
    /// or SIGTERM.
    /// - Throws: ``RunnerError`` `.interrupted` at the end, or `.failed` when files cannot be
    ///   watched.
    package func run(_ loaded: (whole: WorkflowFile, selected: WorkflowFile), journal: SQLiteJournal?) async throws {
        let runner = ProcessRunner(terminationGrace: settings.gracePeriod)
        let inotify: Inotify
        do {
            inotify = try Inotify()
        } catch {
            throw RunnerError(.failed, "error: cannot watch files: \(error)")
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
        output.progress.line(line)
    }

    /// One run, of the jobs in `selection` (nil: all); nil when it could not start (the
    /// reasons said).
    func run(
        _ file: (whole: WorkflowFile, selected: WorkflowFile), selection: Set<String>?, journal: SQLiteJournal?,
        control: RunControl
    ) async -> RunReport? {
        do {
            var session = RunSession(file: file.selected, settings: settings, output: output)
            session.only = selection
            session.skipsWhenUpToDate = false
            try session.checkInputs(in: file.whole)
            if let journal {
                let info = RunInfo(only: only, keepGoing: settings.keepGoing)
                session.recorder = try await journal.recorder(waiting: settings.waitsForJournal, diagnostics: output.diagnostics) {
                    try journal.beginRun(workflow: RunSession.key(of: file.selected), info: info.json)
                }
            }
            return try await session.run(control: control)
        } catch let error as RunnerError {
            if let message = error.message { output.diagnostics(message) }
            return nil
        } catch {
            output.diagnostics("error: \(error)")
            return nil
        }
    }
}
#endif
