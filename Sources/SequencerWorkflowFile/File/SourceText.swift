/// A file's text as lines of Unicode scalars, split where YAML (libyaml) breaks lines, so that
/// a line and column from Yams find the same place here.
///
/// YAML breaks lines at `\n`, `\r\n`, a lone `\r`, and U+0085, U+2028, U+2029; a column counts
/// Unicode scalars (not grapheme clusters, not bytes). A byte order mark at the very start is
/// not counted.
struct SourceText {
    /// The lines, without their line breaks.
    private(set) var lines: [[Unicode.Scalar]]

    init(_ text: String) {
        var lines: [[Unicode.Scalar]] = []
        var line: [Unicode.Scalar] = []
        var previous: Unicode.Scalar?
        var first = true
        for scalar in text.unicodeScalars {
            defer { first = false }
            if first, scalar == "\u{FEFF}" { continue }
            if scalar == "\n", previous == "\r" {
                previous = scalar
                continue   // the second half of \r\n: the line was already ended at \r
            }
            previous = scalar
            if Self.isBreak(scalar) {
                lines.append(line)
                line = []
            } else {
                line.append(scalar)
            }
        }
        lines.append(line)
        self.lines = lines
    }

    /// Whether YAML ends a line at this scalar.
    static func isBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}": true
        default: false
        }
    }

    /// The scalars of line `line` (from 1), or nil past the end.
    func line(_ line: Int) -> [Unicode.Scalar]? {
        line >= 1 && line <= lines.count ? lines[line - 1] : nil
    }

    /// The scalar at a location, or nil outside the text.
    func scalar(at location: SourceLocation) -> Unicode.Scalar? {
        guard let line = line(location.line), location.column >= 1, location.column <= line.count else { return nil }
        return line[location.column - 1]
    }

    /// Replaces `count` scalars of line `line` from column `column` (both from 1).
    mutating func replace(line: Int, column: Int, count: Int, with replacement: [Unicode.Scalar]) {
        lines[line - 1].replaceSubrange((column - 1)..<(column - 1 + count), with: replacement)
    }

    /// The lines joined with `\n`.
    ///
    /// - Complexity: O(scalars), with one allocation (appending to a `String` line by line
    ///   reallocated often enough to take a third of `sequencer check`'s time on 10,000 jobs).
    var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(lines.count) { $0 + $1.count })
        for (index, line) in lines.enumerated() {
            if index > 0 { bytes.append(0x0A) }
            for scalar in line {
                if scalar.isASCII {
                    bytes.append(UInt8(scalar.value))
                } else {
                    UTF8.encode(scalar) { bytes.append($0) }
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The line and column of a byte offset into the UTF-8 form of `text`, counted as YAML does.
    static func location(ofUTF8Offset offset: Int, in text: String) -> SourceLocation {
        var line = 1, column = 1, consumed = 0
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            if consumed >= offset { break }
            consumed += UTF8.width(scalar)
            defer { previous = scalar }
            if consumed == UTF8.width(scalar), scalar == "\u{FEFF}" { continue }
            if scalar == "\n", previous == "\r" { continue }
            if isBreak(scalar) {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return SourceLocation(line: line, column: column)
    }
}
