/// A depfile (the Makefile rule a compiler writes with `-MD`/`-MMD`), as ninja reads it for
/// `depfile` and `deps = gcc`: the targets on the left of the colons and the prerequisites on
/// the right, unescaped, each once, in order of appearance.
///
/// Paths are bytes, kept exactly: `outputBytes`/`inputBytes` (and `inputBytes(at:)`) give them
/// as they are, a path that is not UTF-8 intact; `outputs`/`inputs` (and `input(at:)`) decode
/// them as UTF-8, replacing invalid sequences with U+FFFD. The paths are not canonicalised:
/// ninja canonicalises the inputs (and the first output) after parsing.
public struct NinjaDepfile: Sendable {
    /// Every path's bytes, one after the other.
    var storage: [UInt8]
    var outputRanges: [Range<Int>]
    var inputRanges: [Range<Int>]

    init(storage: [UInt8], outputRanges: [Range<Int>], inputRanges: [Range<Int>]) {
        self.storage = storage
        self.outputRanges = outputRanges
        self.inputRanges = inputRanges
    }

    /// A depfile of these targets and prerequisites.
    public init(outputBytes: [[UInt8]] = [], inputBytes: [[UInt8]] = []) {
        storage = []
        outputRanges = []
        inputRanges = []
        for path in outputBytes {
            outputRanges.append(storage.count..<(storage.count + path.count))
            storage += path
        }
        for path in inputBytes {
            inputRanges.append(storage.count..<(storage.count + path.count))
            storage += path
        }
    }

    /// How many targets there are.
    public var outputCount: Int { outputRanges.count }
    /// How many prerequisites there are.
    public var inputCount: Int { inputRanges.count }

    /// The targets, each once, in order.
    public var outputBytes: [[UInt8]] { outputRanges.map { Array(storage[$0]) } }
    /// The prerequisites, each once, in order.
    public var inputBytes: [[UInt8]] { inputRanges.map { Array(storage[$0]) } }
    /// The targets, as text.
    public var outputs: [String] { outputRanges.map(text) }
    /// The prerequisites, as text.
    public var inputs: [String] { inputRanges.map(text) }

    /// The prerequisite at `index` (below `inputCount`), as bytes.
    public func inputBytes(at index: Int) -> ArraySlice<UInt8> { storage[inputRanges[index]] }
    /// The prerequisite at `index` (below `inputCount`), as text.
    public func input(at index: Int) -> String { text(inputRanges[index]) }

    private func text(_ range: Range<Int>) -> String {
        storage.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }
}

extension NinjaDepfile: Equatable {
    /// Whether both have the same targets and the same prerequisites, in the same order.
    public static func == (left: NinjaDepfile, right: NinjaDepfile) -> Bool {
        left.outputBytes == right.outputBytes && left.inputBytes == right.inputBytes
    }
}

/// Why ninja rejects a depfile; ninja prints it after the depfile's path ("out.d: …").
public struct NinjaDepfileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ninja's words: "expected ':' in depfile" or "inputs may not also have inputs".
    public var message: String

    /// The message.
    public var description: String { message }

    /// An error with this message.
    public init(message: String) { self.message = message }

    /// The content has no target (no colon), e.g. is only blank; ninja 1.11 says so of an empty
    /// content too, though its callers never parse one (an empty depfile means no inputs).
    public static let missingColon = NinjaDepfileError(message: "expected ':' in depfile")
    /// A path that is an input appears as a target of a later rule with inputs of its own
    /// (`-MP` adds such targets without inputs, which is fine).
    public static let inputWithInputs = NinjaDepfileError(message: "inputs may not also have inputs")
}
