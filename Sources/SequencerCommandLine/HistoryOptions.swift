import ArgumentParser
import Foundation
import SequencerHistory
import SequencerJournal
import SequencerQueue
import SequencerRunner

/// Where `runs`, `show`, `trace` and `gc` find runs: the journal beside `--file` (or at
/// `--journal`), or a durable queue (`--queue`, or `SEQUENCER_QUEUE`). Either is read through
/// one ``RunHistory``, so a run is shown and counted the same wherever it was recorded.
struct HistoryOptions: ParsableArguments {
    @OptionGroup var location: JournalLocation

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "The runs submitted to this durable queue, instead of the journal's (default: $SEQUENCER_QUEUE when set).",
        valueName: "location"))
    var queueLocation: String?

    /// The history to read; exit status 2, with the reason, when it cannot be opened.
    func open() async throws -> any RunHistory {
        guard let queue = QueueOptions.location(queueLocation) else { return JournalHistory(journal: try location.open()) }
        return QueueHistory(store: try await QueueLocation.open(queue, create: false), location: QueueLocation.shown(queue))
    }

    /// The workflow of the file, in `history`'s names.
    func workflow(in history: any RunHistory) -> String { history.workflow(ofFile: location.file) }
}

/// `body`'s value; a journal's or a queue's error is printed, with exit status 2.
func reading<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as JournalError {
        throw journalFailure(error)
    } catch let error as QueueError {
        throw journalFailure(error)
    }
}
