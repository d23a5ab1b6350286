/// A file operation on a ninja log failed: the system's error (`errno`), described as ninja
/// describes it (`strerror`), e.g. "Permission denied".
///
/// ninja's messages put the description after their own words: "loading build log
/// .ninja_log: …", "opening build log: …", "Error writing to build log: …", "failed
/// recompaction: …".
public struct NinjaLogFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value (`ERANGE` for a deps record too large to write).
    public var code: Int32
    /// `strerror(code)`.
    public var message: String

    /// `message`.
    public var description: String { message }

    /// The error of `code`, described by the system.
    public init(code: Int32) {
        self.code = code
        self.message = NinjaLogFileSystem.describe(code)
    }
}
