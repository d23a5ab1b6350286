/// Ninja's lexer, over the bytes of one file: tokens, identifiers, and `$`-escaped strings
/// (paths and values), with ninja's error messages and their context lines.
///
/// Like ninja's, it remembers where the last token started (`lastToken`) so that a parser can
/// put a token back (`unreadToken()`) and so that errors point at it.
struct Lexer {
    let fileName: String
    private let source: SourceBuffer
    private let bytes: UnsafePointer<UInt8>
    /// Where the next read starts.
    private(set) var offset = 0
    /// Where the last token (or identifier, or string delimiter) started; -1 before the first.
    private(set) var lastToken = -1
    /// A position and its line number, from which `lineNumber(of:)` counts on.
    private var lineCache = (offset: 0, line: 1)

    init(fileName: String, contents: [UInt8]) {
        self.fileName = fileName
        source = SourceBuffer(contents)
        bytes = UnsafePointer(source.base)
    }

    // MARK: Tokens

    mutating func readToken() -> ManifestToken {
        var p = offset
        var start = p
        var token = ManifestToken.error
        scanning: while true {
            start = p
            let byte = bytes[p]
            switch byte {
            case Byte.space:
                var q = p + 1
                while bytes[q] == Byte.space { q += 1 }
                switch bytes[q] {
                case Byte.hash:
                    if let next = lineAfterComment(at: q) {
                        p = next
                        continue scanning
                    }
                    token = .indent
                    p = q
                case Byte.newline:
                    token = .newline
                    p = q + 1
                case Byte.carriageReturn where bytes[q + 1] == Byte.newline:
                    token = .newline
                    p = q + 2
                default:
                    token = .indent
                    p = q
                }
            case Byte.hash:
                if let next = lineAfterComment(at: p) {
                    p = next
                    continue scanning
                }
                token = .error
                p += 1
            case Byte.carriageReturn:
                if bytes[p + 1] == Byte.newline {
                    token = .newline
                    p += 2
                } else {
                    token = .error
                    p += 1
                }
            case Byte.newline:
                token = .newline
                p += 1
            case Byte.equals:
                token = .equals
                p += 1
            case Byte.colon:
                token = .colon
                p += 1
            case Byte.pipe:
                switch bytes[p + 1] {
                case Byte.at:
                    token = .pipeAt
                    p += 2
                case Byte.pipe:
                    token = .pipe2
                    p += 2
                default:
                    token = .pipe
                    p += 1
                }
            case 0:
                // The end; stay on the 0 so that reading again finds it again.
                token = .eof
            default:
                if Byte.isVariableName(byte) {
                    var q = p + 1
                    while Byte.isVariableName(bytes[q]) { q += 1 }
                    token = keyword(at: p, count: q - p) ?? .ident
                    p = q
                } else {
                    token = .error
                    p += 1
                }
            }
            break
        }
        lastToken = start
        offset = p
        if token != .newline && token != .eof { eatWhitespace() }
        return token
    }

    /// Goes back to the start of the last token.
    mutating func unreadToken() {
        offset = max(lastToken, 0)
    }

    /// Reads the next token if it is `token`.
    mutating func peekToken(_ token: ManifestToken) -> Bool {
        if readToken() == token { return true }
        unreadToken()
        return false
    }

    /// A rule, pool or variable name (letters, digits, `_`, `-`, `.`), or nil when there is none
    /// here (`lastToken` then points here, for the error).
    mutating func readIdent() -> String? {
        let start = offset
        var p = start
        while Byte.isVariableName(bytes[p]) { p += 1 }
        lastToken = start
        if p == start { return nil }
        let name = String(decoding: UnsafeBufferPointer(start: bytes + start, count: p - start), as: UTF8.self)
        offset = p
        eatWhitespace()
        return name
    }

    /// Reads a path (it ends at a space, `:`, `|` or the end of the line) into `strings`.
    ///
    /// - Returns: false when there was no path here (a delimiter came first).
    mutating func readPath(into strings: inout LexedStrings) throws(ManifestError) -> Bool {
        try readEvalString(into: &strings, isPath: true)
    }

    /// Reads the value of a `name = value` line, to the end of the line.
    mutating func readValue(into strings: inout LexedStrings) throws(ManifestError) -> Bool {
        try readEvalString(into: &strings, isPath: false)
    }

    /// The line (from 1) of byte `position`; quick when asked about positions in order.
    mutating func lineNumber(of position: Int) -> Int {
        let target = max(0, min(position, source.count))
        if target < lineCache.offset { lineCache = (0, 1) }
        var (offset, line) = lineCache
        while offset < target {
            if bytes[offset] == Byte.newline { line += 1 }
            offset += 1
        }
        lineCache = (offset, line)
        return line
    }

    // MARK: Errors

    /// `message` as ninja reports it at the last token: `FILE:LINE: message`, and, unless the
    /// token starts its line, the line (cut at 72 columns) and a caret under the token.
    func error(_ message: String) -> ManifestError {
        var line = 1
        var lineStart = 0
        if lastToken > 0 {
            for position in 0..<lastToken where bytes[position] == Byte.newline {
                line += 1
                lineStart = position + 1
            }
        }
        let column = lastToken >= 0 ? lastToken - lineStart : 0
        var text = Array("\(fileName):\(line): ".utf8)
        // ninja formats this prefix into a 1,024-byte buffer.
        if text.count > 1023 { text.removeSubrange(1023...) }
        text.append(contentsOf: message.utf8)
        text.append(Byte.newline)
        let truncateColumn = 72
        if column > 0 && column < truncateColumn {
            var length = 0
            var truncated = true
            while length < truncateColumn {
                let byte = bytes[lineStart + length]
                if byte == 0 || byte == Byte.newline {
                    truncated = false
                    break
                }
                length += 1
            }
            text.append(contentsOf: UnsafeBufferPointer(start: bytes + lineStart, count: length))
            if truncated { text.append(contentsOf: "...".utf8) }
            text.append(Byte.newline)
            text.append(contentsOf: repeatElement(Byte.space, count: column))
            text.append(contentsOf: "^ near here".utf8)
        }
        return ManifestError(String(decoding: text, as: UTF8.self))
    }

    /// What ninja says of an unexpected character at the last token.
    func describeLastError() -> String {
        if lastToken >= 0 && bytes[lastToken] == Byte.tab { return "tabs are not allowed, use spaces" }
        return "lexing error"
    }

    // MARK: Private

    /// Spaces, and `$` line continuations, after a token.
    private mutating func eatWhitespace() {
        var p = offset
        while true {
            if bytes[p] == Byte.space {
                p += 1
                while bytes[p] == Byte.space { p += 1 }
                continue
            }
            if bytes[p] == Byte.dollar {
                if bytes[p + 1] == Byte.newline {
                    p += 2
                    continue
                }
                if bytes[p + 1] == Byte.carriageReturn && bytes[p + 2] == Byte.newline {
                    p += 3
                    continue
                }
            }
            break
        }
        offset = p
    }

    /// After a comment that starts at `hash`: the start of the next line, or nil when the
    /// comment runs into the end of the file (ninja then sees no comment: a lexing error).
    private func lineAfterComment(at hash: Int) -> Int? {
        var p = hash + 1
        while true {
            switch bytes[p] {
            case Byte.newline: return p + 1
            case 0: return nil
            default: p += 1
            }
        }
    }

    private func keyword(at start: Int, count: Int) -> ManifestToken? {
        func matches(_ word: StaticString) -> Bool {
            word.utf8CodeUnitCount == count && memoryEquals(word.utf8Start, bytes + start, count)
        }
        switch count {
        case 4: return matches("pool") ? .pool : matches("rule") ? .rule : nil
        case 5: return matches("build") ? .build : nil
        case 7: return matches("default") ? .default : matches("include") ? .include : nil
        case 8: return matches("subninja") ? .subninja : nil
        default: return nil
        }
    }

    private func memoryEquals(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for index in 0..<count where a[index] != b[index] { return false }
        return true
    }

    private mutating func readEvalString(into strings: inout LexedStrings, isPath: Bool) throws(ManifestError) -> Bool {
        var p = offset
        var start = p
        reading: while true {
            start = p
            let byte = bytes[p]
            if Byte.isPlainText(byte) {
                var q = p + 1
                while Byte.isPlainText(bytes[q]) { q += 1 }
                strings.appendText(bytes + p, count: q - p)
                p = q
                continue
            }
            switch byte {
            case Byte.carriageReturn:
                guard bytes[p + 1] == Byte.newline else { throw failure(at: start, in: &strings) }
                if !isPath { p += 2 }
                break reading
            case Byte.newline:
                if !isPath { p += 1 }
                break reading
            case Byte.space, Byte.colon, Byte.pipe:
                if isPath { break reading }
                strings.appendText(byte: byte)
                p += 1
            case Byte.dollar:
                let next = bytes[p + 1]
                switch next {
                case Byte.dollar, Byte.space, Byte.colon:
                    strings.appendText(byte: next)
                    p += 2
                case Byte.newline:
                    p += 2
                    while bytes[p] == Byte.space { p += 1 }
                case Byte.carriageReturn where bytes[p + 2] == Byte.newline:
                    p += 3
                    while bytes[p] == Byte.space { p += 1 }
                case Byte.openBrace:
                    var q = p + 2
                    while Byte.isVariableName(bytes[q]) { q += 1 }
                    guard q > p + 2, bytes[q] == Byte.closeBrace else { throw badEscape(at: start, in: &strings) }
                    strings.appendVariable(bytes + p + 2, count: q - p - 2)
                    p = q + 1
                default:
                    guard Byte.isSimpleVariableName(next) else { throw badEscape(at: start, in: &strings) }
                    var q = p + 2
                    while Byte.isSimpleVariableName(bytes[q]) { q += 1 }
                    strings.appendVariable(bytes + p + 1, count: q - p - 1)
                    p = q
                }
            case 0:
                lastToken = start
                strings.discardOpen()
                throw error("unexpected EOF")
            default:
                throw failure(at: start, in: &strings)
            }
        }
        lastToken = start
        offset = p
        if isPath { eatWhitespace() }
        return strings.close()
    }

    private mutating func badEscape(at start: Int, in strings: inout LexedStrings) -> ManifestError {
        lastToken = start
        strings.discardOpen()
        return error("bad $-escape (literal $ must be written as $$)")
    }

    private mutating func failure(at start: Int, in strings: inout LexedStrings) -> ManifestError {
        lastToken = start
        strings.discardOpen()
        return error(describeLastError())
    }
}

/// The bytes the lexer knows.
enum Byte {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let hash: UInt8 = 0x23
    static let dollar: UInt8 = 0x24
    static let slash: UInt8 = 0x2F
    static let dot: UInt8 = 0x2E
    static let colon: UInt8 = 0x3A
    static let equals: UInt8 = 0x3D
    static let at: UInt8 = 0x40
    static let openBrace: UInt8 = 0x7B
    static let pipe: UInt8 = 0x7C
    static let closeBrace: UInt8 = 0x7D

    /// Letters, digits, `_`, `-`: what may follow a bare `$`.
    @inline(__always)
    static func isSimpleVariableName(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x61...0x7A, 0x41...0x5A, 0x30...0x39, 0x5F, 0x2D: true
        default: false
        }
    }

    /// Those and `.`: identifiers, and names in `${...}`.
    @inline(__always)
    static func isVariableName(_ byte: UInt8) -> Bool {
        isSimpleVariableName(byte) || byte == dot
    }

    /// Anything but `$`, space, `:`, `|`, CR, LF and 0: the bytes a string copies as they are.
    @inline(__always)
    static func isPlainText(_ byte: UInt8) -> Bool {
        switch byte {
        case dollar, space, colon, pipe, carriageReturn, newline, 0: false
        default: true
        }
    }
}
