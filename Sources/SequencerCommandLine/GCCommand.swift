import ArgumentParser
import Foundation
import SequencerHistory
import SequencerJournal
import SequencerQueue

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

    @OptionGroup var history: HistoryOptions

    @Option(help: "How many runs of each workflow file to keep.")
    var keep = 10

    @Flag(help: "Print what was deleted as JSON.")
    var json = false

    /// What `gc --json` prints. `keptPerFile` and `keptPerWorkflow` are the same number, the
    /// journal's name and the queue's (a journal names each workflow by its file).
    struct Result: Encodable {
        let deletedRuns: [Int64]
        let deletedOutputDirectories: [String]
        let keptPerFile: Int
        let keptPerWorkflow: Int

        init(deletedRuns: [Int64], deletedOutputDirectories: [String], kept: Int) {
            (self.deletedRuns, self.deletedOutputDirectories) = (deletedRuns, deletedOutputDirectories)
            (keptPerFile, keptPerWorkflow) = (kept, kept)
        }
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
        if setAside, history.queueLocation != nil { throw ValidationError("--set-aside is for the journal; a damaged queue is copied with --recover") }
        if recover, history.queueLocation == nil { throw ValidationError("--recover needs --queue FILE (a damaged journal is set aside with --set-aside)") }
    }

    func run() async throws {
        if check { return try DamageCommands.check(journal: history.location.path, queue: QueueOptions.location(history.queueLocation), json: json) }
        if setAside { return try DamageCommands.setAside(journal: history.location.path, json: json) }
        if recover, let queue = history.queueLocation { return try DamageCommands.recover(queue: queue, json: json) }
        let history = try await self.history.open()
        let deleted = try await reading { try await history.deleteRuns(keeping: keep) }
        if json {
            return printJSON(Result(deletedRuns: deleted.runs, deletedOutputDirectories: deleted.outputDirectories, kept: keep))
        }
        let (runs, directories) = (deleted.runs.count, deleted.outputDirectories.count)
        let what = history.resumes
            ? "\(runs) run\(runs == 1 ? "" : "s") and \(directories) output director\(directories == 1 ? "y" : "ies") from the \(history.name)"
            : "\(runs) run\(runs == 1 ? "" : "s") from the \(history.name), with their jobs and output"
        print("deleted \(what); kept the newest \(keep) of each workflow")
    }
}
