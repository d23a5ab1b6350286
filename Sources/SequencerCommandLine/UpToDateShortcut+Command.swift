internal import Sequencer
import Foundation
import SequencerWorkflowFile
import SequencerJournal
import SequencerRunner

extension UpToDateShortcut {
    /// `sequencer` or `sequencer run` with no argument, which is what a no-op build most often
    /// is, decided before the argument parser (which reflects over every option of `run` at
    /// each start, about 3 ms): true when the run ended here. Otherwise the usual parse and run
    /// follow, and a run begun here is handed to them (see ``takeHandedOver()``). Anything
    /// unusual (a durable queue named by `SEQUENCER_QUEUE`, a `SEQUENCER_KEEP_RUNS` that is not
    /// a number) is left to the usual run.
    static func endsBeforeParsing(_ arguments: [String]) async throws -> Bool {
        guard arguments.isEmpty || arguments == [RunCommand._commandName], QueueOptions.location(nil) == nil,
              let runsToKeep = try? ExecutionOptions.runsToKeep(option: nil) else { return false }
        var settings = RunSettings()
        settings.runsToKeep = runsToKeep
        signal(SIGPIPE, SIG_IGN)
        let outcome = try await exitingOnRunnerError {
            try await run(path: CommandLineTargets.defaultPath, settings: settings, output: .standard(json: false, log: log))
        }
        switch outcome {
        case .ended:
            log.debug("decided before the arguments were parsed")
            return true
        case .notTaken(let begun):
            handedOver.withLock { $0 = begun }
            return false
        }
    }

    /// A run ``endsBeforeParsing(_:)`` began and did not end, for the usual run to go on with.
    static func takeHandedOver() -> (journal: SQLiteJournal, recorder: JournalRecorder)? {
        handedOver.withLock { begun in
            defer { begun = nil }
            return begun
        }
    }

    private static let handedOver = Locked<(journal: SQLiteJournal, recorder: JournalRecorder)?>(nil)
}
