import Foundation
import Sequencer
import SequencerJournal
import SequencerHistory

/// Where ninja mode records its builds: the journal beside the manifest
/// (`.sequencer/journal.sqlite`), under the manifest's absolute path, which is where
/// `sequencer runs -f build.ninja`, `show`, `trace` and `serve` look.
///
/// One build (the manifest's rebuild is a build of its own) is one run; each dyndep round after
/// the first is a new session of it. A build that runs nothing is not recorded, so that a no-op
/// opens no database. The journal is a record here, never needed to build: a damaged one is set
/// aside with a warning, and one that cannot be used leaves the build unrecorded, with a warning.
final class NinjaHistory: Sendable {
    let journalPath: String
    /// The manifest's absolute path: the workflow's name in the journal.
    let workflow: String
    private let warn: @Sendable (String) -> Void
    private let state = Locked(State())

    private struct State {
        var journal: SQLiteJournal?
        var runID: Int64?
        var sessions = 0
        /// Each edge's fingerprint parts at its last recorded success, read once.
        var stored: [String: Fingerprint]?
        /// Set once the journal could not be used: the rest of the build is not recorded.
        var disabled = false
    }

    /// One session of the run: what the builder records through.
    struct Session: Sendable {
        let recorder: JournalRecorder
        let history: NinjaHistory
        /// Where the commands' output is kept: `.sequencer/output/RUN` beside the manifest
        /// (`RUN/SESSION` after the first session).
        let outputDirectory: String
    }

    init(manifest: String, warn: @escaping @Sendable (String) -> Void) {
        let absolute = URL(fileURLWithPath: manifest).standardizedFileURL.path
        workflow = absolute
        let directory = String(absolute[..<(absolute.lastIndex(of: "/") ?? absolute.startIndex)])
        journalPath = directory + "/.sequencer/journal.sqlite"
        self.warn = warn
    }

    /// The next session: the run begins at the first call and is resumed at each later one.
    /// Nil when the journal cannot be used (said once, as a warning).
    func nextSession() -> Session? {
        state.withLock { state -> Session? in
            guard !state.disabled else { return nil }
            do {
                let journal = try state.journal ?? open()
                state.journal = journal
                let recorder = try state.runID.map { try journal.resumeRun($0) } ?? journal.beginRun(workflow: workflow, info: nil)
                state.runID = recorder.runID
                state.sessions += 1
                let directory = outputDirectory(run: recorder.runID) + (state.sessions > 1 ? "/\(state.sessions)" : "")
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                return Session(recorder: recorder, history: self, outputDirectory: directory)
            } catch {
                state.disabled = true
                warn("\(error); this build is not recorded in the journal")
                return nil
            }
        }
    }

    /// The parts of `job`'s fingerprint at its last recorded success, when that is the
    /// fingerprint `fingerprint` (a short digest) the build state has.
    func storedParts(of job: String, fingerprint: String) -> [String: String]? {
        state.withLock { state -> [String: String]? in
            if state.stored == nil {
                // Before the first session (`-d explain` asks first): the journal as it is,
                // read only when it exists.
                if state.journal == nil, !state.disabled, FileManager.default.fileExists(atPath: journalPath) {
                    state.journal = try? SQLiteJournal(path: journalPath)
                }
                state.stored = (try? state.journal?.fingerprints(workflow: workflow)) ?? [:]
            }
            guard let stored = state.stored?[job], stored.fingerprint == fingerprint else { return nil }
            return stored.parts
        }
    }

    func outputDirectory(run: Int64) -> String {
        String(journalPath.dropLast("journal.sqlite".count)) + "output/\(run)"
    }

    /// The journal, created when there is none; a damaged one is set aside first.
    private func open() throws -> SQLiteJournal {
        try? FileManager.default.createDirectory(
            atPath: String(journalPath.dropLast("/journal.sqlite".count)), withIntermediateDirectories: true)
        do {
            return try SQLiteJournal(path: journalPath)
        } catch let error as JournalError where error.code == .damaged || error.code == .unreadable {
            let aside = try SQLiteJournal.setAside(path: journalPath)
            if let aside {
                warn("\(journalPath) is damaged (\(error.message)): set aside as \(aside.damagedFile); a new journal starts")
            }
            return try SQLiteJournal(path: journalPath)
        }
    }
}
