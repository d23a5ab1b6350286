/// Why a journal could not be opened, read or written.
public struct JournalError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// The file is not a Sequencer journal, or cannot be read for another reason.
        public static let unreadable = Code(name: "unreadable")
        /// SQLite found the file damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, or a failed check),
        /// now or in an earlier command: nothing more is written to it.
        /// ``SQLiteJournal/setAside(path:)`` (`sequencer gc --set-aside`) moves it away.
        public static let damaged = Code(name: "damaged")
        /// The journal was written by a newer Sequencer, with a schema this one does not know.
        public static let newerVersion = Code(name: "newerVersion")
        /// Another process is writing to the journal now.
        public static let busy = Code(name: "busy")
        /// No such run, or it cannot be resumed.
        public static let noSuchRun = Code(name: "noSuchRun")
        /// Reading or writing the database failed.
        public static let database = Code(name: "database")
    }

    public let code: Code
    /// The journal's path.
    public let path: String
    public let message: String

    public init(code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
