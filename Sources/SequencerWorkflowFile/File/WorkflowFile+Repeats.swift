// Finding repeated keys in the text. Yams refuses a mapping with a repeated key and says only
// where the first of its repeated keys first appears; these functions find the mapping's keys
// from there in the text, so the repeats can be renamed (see `WorkflowFile.compose`).

extension WorkflowFile {
    /// A key of a mapping as the text has it.
    struct MappingKey: Equatable {
        /// Where the key is (its opening quote, if it is quoted).
        var location: SourceLocation
        /// The column where its text starts, and its length, in Unicode scalars.
        var textColumn: Int
        var length: Int
        var text: String
    }

    /// Renames, in `source`, every repeat of the keys Yams named in the mapping whose key at
    /// `first` is the first of them, and records each in `composed.repeatedKeys`.
    ///
    /// Every later occurrence of the key at `first` is renamed, and of each other named key,
    /// every occurrence after the first seen from `first` on (one seen before `first` is then
    /// renamed in a later pass, when Yams names it again). If the repeats cannot be found, the
    /// key at `first` itself is renamed, so the rest of the file can still be read.
    ///
    /// - Returns: false if nothing could be renamed.
    static func renameRepeats(
        of duplicates: [String], from first: SourceLocation, in source: inout SourceText, composed: inout Composed,
        marker: Unicode.Scalar
    ) -> Bool {
        guard let key = duplicates.first else { return false }
        var renames: [MappingKey] = []
        if let keys = keysOfMapping(from: first, in: source, repeating: key) {
            let wanted = Set(duplicates)
            var seen: Set<String> = []
            for found in keys where wanted.contains(found.text) && !seen.insert(found.text).inserted {
                renames.append(found)
            }
        } else if let line = source.line(first.line), let match = keyText(in: line, at: first.column - 1), match.text == key {
            renames = [MappingKey(location: first, textColumn: match.textStart + 1, length: match.length, text: key)]
        }
        var renamed = false
        for rename in renames {
            guard let filler = placeholder(length: rename.length, serial: composed.repeatedKeys.count) else { break }
            source.replace(line: rename.location.line, column: rename.textColumn, count: rename.length, with: filler)
            composed.repeatedKeys[rename.location] = restoringAliasMarker(marker, in: rename.text)
            renamed = true
        }
        return renamed
    }

    /// Where `key` appears again in the mapping whose key at `first` it repeats: a later line
    /// of a block mapping, with the key at the same indentation; or later in a flow mapping
    /// (`{a: 1, a: 2}`), at the same depth of brackets. Keys compare as Swift strings (a
    /// precomposed `é` is the same key as `e` and a combining accent), as Yams compares them.
    ///
    /// - Returns: the position of the repeated key (of its opening quote if it is quoted), the
    ///   column its text starts at, and the length of its text, in Unicode scalars; nil if it
    ///   cannot be found.
    static func findRepeat(of key: String, after first: SourceLocation, in source: SourceText)
        -> (location: SourceLocation, textColumn: Int, length: Int)?
    {
        guard let repeated = keysOfMapping(from: first, in: source, repeating: key)?.dropFirst().first(where: { $0.text == key })
        else { return nil }
        return (repeated.location, repeated.textColumn, repeated.length)
    }

    /// The keys of the mapping whose key at `first` is `key`, from there on, read as a block
    /// mapping or as a flow mapping (whichever finds `key` again; the flow reading first if
    /// a '{' or ',' comes before `first` on its line); nil if neither finds a repeat.
    private static func keysOfMapping(from first: SourceLocation, in source: SourceText, repeating key: String)
        -> [MappingKey]?
    {
        guard !key.isEmpty, let firstLine = source.line(first.line), first.column >= 1,
              first.column <= firstLine.count,
              let firstKey = keyText(in: firstLine, at: first.column - 1) else { return nil }
        let head = MappingKey(location: first, textColumn: firstKey.textStart + 1, length: firstKey.length, text: firstKey.text)
        let prefix = firstLine[..<(first.column - 1)]
        let flowFirst = prefix.contains("{") || prefix.contains(",")
        for flow in flowFirst ? [true, false] : [false, true] {
            let keys = [head] + (flow ? flowKeys(after: first, in: source) : blockKeys(after: first, in: source))
            if keys.dropFirst().contains(where: { $0.text == key }) { return keys }
        }
        return nil
    }

    /// The later keys of a block mapping: at the first key's indentation, before any line
    /// indented less.
    private static func blockKeys(after first: SourceLocation, in source: SourceText) -> [MappingKey] {
        let indent = first.column - 1
        var keys: [MappingKey] = []
        for lineNumber in (first.line + 1)..<(source.lines.count + 1) {
            guard let line = source.line(lineNumber),
                  let content = line.firstIndex(where: { $0 != " " }), line[content] != "#" else { continue }
            if content < indent { break }
            if content == indent, let match = keyText(in: line, at: indent) {
                keys.append(MappingKey(location: SourceLocation(line: lineNumber, column: indent + 1),
                                       textColumn: match.textStart + 1, length: match.length, text: match.text))
            }
        }
        return keys
    }

    /// The later keys of a flow mapping: after each comma at the first key's depth of brackets,
    /// skipping quoted text and comments, until the mapping closes.
    private static func flowKeys(after first: SourceLocation, in source: SourceText) -> [MappingKey] {
        var keys: [MappingKey] = []
        var depth = 0
        var quote: Unicode.Scalar?
        var expectKey = false
        for lineNumber in first.line..<(source.lines.count + 1) {
            guard let line = source.line(lineNumber) else { break }
            var index = lineNumber == first.line ? first.column - 1 : 0
            while index < line.count {
                let scalar = line[index]
                if let open = quote {
                    if open == "\"", scalar == "\\" { index += 2; continue }
                    if scalar == open {
                        if open == "'", index + 1 < line.count, line[index + 1] == "'" { index += 2; continue }
                        quote = nil
                    }
                    index += 1
                    continue
                }
                if scalar == "#", index == 0 || line[index - 1] == " " || line[index - 1] == "\t" {
                    break   // a comment, to the end of the line
                }
                if expectKey, depth == 0, scalar != " ", scalar != "\t" {
                    expectKey = false
                    if let match = keyText(in: line, at: index) {
                        keys.append(MappingKey(location: SourceLocation(line: lineNumber, column: index + 1),
                                               textColumn: match.textStart + 1, length: match.length, text: match.text))
                    }
                }
                switch scalar {
                case "\"", "'": quote = scalar
                case "{", "[": depth += 1
                case "}", "]":
                    depth -= 1
                    if depth < 0 { return keys }
                case ",": expectKey = depth == 0
                default: break
                }
                index += 1
            }
        }
        return keys
    }

    /// The key at `start` of `line`, plain or quoted, followed by `:` and a space, a tab, a comma
    /// or the end of the line: where its text starts, its length in scalars, and its text (as
    /// written: escapes are not decoded, so a key written with escapes matches nothing).
    static func keyText(in line: [Unicode.Scalar], at start: Int) -> (textStart: Int, length: Int, text: String)? {
        guard start >= 0, start < line.count else { return nil }
        var textStart = start, textEnd: Int, after: Int
        let first = line[start]
        if first == "\"" || first == "'" {
            textStart = start + 1
            var index = textStart
            while index < line.count, line[index] != first {
                index += first == "\"" && line[index] == "\\" ? 2 : 1
            }
            guard index < line.count else { return nil }
            textEnd = index
            after = index + 1
            while after < line.count, line[after] == " " || line[after] == "\t" { after += 1 }
            guard after < line.count, line[after] == ":" else { return nil }
        } else {
            var index = start
            while index < line.count,
                  !(line[index] == ":" && (index + 1 == line.count || line[index + 1] == " " || line[index + 1] == "\t")) {
                index += 1
            }
            guard index < line.count else { return nil }
            after = index
            textEnd = index
            while textEnd > start, line[textEnd - 1] == " " || line[textEnd - 1] == "\t" { textEnd -= 1 }
        }
        guard after + 1 == line.count || line[after + 1] == " " || line[after + 1] == "\t" || line[after + 1] == ","
        else { return nil }
        guard textEnd > textStart else { return nil }
        return (textStart, textEnd - textStart, String(String.UnicodeScalarView(line[textStart..<textEnd])))
    }

    /// `length` scalars from Unicode's private use area (U+E000 to U+F8FE), different for each
    /// serial number; nil once a key this short has no names left.
    static func placeholder(length: Int, serial: Int) -> [Unicode.Scalar]? {
        let base = 0xF8FF - 0xE000
        var capacity = 1
        for _ in 0..<min(length, 4) { capacity *= base }
        guard length >= 1, serial < capacity else { return nil }
        var rest = serial
        return (0..<length).map { _ in
            let digit = rest % base
            rest /= base
            return Unicode.Scalar(0xE000 + UInt32(digit)) ?? "_"
        }
    }
}
