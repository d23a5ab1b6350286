import Foundation
package import GRDB
import Synchronization

/// What SQLite says about a damaged file, shared by the journal and the durable queue: which
/// errors mean damage, the checks that look for it, and the marker that remembers it.
///
/// Once SQLite has reported a file damaged, nothing writes into it again: the owner leaves a
/// marker beside it (`FILE.damage`, holding the file's inode number and SQLite's words), and
/// every later open refuses the file while the marker is there, even when what it reads happens
/// to read well. A marker names the file by its inode: another file moved into its place (a
/// recovered copy) is not refused.
package enum Damage {
    /// Whether `error` is SQLite saying the file is damaged (`SQLITE_CORRUPT`) or is not a
    /// database (`SQLITE_NOTADB`).
    package static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// The marker beside the file at `path` that says SQLite found it damaged.
    package static func markerPath(of path: String) -> String { path + ".damage" }

    /// What the marker beside `path` says, when there is one for the file there now: why the
    /// file was found damaged. One `stat` when there is no marker.
    package static func marked(_ path: String) -> String? {
        let marker = markerPath(of: path)
        guard FileManager.default.fileExists(atPath: marker) else { return nil }
        let text = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        if let first = lines.first, first.hasPrefix("inode "), let marked = UInt64(first.dropFirst("inode ".count)),
           inode(of: path) != marked {
            return nil
        }
        let reason = lines.count > 1 ? lines[1].trimmingCharacters(in: .whitespacesAndNewlines) : ""
        return reason.isEmpty ? "an earlier command found it damaged" : reason
    }

    /// Leaves the marker beside `path`, holding the file's inode number and `reason`, and holds
    /// the file open (see ``holdOpen(_:)``). Best effort: in a directory that cannot be
    /// written, the file is refused by this process only.
    package static func mark(_ path: String, reason: String) {
        holdOpen(path)
        guard marked(path) == nil else { return }
        let text = "inode \(inode(of: path) ?? 0)\n\(reason)\n"
        try? Data(text.utf8).write(to: URL(fileURLWithPath: markerPath(of: path)))
    }

    /// Read-only connections to damaged files, kept open until the process ends.
    private static let held = Mutex<[String: DatabaseQueue]>([:])

    /// Keeps a read-only connection to the file at `path` open until the process ends. SQLite
    /// copies a file's write-ahead log into it when its last connection closes (a checkpoint);
    /// a connection in WAL mode holds a shared lock on the file for as long as it is open, so
    /// while this one lives no other connection of the process is the last, and what the log
    /// holds (writes made before the damage was found) never goes into the damaged file.
    package static func holdOpen(_ path: String) {
        guard held.withLock({ $0[path] == nil }) else { return }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "sequencer-damaged-file"
        guard let connection = try? DatabaseQueue(path: path, configuration: configuration),
              (try? connection.read({ db in try Int.fetchOne(db, sql: "PRAGMA user_version") })) != nil else { return }
        held.withLock { $0[path] = connection }
    }

    private static func inode(of path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
    }

    /// The problems `PRAGMA quick_check` finds (O(file size), without checking that indexes
    /// match their tables); empty when there are none.
    package static func quickCheck(_ db: Database) throws -> [String] {
        let rows = try String.fetchAll(db, sql: "PRAGMA quick_check")
        return rows == ["ok"] ? [] : rows
    }

    /// The problems `PRAGMA integrity_check` finds (the full check); empty when there are none.
    package static func integrityCheck(_ db: Database) throws -> [String] {
        let rows = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        return rows == ["ok"] ? [] : rows
    }

    /// `problems` in a line: the first few of what a check reported.
    package static func summary(_ problems: [String]) -> String {
        let shown = problems.prefix(3).joined(separator: "; ")
        return problems.count > 3 ? shown + "; and \(problems.count - 3) more" : shown
    }
}
