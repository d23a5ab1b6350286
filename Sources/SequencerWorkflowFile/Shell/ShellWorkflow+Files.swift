import Foundation

extension ShellWorkflow {
    /// Creates the missing parent directories of a job's declared outputs (like `mkdir -p`),
    /// as ninja does, so a job need not make its own `obj/` first.
    /// - Parameters:
    ///   - outputs: the job's outputs, relative to `directory` or absolute.
    ///   - directory: the job's working directory.
    /// - Throws: ``OutputDirectoryError`` naming the directory that cannot be created.
    public static func makeParentDirectories(of outputs: [String], in directory: String) throws {
        var made: Set<String> = []
        for output in outputs {
            let path = output.hasPrefix("/") ? output : directory + "/" + output
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, made.insert(parent).inserted else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue { continue }
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
                throw OutputDirectoryError(
                    description: "cannot create the directory \(parent) for the output '\(output)': \(reason)")
            }
        }
    }

    /// Deletes an attempt's output file when the process printed nothing: a run of silent jobs
    /// leaves no empty files behind.
    static func removeIfEmpty(_ outputPath: String) {
        var status = stat()
        if stat(outputPath, &status) == 0, status.st_size == 0, (status.st_mode & S_IFMT) == S_IFREG {
            unlink(outputPath)
        }
    }
}

/// A declared output's directory could not be created, so the job's command did not run.
struct OutputDirectoryError: Error, Sendable, CustomStringConvertible {
    /// `cannot create the directory /src/obj for the output 'obj/a.o': File exists`
    let description: String
}
