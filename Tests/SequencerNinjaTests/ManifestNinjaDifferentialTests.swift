import Foundation
import Testing
@testable import SequencerNinja

/// The ninja the differential tests compare with.
private let installedNinja = "/usr/bin/ninja"

/// The real ninja (1.11.1, at /usr/bin/ninja) against this reader: for each broken manifest,
/// `ninja -n` prints `ninja: error: ` (or `ninja: fatal: `) and a message, which must be ours;
/// for valid ones, `ninja -t commands` lists the commands ours evaluate. Skipped when ninja is
/// not installed.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: installedNinja)))
struct ManifestNinjaDifferentialTests {
    static let ninja = installedNinja

    /// Broken manifests beyond `ManifestErrorTests.cases` (whose messages name `input`).
    static let moreBrokenManifests: [BrokenManifest] = [
        .init(text: "ninja_required_version = 1.12\n", message: ""),
        .init(text: "ninja_required_version = 2\nbuild\n", message: ""),
        .init(text: "build \(Array(repeating: "a", count: 61).joined(separator: "/")): phony\n", message: ""),
        .init(text: "build ./\(Array(repeating: "b", count: 61).joined(separator: "/./")): phony\n", message: ""),
        .init(text: "rule r\n  command = $description\n  description = $command\nbuild o: r\n", message: ""),
        .init(text: "rule r\n  command = cat $rspfile $rspfile\n  rspfile = x\n  rspfile_content = y\nbuild o: r\n", message: ""),
        .init(text: "rule r\n  command = c\n  pool = $pool\nbuild o: r\n", message: ""),
        .init(text: "rule r\n  command = r\nbuild a: r\nbuild a: r\n", message: "", files: [:]),
        .init(text: "include a.ninja\n", message: "", files: ["a.ninja": "build x: nope\n"]),
        .init(text: "subninja a.ninja\nbuild y: r\n", message: "", files: ["a.ninja": "rule r\n  command = r\n"]),
        .init(text: "rule r\n  command = r\nbuild out: r || dd\n  dyndep = dd\n", message: "", files: ["dd": "ninja_dyndep_version = 1\n"]),
        .init(
            text: "rule r\n  command = r\nbuild out: r || dd\n  dyndep = dd\n", message: "",
            files: ["dd": "ninja_dyndep_version = 1\nbuild out | a$"]),
        .init(
            text: "rule r\n  command = r\nbuild out: r || dd\n  dyndep = dd\n", message: "",
            files: ["dd": "ninja_dyndep_version = 1\nbuild out |"]),
        .init(
            text: "rule r\n  command = r\nbuild out: r || dd\n  dyndep = dd\nbuild other: r\n", message: "",
            files: ["dd": "ninja_dyndep_version = 1\nbuild out: dyndep\nbuild other: dyndep\n"]),
        .init(
            text: "rule r\n  command = r\nbuild out: r || dd\n  dyndep = dd\nbuild taken: r\n", message: "",
            files: ["dd": "ninja_dyndep_version = 1\nbuild out | taken: dyndep\n"]),
        .init(
            text: "rule r\n  command = r\nbuild out: r || dd\n  dyndep = dd\n", message: "",
            files: ["dd": "ninja_dyndep_version = 1\nbuild out: dyndep | $x\n"]),
        .init(
            text: "rule r\n  command = r\nbuild out: r || dd\n  dyndep = dd\n", message: "",
            files: ["dd": "ninja_dyndep_version = 2\n"]),
    ]

    /// Valid manifests whose commands `ninja -t commands` lists (every edge is wanted).
    static let validManifests: [(text: String, files: [String: String])] = [
        ("command = foo\nrule r\n  command = bar\nbuild x: r\nbuild y: r\n  z = 1\n", [:]),
        ("rule r\n  command = cc $in -o $out\nbuild a$ b it's: r plain.c+ x$$y\nbuild c: r a$ b\n", [:]),
        ("rule r\n  command = $in -> $out [$in_newline]\nbuild a | b: r c d | e || f |@ g\nbuild g: r\n", [:]),
        ("rspfile = file\nrule r\n  command = [$rspfile] [$depfile]\ndepfile = d\nbuild x: r\n  v = 1\n", [:]),
        (
            "rule r\n  command = top\nsubninja a.ninja\n",
            ["a.ninja": "subninja b.ninja\nrule r\n  command = middle\nbuild m: r\n", "b.ninja": "build x: r\n"]
        ),
        ("subninja a.ninja\n", ["a.ninja": "rule phony\n  command = not really\nbuild x: phony\n"]),
        ("rule r\n  command = [$x] [$y]\nx = file\nbuild o: r\n  x = edge\n  y = $x\n", [:]),
        ("rule r\n  command = $v\nv = 0\nsubninja 1.ninja\n", ["1.ninja": "v = $v.1\nsubninja 2.ninja\n", "2.ninja": "v = $v.2\nbuild out: r\n"]),
        ("rule r\n  command = echo ${out}$$ $$$\n x\nbuild o$:1: r\n", [:]),
    ]

    @Test(arguments: ManifestErrorTests.cases + moreBrokenManifests)
    func errorMessagesMatchNinjas(_ broken: BrokenManifest) throws {
        let directory = try ScratchDirectory()
        try directory.write("build.ninja", broken.text)
        for (name, text) in broken.files { try directory.write(name, text) }
        let ninjaOutput = try Self.runNinja(["-n"], in: directory.path)
        let ninjaMessage = try #require(Self.message(in: ninjaOutput), "ninja printed: \(ninjaOutput)")
        #expect(Self.ourMessage(in: directory.path) == ninjaMessage)
    }

    @Test func warningsMatchNinjas() throws {
        let cases = [
            "rule r\n  command = r\nbuild a b: r\nbuild a: r\nbuild c c: r\n",
            "build a: phony a\nbuild b: phony b c b\n",
            "ninja_required_version = 0.9\nbuild a: phony\n",
        ]
        for text in cases {
            let directory = try ScratchDirectory()
            try directory.write("build.ninja", text)
            let output = try Self.runNinja(["-n", "-w", "dupbuild=warn"], in: directory.path)
            let ninjaWarnings = output.split(separator: "\n").filter { $0.hasPrefix("ninja: warning: ") }.map { String($0.dropFirst(16)) }
            var ours: [String] = []
            let files = DiskManifestFiles(directory: directory.path)
            _ = try ManifestParser.parse(file: "build.ninja", files: files, options: .init(duplicateOutputs: .warn)) { ours.append($0) }
            #expect(ours == ninjaWarnings, "\(text)")
        }
    }

    @Test(arguments: validManifests.indices)
    func commandsMatchNinjas(_ index: Int) throws {
        let (text, files) = Self.validManifests[index]
        let directory = try ScratchDirectory()
        try directory.write("build.ninja", text)
        for (name, contents) in files { try directory.write(name, contents) }
        let output = try Self.runNinja(["-t", "commands"], in: directory.path)
        let graph = try ManifestParser.parse(file: "build.ninja", files: DiskManifestFiles(directory: directory.path))
        let ours = try graph.edges.indices.filter { !graph.edges[$0].isPhony }.map { try graph.command(of: NinjaGraph.EdgeID($0)) }
        // A command with newlines prints as several lines.
        let ninjaLines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let ourLines = ours.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        #expect(ourLines.sorted() == ninjaLines.sorted(), "\(text)")
    }

    /// What ninja printed after `ninja: error: ` or `ninja: fatal: `, without its newline.
    static func message(in output: String) -> String? {
        for prefix in ["ninja: error: ", "ninja: fatal: "] {
            if let range = output.range(of: prefix) {
                var message = String(output[range.upperBound...])
                if message.hasSuffix("\n") { message.removeLast() }
                return message
            }
        }
        return nil
    }

    /// Our message for the manifest in `directory`, read as ninja would read it there: the parse
    /// error, or else the first dyndep file's load error, or else the first failing command.
    static func ourMessage(in directory: String) -> String? {
        let files = DiskManifestFiles(directory: directory)
        do {
            var graph = try ManifestParser.parse(file: "build.ninja", files: files)
            for (index, node) in graph.nodes.enumerated() where node.dyndepPending && FileManager.default.fileExists(atPath: directory + "/" + node.path) {
                _ = try graph.load(dyndep: NinjaGraph.NodeID(index), files: files)
            }
            for edge in graph.edges.indices where !graph.edges[edge].isPhony {
                _ = try graph.command(of: NinjaGraph.EdgeID(edge))
            }
            return nil
        } catch {
            return error.message
        }
    }

    static func runNinja(_ arguments: [String], in directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ninja)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A fresh directory under the temporary directory, removed with the value.
    final class ScratchDirectory {
        let path: String

        init() throws {
            path = NSTemporaryDirectory() + "/sequencer-ninja-diff-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func write(_ name: String, _ text: String) throws {
            let file = path + "/" + name
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
    }
}
