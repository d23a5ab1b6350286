import Foundation
import Yams

/// Includes: `include: [common.yml]` reads other files into this one.
///
/// An included file has the keys of a workflow file (`vars`, `env`, `lanes`, `jobs`, and
/// `include` again), none of them required. Its jobs are jobs of the workflow, run in the
/// workflow file's directory (paths in it start there, as in ninja). Included files are read
/// first, in order, then the file itself: a `vars` or `env` entry of the file replaces one of
/// the same name from a file it includes. A file included twice is read once; a file that
/// includes itself, directly or not, is an error.
extension WorkflowFile {
    /// A file of the workflow: the workflow file or one it includes, composed, with its
    /// top-level entries (keys checked).
    struct Part {
        var path: String
        /// The file's text, as read.
        var text: String
        var reader: NodeReader
        /// Nil when the file is empty or not a mapping (which is reported).
        var entries: [NodeReader.Entry]?
    }

    /// The files of a workflow, each read once, included files before the file including them.
    struct Parts {
        var parts: [Part] = []
        /// Diagnostics of included files that could not be read as text.
        var unreadable: [Diagnostic] = []
        private var seen: Set<String> = []

        /// Reads the file at `path` (its text is `text`) and, first, the files it includes.
        /// - Parameter chain: the files including this one, innermost last, as absolute paths.
        mutating func read(_ text: String, path: String, chain: [String]) {
            let source = SourceText(text)
            let composed = WorkflowFile.compose(source)
            var reader = NodeReader(file: path, source: source, repeatedKeys: composed.repeatedKeys,
                                    brokenAliases: composed.brokenAliases)
            for problem in composed.problems { reader.error(problem.message, at: problem.location) }
            guard let root = composed.root else {
                if chain.isEmpty, composed.problems.isEmpty {
                    reader.error("the file is empty; a workflow needs 'jobs'", at: SourceLocation(line: 1, column: 1))
                }
                parts.append(Part(path: path, text: text, reader: reader, entries: nil))
                return
            }
            let entries = reader.entries(of: root, chain.isEmpty ? "the workflow file" : "an included file")
                .map { reader.checkKeys($0, allowed: WorkflowFile.topLevelKeys, in: "the workflow file") }
            let absolute = Self.absolute(path)
            seen.insert(absolute)
            for entry in entries ?? [] where entry.key == "include" {
                for (name, node) in reader.strings(entry.value, "'include'") ?? [] {
                    include(name, at: reader.location(of: node), from: path, chain: chain + [absolute], reader: &reader)
                }
            }
            parts.append(Part(path: path, text: text, reader: reader, entries: entries))
        }

        private mutating func include(
            _ name: String, at location: SourceLocation, from path: String, chain: [String], reader: inout NodeReader
        ) {
            let directory = (path as NSString).deletingLastPathComponent
            let included = name.hasPrefix("/") || directory.isEmpty ? name : directory + "/" + name
            let absolute = Self.absolute(included)
            if let start = chain.firstIndex(of: absolute) {
                let cycle = (chain[start...] + [absolute]).map { ($0 as NSString).lastPathComponent }
                reader.error("include cycle: " + cycle.joined(separator: " -> "), at: location)
                return
            }
            guard !seen.contains(absolute) else { return }
            guard chain.count < 100 else {
                reader.error("includes nest more than 100 files deep here", at: location)
                return
            }
            do {
                read(try WorkflowFile.text(at: included), path: included, chain: chain)
            } catch {
                if case .problem(let message) = error {
                    reader.error("cannot include '\(name)': \(message)", at: location)
                } else {
                    unreadable.append(error.diagnostic(in: included))
                }
            }
        }

        private static func absolute(_ path: String) -> String {
            URL(fileURLWithPath: path).standardizedFileURL.path
        }
    }
}
