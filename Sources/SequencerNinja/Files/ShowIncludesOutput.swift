/// A compiler's output read as ninja reads `cl.exe /showIncludes` output for `deps = msvc`
/// (`ShowIncludesParser.parse(_:prefix:)`): the headers it included, and the rest of the output,
/// which ninja prints as the command's output.
public struct ShowIncludesOutput: Sendable, Equatable {
    /// The included headers: canonical, without system headers, each once, sorted by their bytes
    /// (ninja keeps them in a `std::set`, and records them in that order).
    public var includeBytes: [[UInt8]]
    /// The other lines, each ending with a newline (CRLF and CR line ends become LF).
    public var remainingOutput: [UInt8]

    /// An output of these values.
    public init(includeBytes: [[UInt8]], remainingOutput: [UInt8]) {
        self.includeBytes = includeBytes
        self.remainingOutput = remainingOutput
    }

    /// The included headers, as text (invalid UTF-8 replaced with U+FFFD).
    public var includes: [String] { includeBytes.map { String(decoding: $0, as: UTF8.self) } }
    /// The other lines, as text.
    public var remainingText: String { String(decoding: remainingOutput, as: UTF8.self) }
}
