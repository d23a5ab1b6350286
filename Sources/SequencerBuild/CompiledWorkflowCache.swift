import Foundation
import SequencerJournal
public import SequencerWorkflowFile

/// Workflow files read from a compiled copy when the file has not changed: a no-op run of a
/// large file need not parse its YAML again.
///
/// The copy is `.sequencer/compiled/NAME.bin` beside the file (NAME from the file's absolute
/// path): the SHA-256 of the file's bytes, the SHA-256 over the files it includes, then
/// ``WorkflowFile/compiled()``. It is used only when both hashes match the files as they are
/// now and the files its templates range over are the same
/// (``WorkflowFile/listingsAreCurrent()``); otherwise, or when it is damaged or of another
/// format, the file is parsed (with every error reported as usual) and the copy rewritten.
///
/// ```swift
/// let loaded = try CompiledWorkflowCache.load(path: "sequencer.yml")
/// print(loaded.fromCopy)   // true when the YAML was not parsed
/// ```
public enum CompiledWorkflowCache {
    /// A loaded workflow file, and how it was loaded.
    public struct Loaded: Sendable {
        /// The file.
        public let file: WorkflowFile
        /// Whether it came from the compiled copy (the YAML was not parsed).
        public let fromCopy: Bool
        /// Why a new copy could not be written, if it could not: only a missed shortcut.
        public let saveError: (any Error)?
        /// The SHA-256 of the bytes the file was loaded from, and of each file it includes as it
        /// was read (in the order of its `includes`): nil when they are not known.
        public var fileDigest: String?
        public var includeDigests: [String]?
    }

    /// Reads the workflow file at `path`, from its compiled copy when that matches the file.
    ///
    /// - Parameter path: The file, as it should appear in diagnostics.
    /// - Returns: The file, whether it came from the copy, and why a new copy could not be saved.
    /// - Throws: ``WorkflowFileError``, as ``WorkflowFile/load(path:)`` does, when the file cannot
    ///   be read or has problems.
    public static func load(path: String) throws(WorkflowFileError) -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else {
            // Reports why it cannot be read.
            return Loaded(file: try WorkflowFile.load(path: path), fromCopy: false, saveError: nil)
        }
        let digest = FileHasher.digest(of: data)
        let hash = Array(digest.utf8)
        let copy = copyPath(for: path)
        let header = hash.count * 2
        if let cached = FileManager.default.contents(atPath: copy), cached.count > header,
           cached.prefix(hash.count).elementsEqual(hash),
           let file = WorkflowFile(compiled: Array(cached.dropFirst(header)), path: path) {
            let includes = digests(of: file.includes)
            if cached.dropFirst(hash.count).prefix(hash.count).elementsEqual(combined(file.includes, includes).utf8),
               file.listingsAreCurrent() {
                return Loaded(file: file, fromCopy: true, saveError: nil, fileDigest: digest, includeDigests: includes)
            }
        }
        // The text is decoded (and checked to be UTF-8) only when it is parsed.
        guard let text = String(data: data, encoding: .utf8) else {
            return Loaded(file: try WorkflowFile.load(path: path), fromCopy: false, saveError: nil)
        }
        let file = try WorkflowFile.parse(text, path: path)
        // Of the texts the parser read: a file edited since is then not taken for what was read.
        let includes = file.includedTexts.map { FileHasher.digest(of: $0) }
        return Loaded(
            file: file, fromCopy: false,
            saveError: save(Data(hash + Array(combined(file.includes, includes).utf8) + file.compiled()), to: copy),
            fileDigest: digest, includeDigests: includes)
    }

    /// The SHA-256 of each file at `paths` as it is now; `unreadable` for one that cannot be
    /// read (a copy whose hash was taken when it could is then not used).
    public static func digests(of paths: [String]) -> [String] {
        paths.map { FileManager.default.contents(atPath: $0).map(FileHasher.digest(of:)) ?? "unreadable" }
    }

    /// The SHA-256 over the included files' paths and digests, as the copy's header keeps it.
    private static func combined(_ paths: [String], _ digests: [String]) -> String {
        FileHasher.digest(of: Data(zip(paths, digests).map { $0 + "\0" + $1 }.joined(separator: "\n").utf8))
    }

    /// Where the compiled copy of the workflow file at `path` is kept.
    ///
    /// - Parameter path: The workflow file, absolute or relative to the working directory.
    /// - Returns: `DIRECTORY/.sequencer/compiled/NAME.bin`, DIRECTORY being the file's.
    public static func copyPath(for path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let directory = (absolute as NSString).deletingLastPathComponent
        return directory + "/.sequencer/compiled/" + FileHasher.quickDigest(of: absolute) + ".bin"
    }

    /// Writes the copy atomically.
    ///
    /// - Returns: Why it could not be written, or `nil`.
    private static func save(_ data: Data, to path: String) -> (any Error)? {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            return error
        }
    }
}
