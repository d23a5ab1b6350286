import Foundation
import SequencerBuild
import SequencerTestHelpers
import SequencerTestSupport
import SequencerWorkflowFile
import Testing

/// The compiled copy of a workflow file: used while the file is unchanged, ignored and
/// rewritten when the file changed or the copy is damaged.
@Suite struct CompiledWorkflowCacheTests {
    static let yaml = "jobs:\n  a: echo a\n  b:\n    needs: [a]\n    run: echo b\n"

    @Test func theFirstLoadParsesAndTheNextUsesTheCopy() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-cache")
        let path = try directory.write("sequencer.yml", Self.yaml)
        let first = try CompiledWorkflowCache.load(path: path)
        #expect(!first.fromCopy && first.saveError == nil)
        #expect(FileManager.default.fileExists(atPath: CompiledWorkflowCache.copyPath(for: path)))
        #expect(CompiledWorkflowCache.copyPath(for: path).hasPrefix(directory.path + "/.sequencer/compiled/"))
        let second = try CompiledWorkflowCache.load(path: path)
        #expect(second.fromCopy)
        #expect(second.file.jobs.map(\.name) == ["a", "b"])
        #expect(second.file.jobs[1].needs.map(\.name) == ["a"])
        #expect(second.file.path == path)
    }

    @Test func aChangedFileIsParsedAgain() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-cache")
        let path = try directory.write("sequencer.yml", Self.yaml)
        _ = try CompiledWorkflowCache.load(path: path)
        try directory.write("sequencer.yml", Self.yaml + "  c: echo c\n")
        let changed = try CompiledWorkflowCache.load(path: path)
        #expect(!changed.fromCopy)
        #expect(changed.file.jobs.map(\.name) == ["a", "b", "c"])
        #expect(try CompiledWorkflowCache.load(path: path).fromCopy)
    }

    /// A copy stands for the files the workflow includes and the files its templates range
    /// over as they were: a change to either is read again.
    @Test func anEditedIncludeOrANewSourceFileIsParsedAgain() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-cache")
        try directory.write("common.yml", "jobs:\n  prepare: echo\n")
        try directory.write("src/a.c", "")
        let path = try directory.write("sequencer.yml", """
            include: [common.yml]
            jobs:
              compile-${stem}:
                for: { files: "src/*.c" }
                run: cc -c ${item}
            """)
        #expect(try !CompiledWorkflowCache.load(path: path).fromCopy)
        #expect(try CompiledWorkflowCache.load(path: path).fromCopy)
        try directory.write("src/b.c", "")
        let grown = try CompiledWorkflowCache.load(path: path)
        #expect(!grown.fromCopy && grown.file.jobs.map(\.name) == ["prepare", "compile-a", "compile-b"])
        #expect(try CompiledWorkflowCache.load(path: path).fromCopy)
        try directory.write("common.yml", "jobs:\n  prepare: echo again\n")
        let edited = try CompiledWorkflowCache.load(path: path)
        #expect(!edited.fromCopy && edited.file.jobs.first?.run == "echo again")
        try FileManager.default.removeItem(atPath: directory.file("common.yml"))
        #expect(throws: WorkflowFileError.self) { try CompiledWorkflowCache.load(path: path) }
    }

    @Test(arguments: ["garbage", "short"])
    func aDamagedCopyIsIgnoredAndRewritten(damage: String) throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-cache")
        let path = try directory.write("sequencer.yml", Self.yaml)
        _ = try CompiledWorkflowCache.load(path: path)
        let copy = CompiledWorkflowCache.copyPath(for: path)
        let bytes = try #require(FileManager.default.contents(atPath: copy))
        // Garbage throughout, or the right hash with the compiled form cut short.
        let damaged = damage == "garbage" ? Data("not a compiled workflow".utf8) : bytes.prefix(bytes.count - 5)
        try damaged.write(to: URL(fileURLWithPath: copy))
        let loaded = try CompiledWorkflowCache.load(path: path)
        #expect(!loaded.fromCopy)
        #expect(loaded.file.jobs.map(\.name) == ["a", "b"])
        #expect(try CompiledWorkflowCache.load(path: path).fromCopy)
    }

    @Test func aFileWithProblemsThrowsWhatLoadThrows() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-cache")
        let path = try directory.write("sequencer.yml", "jobs:\n  a:\n    neds: [b]\n    run: echo a\n")
        let error = #expect(throws: WorkflowFileError.self) { try CompiledWorkflowCache.load(path: path) }
        #expect(error?.description.hasPrefix(path + ":3:5: error: unknown key 'neds'") == true)
        #expect(!FileManager.default.fileExists(atPath: CompiledWorkflowCache.copyPath(for: path)))
        let missing = #expect(throws: WorkflowFileError.self) { try CompiledWorkflowCache.load(path: directory.file("none.yml")) }
        #expect(missing?.description.contains("none.yml:1:1: error: no such file") == true)
    }
}
