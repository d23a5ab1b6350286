import Foundation

/// Damages an SQLite file the same way every time, for tests of what meets a damaged file: a
/// page overwritten with `0xFF` bytes has no valid b-tree page type, so SQLite reports
/// `SQLITE_CORRUPT` ("database disk image is malformed") for any read of the table whose page
/// it is, and `PRAGMA integrity_check` fails.
///
/// ```swift
/// let root = try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'runs'") }
/// try SQLiteDamage.overwritePage(root, of: path)
/// ```
public enum SQLiteDamage {
    /// Overwrites page `page` (1 is the first) of the SQLite file at `path`; of page 1, the
    /// part after the file's 100-byte header (the schema table's b-tree page).
    /// - Throws: The file system's error; an error when the file has no such page.
    public static func overwritePage(_ page: Int, of path: String) throws {
        let url = URL(fileURLWithPath: path)
        var bytes = try Data(contentsOf: url)
        guard bytes.count >= 100, page >= 1 else { throw DamageError(message: "\(path) is not an SQLite file with page \(page)") }
        let stored = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = stored == 1 ? 65536 : stored
        let start = (page - 1) * pageSize + (page == 1 ? 100 : 0)
        let end = page * pageSize
        guard pageSize >= 512, end <= bytes.count else { throw DamageError(message: "\(path) has no page \(page)") }
        bytes.replaceSubrange(start..<end, with: Data(repeating: 0xFF, count: end - start))
        try bytes.write(to: url)
    }

    /// Why a file could not be damaged as asked.
    public struct DamageError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
