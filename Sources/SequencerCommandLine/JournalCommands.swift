import ArgumentParser
import Foundation
import SequencerRunner
import SequencerHistory
import SequencerJournal
import SequencerWorkflowFile

/// Where the journal commands find the journal: beside `--file`, or at `--journal`.
struct JournalLocation: ParsableArguments {
    @Option(name: [.short, .long], help: "The workflow file whose journal to read (default: ./sequencer.yml).",
            completion: .file(extensions: ["yml", "yaml"]))
    var file = "sequencer.yml"

    @OptionGroup var journal: JournalOptions

    var directory: String {
        let directory = (file as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    var path: String { journal.path(beside: directory) }

    /// The workflow file's key in the journal.
    var workflowKey: String { JournalHistory.workflowKey(ofFile: file) }

    func open() throws -> SQLiteJournal { try JournalOptions.open(path, create: false) }
}

/// A run's number, or `last`.
struct RunSelector: ExpressibleByArgument {
    let id: Int64?

    init?(argument: String) {
        if argument == "last" {
            id = nil
        } else if let id = Int64(argument.hasPrefix("#") ? String(argument.dropFirst()) : argument), id > 0 {
            self.id = id
        } else {
            return nil
        }
    }

    /// The run read whole: the given one, or the newest of `workflow` (of any when it has
    /// none); exit status 2, with the reason, when there is none.
    func find(in history: any RunHistory, workflow: String) async throws -> RunRecord {
        let found = try await findRun(in: history, workflow: workflow)
        guard let record = try await reading({ try await history.run(found.id) }) else { throw missing(in: history) }
        return record
    }

    /// The run as a list shows it, without its jobs: the given one, or the newest of
    /// `workflow` (of any when it has none); exit status 2, with the reason, when there is none.
    func findRun(in history: any RunHistory, workflow: String) async throws -> HistoryRun {
        let run = try await reading { () -> HistoryRun? in
            if let id { return try await history.summary(of: id) }
            if let newest = try await history.latestRun(workflow: workflow) { return newest }
            return try await history.latestRun(workflow: nil)
        }
        guard let run else { throw missing(in: history) }
        return run
    }

    private func missing(in history: any RunHistory) -> ExitCode {
        printError("error: \(history.name): " + (id.map { "there is no run #\($0)" } ?? "no runs are recorded"))
        return ExitCode(ExitStatus.invalid)
    }
}

/// A journal read that failed: its message, and exit status 2.
func journalFailure(_ error: any Error) -> ExitCode {
    printError("error: \(error)")
    return ExitCode(ExitStatus.invalid)
}

/// JSON for the journal commands: sorted keys, pretty, one document.
func printJSON(_ value: some Encodable) {
    write(jsonDocument(value), to: STDOUT_FILENO)
}

/// A time from the journal (nanoseconds since 1970), for people: `2026-11-22 15:20:01`.
func timestamp(_ nanoseconds: Int64) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    formatter.locale = Locale(identifier: "en_US_POSIX")
    return formatter.string(from: Date(timeIntervalSince1970: Double(nanoseconds) / 1e9))
}

/// Seconds from the journal, for people.
func seconds(_ value: Double?) -> String {
    value.map { seconds(.nanoseconds(Int64($0 * 1e9))) } ?? "-"
}

/// Lines of columns, each as wide as its widest cell.
func table(_ rows: [[String]]) -> String {
    guard let columns = rows.map(\.count).max() else { return "" }
    let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { column, cell in
            column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
