import ArgumentParser
import Foundation
import SequencerQueue

/// `gc` against a durable queue (`--queue`), as it works against the journal.
enum QueueCommands {
    /// `gc --queue`: deletes the ended runs beyond the newest `keep` of each workflow, with their
    /// jobs and attempt logs (their output). Running runs are kept.
    static func collect(_ store: any RunStore, location: String, keep: Int, json: Bool) async throws {
        let deleted = try await store.deleteRuns(keeping: keep, workflow: nil)
        struct Result: Encodable {
            let deletedRuns: [Int64]
            let keptPerWorkflow: Int
        }
        if json { return printJSON(Result(deletedRuns: deleted.map(\.id.rawValue), keptPerWorkflow: keep)) }
        print("deleted \(deleted.count) run\(deleted.count == 1 ? "" : "s") from the queue \(location), with their jobs and output; kept the newest \(keep) of each workflow")
    }
}
