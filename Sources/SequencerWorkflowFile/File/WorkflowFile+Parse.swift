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
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path)
                ? "cannot read the file (is it UTF-8 text?)" : "no such file"
            throw WorkflowFileError(diagnostics: [
                Diagnostic(file: path, location: SourceLocation(line: 1, column: 1), message: reason)
            ])
        }
        return try parse(text, path: path)
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
        let composed = compose(text)
        var reader = NodeReader(file: path, repeatedKeys: composed.repeatedKeys)
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

    /// The YAML tree of a file. Yams stops at a mapping's first repeated key and reports where
    /// the key first appeared; to go on and report every problem, the repeat is found in the text
    /// and renamed to a word no file contains (as many characters, so every position stays),
    /// and the text is composed again. The decoder reports the renamed keys where they are.
    static func compose(_ text: String) -> (root: Node?, repeatedKeys: [SourceLocation: String], problems: [(location: SourceLocation, message: String)]) {
        var text = text
        var repeatedKeys: [SourceLocation: String] = [:]
        var lines: [[Character]]?
        while true {
            do {
                let root = try Parser(yaml: text, resolver: .basic).singleRoot()
                return (root, repeatedKeys, [])
            } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
                let key = duplicates.sorted().first ?? ""
                let first = SourceLocation(line: context.mark.line, column: context.mark.column)
                let allLines = lines ?? text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
                    .map(Array.init)
                guard repeatedKeys.count < 1000,
                      let repeated = findRepeat(of: key, after: first, in: allLines) else {
                    return (nil, repeatedKeys, [(first, "duplicate key '\(key)' in this mapping")])
                }
                var changed = allLines
                let filler = placeholder(length: repeated.length, serial: repeatedKeys.count)
                changed[repeated.location.line - 1].replaceSubrange(
                    repeated.textStart..<(repeated.textStart + repeated.length), with: filler)
                repeatedKeys[repeated.location] = key
                lines = changed
                text = changed.map { String($0) }.joined(separator: "\n")
            } catch let error as YamlError {
                return (nil, repeatedKeys, [syntaxProblem(error, in: text)])
            } catch {
                return (nil, repeatedKeys, [(SourceLocation(line: 1, column: 1), "\(error)")])
            }
        }
    }

    /// Where `key` appears again in the mapping whose key at `first` it repeats: a later line
    /// of a block mapping, with the key at the same indentation; or later on the same line in a
    /// flow mapping (`{a: 1, a: 2}`).
    static func findRepeat(of key: String, after first: SourceLocation, in lines: [[Character]])
        -> (location: SourceLocation, textStart: Int, length: Int)?
    {
        let keyCharacters = Array(key)
        guard first.line >= 1, first.line <= lines.count, !keyCharacters.isEmpty else { return nil }
        let indent = first.column - 1

        func keyMatch(_ line: [Character], at start: Int) -> (textStart: Int, length: Int)? {
            for quote in [nil, Character("\""), Character("'")] {
                let textStart = quote == nil ? start : start + 1
                let end = textStart + keyCharacters.count
                guard end <= line.count, Array(line[textStart..<end]) == keyCharacters else { continue }
                var after = end
                if let quote {
                    guard after < line.count, line[after] == quote else { continue }
                    after += 1
                }
                while after < line.count, line[after] == " " { after += 1 }
                if after < line.count, line[after] == ":",
                   after + 1 == line.count || line[after + 1] == " " || line[after + 1] == "\t" {
                    return (textStart, keyCharacters.count)
                }
            }
            return nil
        }

        // Flow mapping: later keys on the same line (or, rarely, the lines after).
        let firstLine = lines[first.line - 1]
        if firstLine.prefix(indent).contains("{") || firstLine.prefix(indent).contains(",") {
            for lineIndex in (first.line - 1)..<lines.count {
                let line = lines[lineIndex]
                let from = lineIndex == first.line - 1 ? indent + 1 : 0
                guard from < line.count else { continue }
                for start in from..<line.count where start == 0 || " {,".contains(line[start - 1]) {
                    if let match = keyMatch(line, at: start) {
                        return (SourceLocation(line: lineIndex + 1, column: start + 1), match.textStart, match.length)
                    }
                }
            }
            return nil
        }

        for lineIndex in first.line..<lines.count {
            let line = lines[lineIndex]
            guard let content = line.firstIndex(where: { $0 != " " }), line[content] != "#" else { continue }
            if content < indent { return nil }
            if content == indent, let match = keyMatch(line, at: indent) {
                return (SourceLocation(line: lineIndex + 1, column: indent + 1), match.textStart, match.length)
            }
        }
        return nil
    }

    /// `length` characters from Unicode's private use area, different for each serial number.
    private static func placeholder(length: Int, serial: Int) -> [Character] {
        var rest = serial
        return (0..<length).map { _ in
            let digit = rest % 6000
            rest /= 6000
            return Character(Unicode.Scalar(0xE000 + UInt32(digit)) ?? "_")
        }
    }

    private static func syntaxProblem(_ error: YamlError, in text: String) -> (location: SourceLocation, message: String) {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            let location = SourceLocation(line: mark.line, column: mark.column)
            guard let context else { return (location, "YAML: \(problem)") }
            return (location, "YAML: \(problem) \(context.text) (at line \(context.mark.line), column \(context.mark.column))")
        case let .reader(problem, offset, _, _):
            return (location(ofUTF8Offset: offset ?? 0, in: text), "YAML: \(problem)")
        default:
            return (SourceLocation(line: 1, column: 1), "YAML: \(error)")
        }
    }

    private static func location(ofUTF8Offset offset: Int, in text: String) -> SourceLocation {
        var line = 1, column = 1, consumed = 0
        for character in text {
            consumed += character.utf8.count
            if consumed > offset { break }
            if character == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        return SourceLocation(line: line, column: column)
    }
}
