import Foundation

/// The workflow file and the targets a command line names, read as make and ninja read theirs:
/// `sequencer run zstd` runs the job (or the job whose output is `zstd`) of `./sequencer.yml`.
///
/// ```swift
/// CommandLineTargets(file: nil, words: ["hello.txt"])             // sequencer.yml, [hello.txt]
/// CommandLineTargets(file: nil, words: ["build.yml", "link"])     // build.yml, [link] (when build.yml exists)
/// CommandLineTargets(file: "other.yml", words: ["build.yml"])     // other.yml, [build.yml]
/// ```
///
/// The rule: a file named with `-f FILE` (or `--file FILE`) is the workflow file, and every
/// word is a target. Without one, the first word is the workflow file only when it is unambiguous:
/// it ends in `.yml` or `.yaml` and is an existing file (not a directory); otherwise the file is
/// ``defaultPath`` and every word is a target. A first word ending in `.yml` or `.yaml` that does
/// not exist is the file when ``defaultPath`` does not exist either, so that its "no such file"
/// names it.
public struct CommandLineTargets: Sendable, Equatable {
    /// The workflow file commands read when no file is named: `sequencer.yml` in the current directory.
    public static let defaultPath = "sequencer.yml"

    /// The workflow file to read.
    public var path: String
    /// The jobs, outputs or patterns named (empty: every job).
    public var targets: [String]
    /// Whether ``path`` is ``defaultPath`` because the command line named no file.
    public var isDefault: Bool
    /// The first target when it was taken as a target although it looks like a workflow file
    /// (it ends in `.yml` or `.yaml` but is no existing file): what an error about it should
    /// mention.
    public var missingFile: String?

    /// Reads a command line's words.
    ///
    /// - Parameters:
    ///   - file: the file named with `-f`, if any.
    ///   - words: the positional words, in order.
    ///   - isFile: whether a path is an existing file that is not a directory (the file
    ///     system's answer by default).
    public init(file: String?, words: [String], isFile: (String) -> Bool = CommandLineTargets.isFile) {
        missingFile = nil
        if let file {
            (path, targets, isDefault) = (file, words, false)
        } else if let first = words.first, Self.looksLikeWorkflowFile(first),
                  isFile(first) || !isFile(Self.defaultPath) {
            (path, targets, isDefault) = (first, Array(words.dropFirst()), false)
        } else {
            (path, targets, isDefault) = (Self.defaultPath, words, true)
            if let first = words.first, Self.looksLikeWorkflowFile(first) { missingFile = first }
        }
    }

    /// Whether a word names a workflow file by its name alone: it ends in `.yml` or `.yaml`.
    public static func looksLikeWorkflowFile(_ word: String) -> Bool {
        word.hasSuffix(".yml") || word.hasSuffix(".yaml")
    }

    /// Whether `path` is an existing file that is not a directory (a symbolic link is followed).
    public static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
