import Sequencer
package import SequencerProcess
import SequencerWorkflowFile

/// Who stops a run: Ctrl-C (SIGINT or SIGTERM), or in a watch a change of an input. A stop asked
/// before the run started stops it as it starts, so no process is orphaned.
package final class RunControl: Sendable {
    private struct State {
        var run: Run?
        var stopped = false
        var interrupted = false
        var console: Console?
    }

    /// Runs the jobs' processes; a second Ctrl-C sends them SIGKILL.
    package let runner: ProcessRunner
    private let state = Locked(State())

    package init(runner: ProcessRunner) {
        self.runner = runner
    }

    /// Where a stop is announced.
    var console: Console? {
        get { state.withLock { $0.console } }
        set { state.withLock { $0.console = newValue } }
    }

    /// Whether the run was stopped by SIGINT or SIGTERM.
    package var interrupted: Bool { state.withLock { $0.interrupted } }

    /// The run started: a stop asked before cancels it now.
    func started(_ run: Run) {
        let stopped = state.withLock { state in
            state.run = run
            return state.stopped
        }
        if stopped { run.cancel() }
    }

    /// Stops the run: its running commands get SIGTERM, then SIGKILL after the grace period.
    /// - Parameter interrupted: whether a signal asked (the run then ends as interrupted).
    package func stop(interrupted: Bool) {
        let (run, console) = state.withLock { state in
            state.stopped = true
            state.interrupted = state.interrupted || interrupted
            return (state.run, state.console)
        }
        if interrupted {
            // Before the run is known (it is starting), it is stopped as it starts.
            let what = run.map { "\($0.snapshot.running.count) running job(s)" } ?? "the run"
            console?.line("interrupted: stopping \(what); interrupt again to kill them")
        }
        run?.cancel()
    }
}

/// The up-to-date check of a watch run: a job outside `only` is up to date (it is not run
/// again); the others are checked as usual.
struct SelectedJobs: UpToDateCheck {
    let only: Set<String>
    let check: (any UpToDateCheck)?

    func isUpToDate(_ job: WorkflowFile.Job) -> Bool {
        guard only.contains(job.name) else { return true }
        return check?.isUpToDate(job) ?? false
    }

    func succeeded(_ job: WorkflowFile.Job) {
        check?.succeeded(job)
    }
}
