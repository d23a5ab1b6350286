import Foundation
import Testing
@testable import SequencerWorkflowFile

/// The workflow files under `Fixtures/`, and the diagnostics each invalid one expects.
///
/// An invalid fixture starts with comment lines that say what it must produce, one line per
/// error, in file order, each optionally followed by the error's notes:
///
/// ```yaml
/// # A typo in a key.
/// # expect: 7:14 unknown key 'neds'
/// # note: 4:5 'a' needs 'b' here
/// ```
///
/// The position is LINE:COLUMN (columns count Unicode scalars, as YAML does) and the rest is a
/// part of the message. The errors must match exactly in count, order, position and text;
/// the notes of an error are checked (also exactly) when the fixture lists any for it.
enum Fixtures {
    /// The folder holding `invalid/` and `valid/`.
    static let root: URL = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("the test bundle has no Fixtures folder")
        }
        return url
    }()

    /// The `.yml` files of a folder, by name.
    static func names(in folder: String) -> [String] {
        let directory = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".yml") }.sorted()
    }

    static func path(_ folder: String, _ name: String) -> String {
        root.appendingPathComponent(folder).appendingPathComponent(name).path
    }

    /// Fixtures that cannot hold a header: the empty file.
    static let headerless: [String: [Expected]] = [
        "43-empty-file.yml": [Expected(line: 1, column: 1, text: "the file is empty")],
    ]

    /// An expected diagnostic: where, and a part of its message.
    struct Expected: Equatable, Sendable, CustomStringConvertible {
        var line: Int
        var column: Int
        var text: String
        var notes: [Expected] = []

        var description: String { "\(line):\(column) \(text)" + notes.map { "\n    note: \($0)" }.joined() }

        /// Whether a diagnostic is this one (its notes too, if this lists any).
        func matches(_ diagnostic: Diagnostic) -> Bool {
            guard diagnostic.location == SourceLocation(line: line, column: column),
                  diagnostic.message.contains(text) else { return false }
            if notes.isEmpty { return true }
            return notes.count == diagnostic.notes.count && zip(notes, diagnostic.notes).allSatisfy { $0.matches($1) }
        }
    }

    /// The `# expect:` and `# note:` lines at the top of a file (its leading comment lines;
    /// a byte order mark and `\r` line ends are allowed).
    static func expectations(inFileAt path: String) throws -> [Expected] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var result: [Expected] = []
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("#") else { break }
            let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
            for (prefix, isNote) in [("expect:", false), ("note:", true)] where body.hasPrefix(prefix) {
                let rest = body.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
                let parts = rest.split(separator: " ", maxSplits: 1)
                let position = parts.first?.split(separator: ":") ?? []
                guard position.count == 2, let lineNumber = Int(position[0]), let column = Int(position[1]),
                      parts.count == 2 else {
                    throw HeaderError(line: String(line))
                }
                let expected = Expected(line: lineNumber, column: column, text: String(parts[1]))
                if isNote {
                    guard !result.isEmpty else { throw HeaderError(line: String(line)) }
                    result[result.count - 1].notes.append(expected)
                } else {
                    result.append(expected)
                }
            }
        }
        return result
    }

    struct HeaderError: Error, CustomStringConvertible {
        var line: String
        var description: String { "malformed expectation: \(line)" }
    }

    /// The diagnostics of a file, or none if it parses.
    static func diagnostics(ofFileAt path: String) -> [Diagnostic] {
        do {
            _ = try WorkflowFile.load(path: path)
            return []
        } catch {
            return error.diagnostics
        }
    }
}
