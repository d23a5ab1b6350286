import Foundation
import SequencerJournal
import SequencerWorkflowFile

/// Workflow files for `run`, read from a compiled copy when the file has not changed: a no-op
/// run of a large file need not parse its YAML again.
///
/// The copy is `.sequencer/compiled/NAME.bin` beside the file (NAME from the file's absolute
/// path): the SHA-256 of the file's bytes, then ``WorkflowFile/compiled()``. It is used only
/// when the hash matches the file as it is now; otherwise, or when it is damaged or of another
/// format, the file is parsed (with every error reported as usual) and the copy rewritten.
enum CompiledWorkflow {
    static func load(_ path: String) throws -> WorkflowFile {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return try loadOrExit(path)  // reports why it cannot be read
        }
        let hash = Array(FileHasher.digest(of: data).utf8)
        let copy = copyPath(for: path)
        if let cached = FileManager.default.contents(atPath: copy), cached.count > hash.count,
           Array(cached.prefix(hash.count)) == hash,
           let file = WorkflowFile(compiled: Array(cached.dropFirst(hash.count)), path: path) {
            return file
        }
        let file: WorkflowFile
        do {
            file = try WorkflowFile.parse(text, path: path)
        } catch {
            return try loadOrExit(path)  // reports every error
        }
        save(Data(hash + file.compiled()), to: copy)
        return file
    }

    private static func copyPath(for path: String) -> String {
        let absolute = absolutePath(path)
        let directory = (absolute as NSString).deletingLastPathComponent
        return directory + "/.sequencer/compiled/" + FileHasher.quickDigest(of: absolute) + ".bin"
    }

    /// Writes the copy atomically; a copy that cannot be written is only a missed shortcut.
    private static func save(_ data: Data, to path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            log.debug("cannot keep a compiled copy of the workflow file", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
