import ArgumentParser
import Foundation
import SequencerJournal

struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Delete old runs from the journal, with their output files; check it; set a damaged one aside.",
        discussion: """
            Keeps the newest runs of each workflow file. Fingerprints (what makes jobs up to date) \
            are kept: they belong to the file, not to a run.

            With --check, nothing is deleted: the whole file (the journal, or the --queue file) is \
            checked with SQLite's integrity_check, without writing to it; exit status 0 when it is \
            healthy, 2 when it is damaged. With --set-aside, a damaged journal is renamed to \
            journal.sqlite.damaged-TIME beside it (kept as it is) and a new journal starts with \
            what still reads of it (jobs whose records were lost run again); a healthy journal is \
            left in place. With --recover --queue FILE, what still reads of a damaged queue file is \
            copied into FILE.recovered; the damaged file is left as it is.
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

    @Flag(help: "Check the whole file (SQLite's integrity_check) and report; delete nothing.")
    var check = false

    @Flag(help: "Set a damaged journal aside (renamed, kept) so that the next run starts a new one.")
    var setAside = false

    @Flag(help: "Copy what still reads of a damaged --queue file into FILE.recovered, leaving it as it is.")
    var recover = false

    func validate() throws {
        guard keep >= 0 else { throw ValidationError("--keep must be at least 0") }
        if [check, setAside, recover].filter({ $0 }).count > 1 {
            throw ValidationError("--check, --set-aside and --recover cannot be used together")
        }
        if setAside, queueLocation != nil { throw ValidationError("--set-aside is for the journal; a damaged queue is copied with --recover") }
        if recover, queueLocation == nil { throw ValidationError("--recover needs --queue FILE (a damaged journal is set aside with --set-aside)") }
    }

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "Delete old runs from this durable queue instead, with their jobs and output (default: $SEQUENCER_QUEUE when set).",
        valueName: "location"))
    var queueLocation: String?

    func run() async throws {
        if check { return try DamageCommands.check(journal: location.path, queue: QueueOptions.location(queueLocation), json: json) }
        if setAside { return try DamageCommands.setAside(journal: location.path, json: json) }
        if recover, let queueLocation { return try DamageCommands.recover(queue: queueLocation, json: json) }
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
