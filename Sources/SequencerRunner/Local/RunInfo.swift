import Foundation
package import SequencerJournal

/// What `sequencer run` keeps with a run, so that `sequencer resume` runs it the same way.
package struct RunInfo: Codable {
    /// The jobs named on the command line (empty: every job).
    package var only: [String]
    package var keepGoing: Bool

    package var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    package init(only: [String], keepGoing: Bool) {
        self.only = only
        self.keepGoing = keepGoing
    }

    package init?(json: String?) {
        guard let json, let info = try? JSONDecoder().decode(RunInfo.self, from: Data(json.utf8)) else { return nil }
        self = info
    }
}

extension SQLiteJournal {
    /// Begins (or resumes) a run, waiting while another process records one in this journal
    /// (saying so once to `diagnostics`).
    /// - Throws: ``RunnerError`` `.invalid` when the journal cannot be used.
    package func recorder(
        waiting: Bool, diagnostics: @Sendable (String) -> Void, _ begin: () throws -> JournalRecorder
    ) async throws -> JournalRecorder {
        var announced = false
        while true {
            do {
                return try begin()
            } catch let error as JournalError where error.code == .busy && waiting {
                if !announced {
                    diagnostics("sequencer: waiting: \(error.message) (\(path))")
                    announced = true
                }
                try await Task.sleep(for: .milliseconds(100))
            } catch let error as JournalError {
                throw RunnerError(.invalid, "error: \(error)")
            }
        }
    }
}
