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
            text = try Self.text(at: path)
        } catch {
            throw WorkflowFileError(diagnostics: [error.diagnostic(in: path)])
        }
        return try parse(text, path: path)
    }

    /// Why a file's text cannot be read.
    enum TextFailure: Error {
        /// It is missing, a directory, or cannot be read: what to tell.
        case problem(String)
        /// It is not UTF-8: the first bad byte, and where.
        case notUTF8(UInt8, SourceLocation)

        func diagnostic(in path: String) -> Diagnostic {
            switch self {
            case .problem(let message):
                return Diagnostic(file: path, location: SourceLocation(line: 1, column: 1), message: message)
            case .notUTF8(let value, let location):
                return Diagnostic(
                    file: path, location: location,
                    message: "the file is not UTF-8 text: byte 0x\(String(value, radix: 16, uppercase: true)) "
                        + "here cannot start or continue a character; save the file as UTF-8")
            }
        }
    }

    /// The text of the file at `path`.
    static func text(at path: String) throws(TextFailure) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .problem("no such file")
        }
        guard !isDirectory.boolValue else { throw .problem("this is a directory, not a workflow file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .problem("cannot read the file (check its permissions)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            let invalid = invalidByte(in: data)
            throw .notUTF8(invalid?.value ?? 0, invalid?.location ?? SourceLocation(line: 1, column: 1))
        }
        return text
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
        var parts = Parts()
        parts.read(text, path: path, chain: [])
        var decoder = Decoder(path: path, directory: directory.isEmpty ? "." : directory, parts: parts.parts)
        let file = decoder.decode()
        let diagnostics = parts.unreadable + decoder.diagnostics
        guard diagnostics.isEmpty else { throw WorkflowFileError(diagnostics: diagnostics) }
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
    /// Yams stops at a mapping with repeated keys and reports where the first of them first
    /// appears; to go on and report every problem, the mapping's repeats are found in the text and
    /// renamed to words no file contains (as many Unicode scalars, so every position stays), and
    /// the text is composed again (once per mapping with repeats, see
    /// ``renameRepeats(of:from:in:composed:marker:)``). The decoder reports the renamed keys
    /// where they are.
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
        var passes = 0
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
                // Yams names every repeated key of the mapping, in its sort order, and marks where
                // the first of them first appears.
                let first = SourceLocation(line: context.mark.line, column: context.mark.column)
                passes += 1
                guard passes <= 1000, renameRepeats(of: duplicates, from: first, in: &source, composed: &composed, marker: marker)
                else {
                    let key = duplicates.first ?? ""
                    let message = key == "<uncovertable>" ? "a key appears twice in this mapping"
                        : "duplicate key '\(restoringAliasMarker(marker, in: key))' in this mapping"
                    composed.problems.append((first, message + "; remove or rename one of them"))
                    return composed
                }
            } catch let error as YamlError {
                composed.problems.append(syntaxProblem(error, in: text, source: source, original: original))
                return composed
            } catch {
                composed.problems.append((SourceLocation(line: 1, column: 1), "cannot read the file as YAML: \(error)"))
                return composed
            }
        }
    }
}
