/// A log read from bytes: what it holds, the warning ninja prints about it, and what must be
/// done to the file so that records appended to it later are read back.
public struct NinjaLogDecoding<Log: Sendable>: Sendable {
    /// What to do to the file the bytes came from.
    public enum Repair: Sendable, Equatable {
        /// Nothing: records can be appended to it as it is.
        case none
        /// Delete it: it is unusable (unknown version or signature); the log starts over.
        case delete
        /// Cut it to this many bytes: what follows is a damaged or unfinished record.
        case truncate(toByteCount: Int)
    }

    /// What the bytes hold (empty when the file is unusable).
    public var log: Log
    /// The warning ninja prints for these bytes ("ninja: warning: " and this), if any.
    public var warning: String?
    /// What the file needs before records are appended to it.
    public var repair: Repair

    /// A decoding of these values.
    public init(log: Log, warning: String?, repair: Repair) {
        self.log = log
        self.warning = warning
        self.repair = repair
    }
}

/// A log read from a file (`NinjaBuildLog.load(from:)`, `NinjaDepsLog.load(from:)`).
public struct NinjaLogLoad<Log: Sendable>: Sendable {
    /// What the file holds: empty when it does not exist or was unusable.
    public var log: Log
    /// The warning ninja prints while loading ("ninja: warning: " and this), if any.
    public var warning: String?
    /// Whether the file exists after loading: false when there was none or when it was unusable
    /// and deleted (`ninja -t recompact` then has nothing to do).
    public var fileExists: Bool

    /// A load of these values.
    public init(log: Log, warning: String?, fileExists: Bool) {
        self.log = log
        self.warning = warning
        self.fileExists = fileExists
    }
}
