import Foundation
public import SequencerHistory
internal import GRDB

extension HistoryGraph {
    /// The graph as stored: compact JSON, and its digest, which names it.
    func encoded() -> (data: Data, digest: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return (data, FileHasher.digest(of: data))
    }
}

extension SQLiteJournal {
    /// The digest of `run`'s graph: the one its last session recorded; for a run that recorded
    /// none (a no-op run, decided in one pass, records no graph: its file had not changed), the
    /// one of the last earlier session of the same workflow that did. Nil for runs recorded
    /// before schema version 5, and in an older journal read without migrating it.
    public func graphDigest(of run: JournalRun) throws -> String? {
        try read { db in
            guard try db.columns(in: "run_sessions").contains(where: { $0.name == "graph" }) else { return nil }
            let own = try String.fetchOne(
                db, sql: "SELECT graph FROM run_sessions WHERE run_id = ? AND graph IS NOT NULL ORDER BY session DESC LIMIT 1",
                arguments: [run.id])
            return try own ?? String.fetchOne(
                db,
                sql: """
                    SELECT s.graph FROM run_sessions AS s JOIN runs AS r ON r.id = s.run_id
                    WHERE r.workflow = ? AND s.run_id < ? AND s.graph IS NOT NULL ORDER BY s.run_id DESC, s.session DESC LIMIT 1
                    """,
                arguments: [run.workflow, run.id])
        }
    }

    /// The graph kept under `digest`; nil when there is none or it cannot be decoded.
    public func graph(digest: String) throws -> HistoryGraph? {
        let data = try read { db in try Data.fetchOne(db, sql: "SELECT graph FROM graphs WHERE digest = ?", arguments: [digest]) }
        return data.flatMap { try? JSONDecoder().decode(HistoryGraph.self, from: $0) }
    }

    /// `run`'s graph (see ``graphDigest(of:)``).
    public func graph(of run: JournalRun) throws -> HistoryGraph? {
        try graphDigest(of: run).flatMap { try graph(digest: $0) }
    }
}
