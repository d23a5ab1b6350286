import Foundation
import Yams

extension WorkflowFile {
    /// Reads and checks a workflow file.
    ///
    /// ```swift
    /// do {
    ///     let file = try WorkflowFile.load(path: "sequencer.yml")
    /// } catch {
    ///     print(error)   // sequencer.yml:7:14: error: unknown key 'neds' in job 'b'; did you mean 'needs'?
    /// }
    /// ```
    ///
    /// - Parameter path: the file, as it should appear in diagnostics.
    /// - Returns: the file's jobs, lanes and options.
    /// - Throws: ``WorkflowFileError`` with every problem found, in file order: YAML syntax,
    ///   unknown keys, wrong types, bad durations, unknown needs and lanes, cycles, duplicate
    ///   jobs, an unsupported version, or a file that cannot be read.
    public static func load(path: String) throws(WorkflowFileError) -> WorkflowFile {
        func failure(_ message: String, at location: SourceLocation = SourceLocation(line: 1, column: 1)) -> WorkflowFileError {
            WorkflowFileError(diagnostics: [Diagnostic(file: path, location: location, message: message)])
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw failure("no such file")
        }
        guard !isDirectory.boolValue else { throw failure("this is a directory, not a workflow file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw failure("cannot read the file (check its permissions)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            let invalid = invalidByte(in: data)
            throw failure("the file is not UTF-8 text: byte 0x\(String(invalid?.value ?? 0, radix: 16, uppercase: true)) "
                          + "here cannot start or continue a character; save the file as UTF-8",
                          at: invalid?.location ?? SourceLocation(line: 1, column: 1))
        }
        return try parse(text, path: path)
    }

    /// The first byte that is not valid UTF-8, and where it is (counting lines and columns as
    /// YAML does, up to it).
    static func invalidByte(in data: Data) -> (value: UInt8, location: SourceLocation)? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        var valid = String.UnicodeScalarView()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                valid.append(scalar)
                offset += encoded.count
            case .error:
                let text = String(valid)
                return (data[data.startIndex + offset], SourceText.location(ofUTF8Offset: text.utf8.count, in: text))
            case .emptyInput:
                return nil
            }
        }
    }

    /// Checks a workflow file's text.
    ///
    /// - Parameters:
    ///   - text: the YAML.
    ///   - path: the file's path: it names the file in diagnostics, and its directory is where
    ///     jobs run.
    /// - Returns: the file's jobs, lanes and options.
    /// - Throws: ``WorkflowFileError`` with every problem found, in file order.
    public static func parse(_ text: String, path: String) throws(WorkflowFileError) -> WorkflowFile {
        let directory = (path as NSString).deletingLastPathComponent
        let source = SourceText(text)
        let composed = compose(source)
        var reader = NodeReader(file: path, source: source, repeatedKeys: composed.repeatedKeys,
                                brokenAliases: composed.brokenAliases)
        for problem in composed.problems {
            reader.error(problem.message, at: problem.location)
        }
        guard let root = composed.root else {
            if composed.problems.isEmpty {
                reader.error("the file is empty; a workflow needs 'jobs'", at: SourceLocation(line: 1, column: 1))
            }
            throw WorkflowFileError(diagnostics: reader.diagnostics)
        }
        let file = decode(root, reader: &reader, path: path, directory: directory.isEmpty ? "." : directory)
        guard reader.diagnostics.isEmpty else { throw WorkflowFileError(diagnostics: reader.diagnostics) }
        return file
    }

    /// A file's YAML tree, the keys renamed because they repeat, and the problems found on the way.
    struct Composed {
        /// The document; nil if the file is empty or cannot be read as YAML.
        var root: Node?
        /// The original text of every renamed repeated key, by its position.
        var repeatedKeys: [SourceLocation: String] = [:]
        var problems: [(location: SourceLocation, message: String)] = []
        /// Aliases that could not be resolved (and were reported): their values are passed over.
        var brokenAliases: Set<SourceLocation> = []
    }

    /// The YAML tree of a file.
    ///
    /// Yams stops at a mapping's first repeated key and reports where the key first appeared; to
    /// go on and report every problem, the repeat is found in the text and renamed to a word no
    /// file contains (as many Unicode scalars, so every position stays), and the text is
    /// composed again. The decoder reports the renamed keys where they are.
    ///
    /// Aliases are not left to Yams, which expands them in place with the anchor's positions and
    /// hashes keys whole (an alias of nested aliases used as a key takes exponential time): each
    /// `*` that could start an alias is first replaced by a marker, so Yams reads every alias as
    /// a plain word at its own position, and ``resolveAliases(_:marker:budget:)`` puts the
    /// anchored values back.
    static func compose(_ original: SourceText) -> Composed {
        var source = original
        let marker = aliasMarker(avoiding: original)
        let replacedAliases = neutralizeAliases(in: &source, marker: marker)
        var composed = Composed()
        var utf8Count = 0
        while true {
            let text = source.text
            utf8Count = text.utf8.count
            do {
                let parser = try Parser(yaml: text, resolver: .basic, encoding: .utf8)
                guard let root = try parser.singleRoot() else { return composed }
                guard replacedAliases else {
                    composed.root = root
                    return composed
                }
                // Anchors are held weakly by nodes and strongly by the parser, which must live on.
                let resolved = withExtendedLifetime(parser) {
                    resolveAliases(root, marker: marker, budget: 1_000_000 + 4 * utf8Count)
                }
                composed.root = resolved.root
                composed.problems += resolved.problems
                composed.brokenAliases = resolved.broken
                return composed
            } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
                // Yams names the duplicated keys in the order of its sort; the mark is the first's.
                let key = duplicates.first ?? ""
                let shown = restoringAliasMarker(marker, in: key)
                let first = SourceLocation(line: context.mark.line, column: context.mark.column)
                guard composed.repeatedKeys.count < 1000,
                      let repeated = findRepeat(of: key, after: first, in: source) else {
                    let message = key == "<uncovertable>"
                        ? "a key appears twice in this mapping"
                        : "duplicate key '\(shown)' in this mapping"
                    composed.problems.append((first, message + "; remove or rename one of them"))
                    return composed
                }
                let filler = placeholder(length: repeated.length, serial: composed.repeatedKeys.count)
                source.replace(line: repeated.location.line, column: repeated.textColumn,
                               count: repeated.length, with: filler)
                composed.repeatedKeys[repeated.location] = shown
            } catch let error as YamlError {
                composed.problems.append(syntaxProblem(error, in: text, source: source, original: original))
                return composed
            } catch {
                composed.problems.append((SourceLocation(line: 1, column: 1), "cannot read the file as YAML: \(error)"))
                return composed
            }
        }
    }

    /// Where `key` appears again in the mapping whose key at `first` it repeats: a later line
    /// of a block mapping, with the key at the same indentation; or later in a flow mapping
    /// (`{a: 1, a: 2}`), at the same depth of braces. Keys compare as Swift strings do (a
    /// precomposed `é` is the same key as `e` and a combining accent), as Yams compares them.
    ///
    /// - Returns: the position of the repeated key (of its opening quote if it is quoted), the
    ///   column its text starts at, and the length of its text, in Unicode scalars; nil if it
    ///   cannot be found.
    static func findRepeat(of key: String, after first: SourceLocation, in source: SourceText)
        -> (location: SourceLocation, textColumn: Int, length: Int)?
    {
        guard !key.isEmpty, let firstLine = source.line(first.line), first.column >= 1,
              first.column <= firstLine.count else { return nil }
        let prefix = firstLine[..<(first.column - 1)]
        if prefix.contains("{") || prefix.contains(",") {
            return findRepeatInFlow(of: key, after: first, in: source)
                ?? findRepeatInBlock(of: key, after: first, in: source)
        }
        return findRepeatInBlock(of: key, after: first, in: source)
            ?? findRepeatInFlow(of: key, after: first, in: source)
    }

    /// A later key of the same block mapping: at the first key's indentation, before any line
    /// indented less.
    private static func findRepeatInBlock(of key: String, after first: SourceLocation, in source: SourceText)
        -> (location: SourceLocation, textColumn: Int, length: Int)?
    {
        let indent = first.column - 1
        for lineNumber in (first.line + 1)..<(source.lines.count + 1) {
            guard let line = source.line(lineNumber),
                  let content = line.firstIndex(where: { $0 != " " }), line[content] != "#" else { continue }
            if content < indent { return nil }
            if content == indent, let match = keyMatch(key, in: line, at: indent) {
                return (SourceLocation(line: lineNumber, column: indent + 1), match.textStart + 1, match.length)
            }
        }
        return nil
    }

    /// A later key of the same flow mapping: after a comma at the first key's depth of brackets,
    /// skipping quoted text and comments; nil once the mapping closes.
    private static func findRepeatInFlow(of key: String, after first: SourceLocation, in source: SourceText)
        -> (location: SourceLocation, textColumn: Int, length: Int)?
    {
        var depth = 0
        var quote: Unicode.Scalar?
        var expectKey = false
        for lineNumber in first.line..<(source.lines.count + 1) {
            guard let line = source.line(lineNumber) else { return nil }
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
                    if let match = keyMatch(key, in: line, at: index) {
                        return (SourceLocation(line: lineNumber, column: index + 1), match.textStart + 1, match.length)
                    }
                }
                switch scalar {
                case "\"", "'": quote = scalar
                case "{", "[": depth += 1
                case "}", "]":
                    depth -= 1
                    if depth < 0 { return nil }
                case ",": expectKey = depth == 0
                default: break
                }
                index += 1
            }
        }
        return nil
    }

    /// Whether `line` has the key `key` at `start` (plain or quoted, then `:` and a space, a tab,
    /// or the end of the line): where its text starts and its length, in scalars.
    private static func keyMatch(_ key: String, in line: [Unicode.Scalar], at start: Int) -> (textStart: Int, length: Int)? {
        guard start < line.count else { return nil }
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
        guard after + 1 == line.count || line[after + 1] == " " || line[after + 1] == "\t" || line[after + 1] == "," else {
            return nil
        }
        guard textEnd > textStart else { return nil }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: line[textStart..<textEnd])
        return String(text) == key ? (textStart, textEnd - textStart) : nil
    }

    /// `length` scalars from Unicode's private use area, different for each serial number.
    private static func placeholder(length: Int, serial: Int) -> [Unicode.Scalar] {
        var rest = serial
        return (0..<length).map { _ in
            let digit = rest % 6000
            rest /= 6000
            return Unicode.Scalar(0xE000 + UInt32(digit)) ?? "_"
        }
    }
}
