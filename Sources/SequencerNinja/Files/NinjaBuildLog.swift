/// The content of `.ninja_log`: for each output, the latest `NinjaBuildLogEntry`.
///
/// Read it with `load(from:)` (or `decode(_:)`), look outputs up with `subscript(output:)`,
/// `record(_:)` each finished command (and append `line(for:)` to the file with a
/// `NinjaLogAppender`), rewrite it with `recompact(at:version:isDead:)` when
/// `needsRecompaction(writingVersion:)` says so, as ninja does when it opens the log.
///
/// The file is text: a header `# ninja log v5` then one line per finished command and output,
/// `start<TAB>end<TAB>mtime<TAB>output<TAB>hash`, the hash in lowercase hexadecimal (version 4
/// had the command itself in the last field). Versions 5 and 6 have the same lines (6 only marks
/// that ninja 1.12 records the mtime differently); version 7 hashes commands with rapidhash.
public struct NinjaBuildLog: Sendable {
    /// The file's name in the build directory.
    public static let fileName = ".ninja_log"
    /// The version ninja 1.11 writes.
    public static let ninja111Version = 5
    /// The versions this reader understands: ninja 1.11 reads 4 and newer; 6 is ninja 1.12's,
    /// 7 ninja 1.13's.
    public static let readableVersions: ClosedRange<Int> = 4...7

    /// The version in the file's header; nil when the log was empty or is new.
    public var version: Int?
    /// The entries, one per output, in the order the outputs first appeared.
    public private(set) var entries: [NinjaBuildLogEntry] = []
    private var positionByOutput: [String: Int] = [:]
    /// How many entry lines the file had when it was read: ninja recompacts a log whose lines
    /// are mostly outdated.
    public internal(set) var loadedLineCount = 0
    /// How many distinct outputs those lines named.
    public internal(set) var loadedOutputCount = 0

    /// An empty log.
    public init(version: Int? = nil) { self.version = version }

    /// The latest entry for `output`, if any.
    public subscript(output output: String) -> NinjaBuildLogEntry? {
        guard let position = positionByOutput[output] else { return nil }
        return entries[position]
    }

    /// The hash function the log's command hashes were made with.
    public var commandHashFunction: NinjaCommandHashFunction {
        NinjaCommandHashFunction(logVersion: version ?? Self.ninja111Version)
    }

    /// Records `entry`, replacing the entry its output had.
    public mutating func record(_ entry: NinjaBuildLogEntry) {
        if let position = positionByOutput[entry.output] {
            entries[position] = entry
        } else {
            positionByOutput[entry.output] = entries.count
            entries.append(entry)
        }
    }

    /// Forgets the entries whose output `isRemoved` says to.
    public mutating func removeAll(where isRemoved: (NinjaBuildLogEntry) throws -> Bool) rethrows {
        let kept = try entries.filter { try !isRemoved($0) }
        guard kept.count != entries.count else { return }
        entries = kept
        positionByOutput = [:]
        positionByOutput.reserveCapacity(kept.count)
        for (position, entry) in kept.enumerated() { positionByOutput[entry.output] = position }
    }

    /// Whether the file should be rewritten before lines of `writingVersion` are appended to it:
    /// when it is older than that version (ninja's rule), when its hashes are of another hash
    /// function (appended lines would not be read back right), or when more than 100 lines hold
    /// three times as many lines as outputs (ninja's rule).
    public func needsRecompaction(writingVersion: Int) -> Bool {
        if let version {
            if version < writingVersion { return true }
            if NinjaCommandHashFunction(logVersion: version) != NinjaCommandHashFunction(logVersion: writingVersion) {
                return true
            }
        }
        return loadedLineCount > 100 && loadedLineCount > loadedOutputCount * 3
    }

    mutating func countLoadedLine(newOutput: Bool) {
        loadedLineCount += 1
        if newOutput { loadedOutputCount += 1 }
    }
}
