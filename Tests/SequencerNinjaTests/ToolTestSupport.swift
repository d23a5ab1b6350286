import Foundation
@testable import Sequencer
import Testing

@testable import SequencerNinja

/// What a tool (ours or ninja's) printed, and how it exited.
struct ToolRunResult: Equatable, CustomStringConvertible {
    var exitCode: Int32
    var standardOutput: String
    var standardError: String

    var description: String { "exit \(exitCode)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)" }
}

/// Collects what a tool writes to its two streams.
final class ToolOutputRecorder: Sendable {
    private let streams = Locked<(standardOutput: String, standardError: String)>(("", ""))

    var output: NinjaToolOutput {
        NinjaToolOutput(
            standardOutput: { text in self.streams.withLock { $0.standardOutput += text } },
            standardError: { text in self.streams.withLock { $0.standardError += text } })
    }

    func result(exitCode: Int32) -> ToolRunResult {
        streams.withLock { ToolRunResult(exitCode: exitCode, standardOutput: $0.standardOutput, standardError: $0.standardError) }
    }
}

struct ToolTestFailure: Error, CustomStringConvertible {
    var description: String
}

/// Running the tools in tests, on manifests in memory or in temporary directories.
enum ToolTesting {
    /// The options of a ninja command line that runs a tool (`compdb-targets`, which ninja 1.11
    /// does not know, as `-t compdb-targets ARGUMENTS`).
    static func toolOptions(_ commandLine: [String]) throws -> (NinjaOptions, String) {
        if case .options(let options) = NinjaOptions.parse(commandLine), let tool = options.tool { return (options, tool) }
        guard commandLine.count >= 2, commandLine[0] == "-t" else {
            throw ToolTestFailure(description: "not a tool command line: \(commandLine)")
        }
        var options = NinjaOptions()
        options.tool = commandLine[1]
        options.arguments = Array(commandLine.dropFirst(2))
        return (options, commandLine[1])
    }

    /// Runs our tool for a ninja command line (`["-n", "-t", "clean", "-g"]`) on `graph`, in
    /// `directory` (nil: a directory that must not be touched).
    static func run(_ commandLine: [String], graph: NinjaGraph, directory: String? = nil) throws -> ToolRunResult {
        let (options, tool) = try toolOptions(commandLine)
        let recorder = ToolOutputRecorder()
        if let code = NinjaToolRunner.runBeforeLoading(tool, options: options, output: recorder.output, directory: directory) {
            return recorder.result(exitCode: code)
        }
        let context = NinjaToolContext(
            graph: graph, options: options, output: recorder.output, directory: directory ?? "/nonexistent-tool-test-directory")
        return recorder.result(exitCode: NinjaToolRunner.run(tool, context: context))
    }

    /// Runs our tool on a manifest in memory (dyndep files from `files`).
    static func run(_ commandLine: [String], manifest: String, files: [String: String] = [:]) throws -> ToolRunResult {
        let graph = try ManifestParser.parse(manifest, files: InMemoryManifestFiles(files))
        let (options, tool) = try toolOptions(commandLine)
        let recorder = ToolOutputRecorder()
        var context = NinjaToolContext(
            graph: graph, options: options, output: recorder.output, directory: "/nonexistent-tool-test-directory")
        context.manifestFiles = InMemoryManifestFiles(files)
        return recorder.result(exitCode: NinjaToolRunner.run(tool, context: context))
    }

    /// Runs our tool on `directory/build.ninja`, as `ninja -C directory COMMAND-LINE` would.
    static func run(_ commandLine: [String], in directory: String) throws -> ToolRunResult {
        let (options, tool) = try toolOptions(commandLine)
        let recorder = ToolOutputRecorder()
        if let code = NinjaToolRunner.runBeforeLoading(tool, options: options, output: recorder.output, directory: directory) {
            return recorder.result(exitCode: code)
        }
        let graph: NinjaGraph
        do {
            graph = try ManifestParser.parse(file: options.manifest, files: DiskManifestFiles(directory: directory))
        } catch {
            return ToolRunResult(exitCode: 1, standardOutput: "", standardError: "ninja: error: \(error.message)\n")
        }
        let context = NinjaToolContext(graph: graph, options: options, output: recorder.output, directory: directory)
        return recorder.result(exitCode: NinjaToolRunner.run(tool, context: context))
    }

    /// A new empty directory, its path without symbolic links (as `getcwd` gives it).
    static func makeDirectory() throws -> String {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath().path
        let path = base + "/ninja-tool-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func removeDirectory(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes each file (path relative to `directory`), creating directories.
    static func write(_ files: [String: String], in directory: String) throws {
        for (path, content) in files {
            let url = URL(fileURLWithPath: directory + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
        }
    }

    /// Whether a file (or directory) is at `path` under `directory`.
    static func exists(_ path: String, in directory: String) -> Bool {
        FileManager.default.fileExists(atPath: directory + "/" + path)
    }

    /// The files under `directory`, relative, sorted.
    static func listing(of directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var paths: [String] = []
        while let path = enumerator?.nextObject() as? String { paths.append(path) }
        return paths.sorted()
    }

    /// The file's bytes as text.
    static func read(_ path: String, in directory: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path)), as: UTF8.self)
    }

    /// Writes a `.ninja_deps` at `path` with these deps lists, recorded in order.
    static func writeDepsLog(_ records: [(output: String, mtime: Int64, inputs: [String])], at path: String) throws {
        var log = NinjaDepsLog()
        var bytes = NinjaDepsLog.header
        for record in records { bytes += try log.record(output: record.output, mtime: record.mtime, inputs: record.inputs) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Sets a file's modification time (seconds since the epoch).
    static func setModificationTime(_ path: String, seconds: Int) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: TimeInterval(seconds))], ofItemAtPath: path)
    }
}
