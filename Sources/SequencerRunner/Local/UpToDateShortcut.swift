import Foundation
import SequencerBuild
package import SequencerJournal
import SequencerWorkflowFile

/// A run of a workflow file whose every job is up to date, decided from the journal's
/// ``UpToDateState`` alone, as ninja decides a no-op: the file's digest, then (holding the
/// journal's lock, as a run does) a `stat` and a compare per file, without loading the file
/// or computing a fingerprint. When the state is
/// missing or anything changed, the run goes the usual way (which keeps a new state when it
/// finds every job up to date).
///
/// ```swift
/// switch try await UpToDateShortcut.run(path: "sequencer.yml", settings: settings, output: output) {
/// case .ended: return
/// case .notTaken(let begun): // run as usual, with `begun` if a run was begun
/// }
/// ```
package enum UpToDateShortcut {
    package enum Outcome {
        /// The run was recorded and reported: every job was up to date.
        case ended
        /// The run goes the usual way; with the journal and the run begun, if one was (the
        /// state changed while this process waited for the journal).
        case notTaken(begun: (journal: SQLiteJournal, recorder: JournalRecorder)?)
    }

    /// Ends the run of the file at `path` here if the journal's state says every job is up to
    /// date. For a run of every job, without `--force`, `--json`, `--trace` or `--no-journal`.
    package static func run(path: String, settings: RunSettings, output: RunnerOutput) async throws -> Outcome {
        let journalPath = settings.journalPath(beside: JournalPrefetch.directory(ofFile: path))
        let key = JournalHistory.workflowKey(ofFile: path)
        // Any failure here is left to the usual run, which reports it. The file's digest
        // first, which needs no lock.
        guard FileManager.default.fileExists(atPath: journalPath), let journal = try? SQLiteJournal(path: journalPath),
              let version = try? journal.dataVersion(), let bytes = try? journal.upToDateState(workflow: key),
              let state = UpToDateState(decoding: bytes), state.sourceIsCurrent(path: path) else { return .notTaken(begun: nil) }
        ProcessLifetime.keep(state)
        let recorder = try await journal.recorder(waiting: settings.waitsForJournal, diagnostics: output.diagnostics) {
            try journal.beginRun(workflow: key, info: RunInfo(only: [], keepGoing: settings.keepGoing).json)
        }
        // The files, once no other run can change them: holding the journal's lock. Another
        // process may have recorded a run meanwhile: the state is kept only while the
        // fingerprints it stands for are unchanged, so it is read again if anything was written
        // (nothing was if the journal's data version is the same).
        guard let now = try? journal.dataVersion(), now == version || (try? journal.upToDateState(workflow: key)) == bytes,
              state.filesAreCurrent() else {
            return .notTaken(begun: (journal, recorder))
        }
        defer {
            recorder.close()
            RunSession.deleteOldRuns(recorder: recorder, key: key, keep: settings.runsToKeep, log: output.log)
        }
        output.log.debug("every job is up to date, as the journal's up-to-date state says", metadata: ["files": "\(state.files.count)"])
        for warning in state.warnings { output.diagnostics(warning) }
        RunSession.endUpToDate(jobs: state.names, path: path, recorder: recorder, output: output, verbose: settings.verbose, state: nil)
        return .ended
    }
}
