/// Why a journal could not be opened, read or written.
public struct JournalError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// The file is not a Sequencer journal, or it is damaged.
        public static let unreadable = Code(name: "unreadable")
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
