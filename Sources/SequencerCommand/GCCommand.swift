import ArgumentParser
import Foundation
import SequencerJournal

struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Delete old runs from the journal, with their output files.",
        discussion: """
            Keeps the newest runs of each workflow file. Fingerprints (what makes jobs up to date) \
            are kept: they belong to the file, not to a run.
            """
    )

    @OptionGroup var location: JournalLocation

    @Option(help: "How many runs of each workflow file to keep.")
    var keep = 10

    @Flag(help: "Print what was deleted as JSON.")
    var json = false

    struct Result: Encodable {
        let deletedRuns: [Int64]
        let deletedOutputDirectories: [String]
        let keptPerFile: Int
    }

    func validate() throws {
        guard keep >= 0 else { throw ValidationError("--keep must be at least 0") }
    }

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "Delete old runs from this durable queue instead, with their jobs and output (default: $SEQUENCER_QUEUE when set).",
        valueName: "location"))
    var queueLocation: String?

    func run() async throws {
        if let queue = QueueOptions.location(queueLocation) {
            return try await QueueCommands.collect(
                try await QueueLocation.open(queue, create: false), location: QueueLocation.shown(queue), keep: keep, json: json)
        }
        let journal = try location.open()
        let (deleted, directories): ([JournalRun], [String])
        do {
            (deleted, directories) = try journal.deleteRunsAndOutput(keeping: keep)
            try journal.compact()
        } catch {
            throw journalFailure(error)
        }
        if json {
            return printJSON(Result(deletedRuns: deleted.map(\.id), deletedOutputDirectories: directories, keptPerFile: keep))
        }
        print("deleted \(deleted.count) run\(deleted.count == 1 ? "" : "s") and \(directories.count) output director\(directories.count == 1 ? "y" : "ies"); kept the newest \(keep) of each file")
    }
}

extension SQLiteJournal {
    /// Deletes all but the newest `keep` runs of each workflow file (of `workflow` only, when
    /// given), with their output directories (`.sequencer/output/RUN` beside the file).
    /// - Returns: the deleted runs, and the output directories that were deleted.
    func deleteRunsAndOutput(keeping keep: Int, workflow: String? = nil) throws -> (runs: [JournalRun], directories: [String]) {
        let deleted = try deleteRuns(keeping: keep, workflow: workflow)
        var directories: [String] = []
        for run in deleted {
            let directory = (run.workflow as NSString).deletingLastPathComponent + "/.sequencer/output/\(run.id)"
            if (try? FileManager.default.removeItem(atPath: directory)) != nil { directories.append(directory) }
        }
        return (deleted, directories)
    }
}
