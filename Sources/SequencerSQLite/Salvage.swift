import Foundation
import GRDB

/// What ``VersionedFile/salvage(from:into:skipping:)`` copied from a damaged file.
package struct Salvage: Sendable {
    /// Each table's rows copied, by table, in the file's order.
    package var copied: [(table: String, rows: Int)] = []
    /// What could not be read or kept: a table whose rows stopped at damage, rows refused by
    /// the new file (a row whose parent row was lost), in words.
    package var lost: [String] = []
}

extension VersionedFile {
    /// Copies what still reads of the damaged file at `damaged` into a new file at `target`,
    /// table by table, row by row in each table's order until SQLite reports damage: the rows
    /// before the damaged page of a table are kept, the rest of that table is lost. The damaged
    /// file is opened read-only and never written.
    ///
    /// The new file is made with this schema (as ``open(_:)`` makes one), so the damaged file
    /// must be of this schema version. Rows the new file refuses (a row whose parent row was
    /// lost, by a foreign key) are left out, so the new file is consistent.
    /// - Parameters:
    ///   - skipping: Tables not copied: caches that a damaged value could mislead.
    /// - Throws: ``Problem`` when the damaged file's schema cannot be read (its first page is
    ///   damaged, say) or is another version; the target's errors.
    package func salvage(from damaged: String, into target: String, skipping: Set<String> = []) throws -> Salvage {
        var configuration = Configuration()
        configuration.readonly = true
        let source: DatabaseQueue
        let tables: [String]
        do {
            source = try DatabaseQueue(path: damaged, configuration: configuration)
            tables = try source.read { db in
                let foundID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                if foundID != applicationID { throw Problem.foreign }
                if version != current { throw Problem.unusable("its schema version is \(version), not \(current)") }
                return try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Damage.isDamage(error) ? Problem.damaged(Self.describe(error)) : Problem.unusable(Self.describe(error))
        }
        let destination = try DatabaseQueue(path: target)
        try open(destination)
        var salvage = Salvage()
        for table in tables where table != "grdb_migrations" && !skipping.contains(table) {
            let columns = try destination.read { db in try db.columns(in: table).map(\.name) }
            guard !columns.isEmpty else { continue }
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            var rows: [[DatabaseValue]] = []
            do {
                try source.read { db in
                    let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM \"\(table)\"")
                    while let row = try cursor.next() { rows.append(Array(row.databaseValues)) }
                }
            } catch {
                salvage.lost.append("\(table): the rows after the first \(rows.count) (\(Self.describe(error)))")
            }
            let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            let refused = try destination.write { db in
                var refused = 0
                let statement = try db.makeStatement(sql: "INSERT OR IGNORE INTO \"\(table)\" (\(list)) VALUES (\(marks))")
                for row in rows {
                    do {
                        try statement.execute(arguments: StatementArguments(row))
                    } catch {
                        refused += 1
                    }
                }
                return refused
            }
            if refused > 0 { salvage.lost.append("\(table): \(refused) rows whose parent rows were lost") }
            salvage.copied.append((table, rows.count - refused))
        }
        return salvage
    }
}
