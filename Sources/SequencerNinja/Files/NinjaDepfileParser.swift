extension NinjaDepfile {
    /// Parses `content` as ninja 1.11's depfile parser does, with what GCC and Clang write in
    /// mind:
    /// - paths are separated by white space (and by any byte that cannot be in a path, e.g.
    ///   `'`, `"`, `&`, `?`, `*`, `|`, `;`, an unescaped `#` or a lone `$`); a newline (LF or
    ///   CRLF) ends a rule; backslash-newline continues it;
    /// - `\ ` after an odd number of backslashes is half of them and a space inside the path; an
    ///   even number of backslashes before a space stays as it is and ends the path;
    /// - `\#` is `#` (other backslashes before it stay), `$$` is `$`, `\:` is `:` unless white
    ///   space or the end follows it (then it stays `\:`, the colon of a target), and a
    ///   backslash before any other byte stays;
    /// - a path ending in `:` is a target (every path before it on its line too) and ends the
    ///   targets; the colon is dropped;
    /// - every path is kept once: a target already seen is dropped, an input already seen as an
    ///   input is dropped, and a target that was an input is dropped too, but marks its rule as
    ///   one whose new inputs are an error ("inputs may not also have inputs"), which `-MP`'s
    ///   empty rules never are.
    ///
    /// - Throws: `NinjaDepfileError.missingColon` when no path ends with a colon (an empty
    ///   content too: callers treat an empty depfile as no inputs before parsing, as ninja's do),
    ///   `NinjaDepfileError.inputWithInputs` as above.
    public init(parsing content: [UInt8]) throws(NinjaDepfileError) {
        let result = content.withUnsafeBufferPointer { NinjaDepfileScanner.parse($0) }
        self = try result.get()
    }

    /// Parses the UTF-8 bytes of `text` (`init(parsing:)` with bytes).
    public init(parsing text: String) throws(NinjaDepfileError) {
        var text = text
        let result = text.withUTF8 { NinjaDepfileScanner.parse($0) }
        self = try result.get()
    }
}

/// The byte-level scanner behind `NinjaDepfile.init(parsing:)`. It reads past the end as a NUL,
/// as ninja's scanner reads the NUL that ends its string, and a NUL inside ends a path as the
/// end does. Unescaped paths are written one after the other into one buffer (never longer
/// than the input: unescaping only shortens), and looked up in hash sets of ranges of it.
enum NinjaDepfileScanner {
    private static let backslash = UInt8(ascii: "\\")
    private static let newline = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let space = UInt8(ascii: " ")
    private static let colon = UInt8(ascii: ":")

    /// For each byte, whether it can be in a path without escaping: letters, digits,
    /// `+,/_:.~(){}%=@[]!-` and every byte from 0x80.
    private static let pathBytes: [Bool] = (0...255).map { byte in
        byte >= 0x80 || "+,/_:.~()}{%=@[]!-".utf8.contains(UInt8(byte))
            || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    static func parse(_ input: UnsafeBufferPointer<UInt8>) -> Result<NinjaDepfile, NinjaDepfileError> {
        pathBytes.withUnsafeBufferPointer { parse(input, pathBytes: $0) }
    }

    private static func parse(
        _ input: UnsafeBufferPointer<UInt8>, pathBytes: UnsafeBufferPointer<Bool>
    ) -> Result<NinjaDepfile, NinjaDepfileError> {
        func isPathByte(_ byte: UInt8) -> Bool { pathBytes[Int(byte)] }
        var outputs = NinjaDepfilePathSet()
        var inputs = NinjaDepfilePathSet()
        var failure: NinjaDepfileError?
        var haveTarget = false
        let storage = [UInt8](unsafeUninitializedCapacity: max(input.count, 1)) { buffer, written in
            written = 0
            guard let out = buffer.baseAddress else { return }
            let paths = UnsafeBufferPointer(buffer)
            let end = input.count
            func byte(_ index: Int) -> UInt8 { index < end ? input[index] : 0 }
            func appendBackslashes(_ count: Int) {
                if count > 0 {
                    (out + written).initialize(repeating: backslash, count: count)
                    written += count
                }
            }
            func append(_ byte: UInt8) {
                out[written] = byte
                written += 1
            }

            var parsingTargets = true
            var poisonedInput = false
            var index = 0
            while index < end {
                var haveNewline = false
                let nameStart = written
                scanning: while true {
                    let current = byte(index)
                    if isPathByte(current), let source = input.baseAddress {
                        let start = index
                        index += 1
                        while index < end, isPathByte(source[index]) { index += 1 }
                        (out + written).initialize(from: source + start, count: index - start)
                        written += index - start
                        continue scanning
                    }
                    if current == backslash {
                        var count = 1
                        while byte(index + count) == backslash { count += 1 }
                        let next = byte(index + count)
                        switch next {
                        case space:
                            if count % 2 == 1 {
                                // 2N+1 backslashes and a space: N backslashes and a space, in the path.
                                appendBackslashes((count - 1) / 2)
                                append(space)
                                index += count + 1
                                continue scanning
                            }
                            // 2N backslashes and a space: the backslashes end the path.
                            appendBackslashes(count)
                            index += count + 1
                            break scanning
                        case UInt8(ascii: "#"):
                            appendBackslashes(count - 1)
                            append(next)
                            index += count + 1
                            continue scanning
                        case colon:
                            let after = byte(index + count + 1)
                            if after == 0 || after == space || after == carriageReturn || after == newline || after == UInt8(ascii: "\t") {
                                // A target's colon after a path that ends in backslashes.
                                appendBackslashes(count)
                                append(colon)
                                index += count + 2
                                if after == newline { haveNewline = true }
                                break scanning
                            }
                            appendBackslashes(count - 1)
                            append(colon)
                            index += count + 1
                            continue scanning
                        case newline, carriageReturn, 0:
                            if count > 1 {
                                // The last backslash counts as the escaped byte: all stay.
                                appendBackslashes(count)
                                index += count
                                continue scanning
                            }
                            if next == newline {
                                index += 2
                            } else if next == carriageReturn, byte(index + 2) == newline {
                                index += 3
                            } else {
                                // A lone backslash before a lone CR or the end: dropped.
                                index += 1
                            }
                            break scanning
                        default:
                            appendBackslashes(count)
                            append(next)
                            index += count + 1
                            continue scanning
                        }
                    }
                    if current == UInt8(ascii: "$") {
                        if byte(index + 1) == UInt8(ascii: "$") {
                            append(current)
                            index += 2
                            continue scanning
                        }
                        index += 1
                        break scanning
                    }
                    if current == newline {
                        haveNewline = true
                        index += 1
                        break scanning
                    }
                    if current == carriageReturn, byte(index + 1) == newline {
                        haveNewline = true
                        index += 2
                        break scanning
                    }
                    // White space, a NUL or any other byte ends the path.
                    index += 1
                    break scanning
                }

                var nameEnd = written
                let isDependency = !parsingTargets
                if nameEnd > nameStart, out[nameEnd - 1] == colon {
                    nameEnd -= 1
                    parsingTargets = false
                    haveTarget = true
                }
                // The path stays in the buffer only when it is kept.
                written = nameStart
                if nameEnd > nameStart {
                    let range = nameStart..<nameEnd
                    let hash = NinjaDepfilePathSet.hash(range, in: paths)
                    if isDependency {
                        // An input already seen is dropped; a new one is an error in a rule
                        // whose target was an input.
                        if poisonedInput, !inputs.contains(range, hash: hash, in: paths) {
                            failure = .inputWithInputs
                            return
                        }
                        if inputs.insert(range, hash: hash, in: paths) { written = nameEnd }
                    } else if inputs.contains(range, hash: hash, in: paths) {
                        // A target that was an input: its rule may not add inputs.
                        poisonedInput = true
                    } else if outputs.insert(range, hash: hash, in: paths) {
                        written = nameEnd
                    }
                }
                if haveNewline {
                    parsingTargets = true
                    poisonedInput = false
                }
            }
        }
        if let failure { return .failure(failure) }
        guard haveTarget else { return .failure(.missingColon) }
        return .success(NinjaDepfile(storage: storage, outputRanges: outputs.ranges, inputRanges: inputs.ranges))
    }
}
