/// What `.ninja_log` records for one output: when its command ran, the hash of that command and
/// the modification time ninja recorded for the output.
public struct NinjaBuildLogEntry: Sendable, Equatable {
    /// The output's path, as the manifest names it (canonical).
    public var output: String
    /// The hash of the command that wrote the output (`NinjaCommandHashFunction`), with the
    /// response file's content appended when the edge has one, as ninja evaluates it.
    public var commandHash: UInt64
    /// Milliseconds from the start of the build to the start of the command (a C `int`).
    public var startTime: Int32
    /// Milliseconds from the start of the build to the end of the command.
    public var endTime: Int32
    /// The modification time ninja recorded for the output (nanoseconds since the epoch on
    /// POSIX), or 0 when none was recorded.
    public var mtime: Int64

    /// An entry of these values.
    public init(output: String, commandHash: UInt64, startTime: Int32, endTime: Int32, mtime: Int64) {
        self.output = output
        self.commandHash = commandHash
        self.startTime = startTime
        self.endTime = endTime
        self.mtime = mtime
    }
}
