/// ninja's own files in the build directory, kept as ninja keeps them so that a user can go
/// back to ninja (and tools that read `.ninja_log` still work): the inputs the last run of an
/// edge discovered (`.ninja_deps`, and depfiles for edges without `deps`), and each output's
/// last command (`.ninja_log`).
public protocol BuildRecords: Sendable {
    /// The inputs the last run of the edge writing `outputs` discovered.
    func discoveredInputs(outputs: [String], facts: EdgeFacts) -> [String]
    /// Keeps the inputs a run discovered (`deps = gcc` or `msvc`).
    func recordDiscovered(outputs: [String], inputs: [String])
    /// Keeps what ran, with when (milliseconds since the build started).
    func recordCommand(outputs: [String], facts: EdgeFacts, start: Int64, end: Int64)
    /// Whether ninja, reading its own files, would take the edge writing `outputs` for up to
    /// date: its last command is logged, unchanged, and no input is newer than that run. A
    /// directory ninja built switches to Sequencer without rebuilding.
    func ninjaConsidersUpToDate(outputs: [String], facts: EdgeFacts, inputs: [String]) -> Bool
    /// Writes what was kept.
    func flush()
    /// The files these records keep (ninja's logs) and the depfiles they read: a no-op's
    /// witness stamps them.
    var logFiles: [String] { get }
    var depfilesRead: [String] { get }
}

/// Records that keep nothing: a dry run's.
struct NoRecords: BuildRecords {
    func discoveredInputs(outputs: [String], facts: EdgeFacts) -> [String] { [] }
    func recordDiscovered(outputs: [String], inputs: [String]) {}
    func recordCommand(outputs: [String], facts: EdgeFacts, start: Int64, end: Int64) {}
    func ninjaConsidersUpToDate(outputs: [String], facts: EdgeFacts, inputs: [String]) -> Bool { false }
    func flush() {}
    var logFiles: [String] { [] }
    var depfilesRead: [String] { [] }
}
