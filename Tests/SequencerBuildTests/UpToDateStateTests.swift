import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import SequencerWorkflowFile
import Testing

/// `UpToDateState`: the files a pass that found every job up to date read, with their stamps.
/// It must never say "current" after a change the pass would see (it may say "not current"
/// after one the pass would not: the run then decides the usual way).
@Suite(.suiteTimeLimit) struct UpToDateStateTests {
    typealias Project = UpToDateTests.Project

    static let yaml = """
        jobs:
          build:
            run: cp in.txt out.txt
            inputs: [in.txt, src/a.h, absent.txt]
            outputs: [out.txt]
          after:
            needs: [build]
            run: cat out.txt > after.txt
            outputs: [after.txt, logs/after.log]
        """

    struct Change: Sendable, CustomTestStringConvertible {
        let name: String
        let files: @Sendable (TemporaryDirectory) throws -> Void
        /// Whether the pass finds a job not up to date afterwards.
        let runsSomething: Bool
        var testDescription: String { name }
    }

    static let changes: [Change] = [
        Change(name: "nothing", files: { _ in }, runsSomething: false),
        Change(name: "an input touched", files: { directory in
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: directory.file("in.txt"))
        }, runsSomething: false),
        Change(name: "an input's content", files: { try $0.write("in.txt", "two, longer\n") }, runsSomething: true),
        Change(name: "a header's content", files: { try $0.write("src/a.h", "changed\n") }, runsSomething: true),
        Change(name: "an input removed", files: { try FileManager.default.removeItem(atPath: $0.file("in.txt")) }, runsSomething: true),
        Change(name: "a missing input appears", files: { try $0.write("absent.txt", "here\n") }, runsSomething: true),
        Change(name: "an output missing", files: { try FileManager.default.removeItem(atPath: $0.file("logs/after.log")) }, runsSomething: true),
        Change(name: "an output rewritten", files: { try $0.write("after.txt", "by hand, later\n") }, runsSomething: true),
    ]

    /// The project built, then found up to date by a pass that noted its files.
    static func stated() async throws -> (Project, UpToDateState) {
        let project = try Project()
        try project.directory.write("in.txt", "one\n")
        try project.directory.makeDirectory("src")
        try project.directory.write("src/a.h", "a\n")
        try project.directory.makeDirectory("logs")
        try project.directory.write("sequencer.yml", yaml)
        _ = try await project.pass(yaml)
        #expect(try await project.pass(yaml).isEmpty, "the second pass runs nothing")
        let decided = try #require(try project.check(yaml).allUpToDateWithFiles())
        let state = UpToDateState(
            fileDigest: FileHasher.digest(of: try Data(contentsOf: URL(fileURLWithPath: project.directory.file("sequencer.yml")))),
            names: decided.names, files: decided.files)
        return (project, state)
    }

    @Test(arguments: changes) func itIsCurrentOnlyWhenThePassWouldRunNothing(_ change: Change) async throws {
        let (project, state) = try await Self.stated()
        #expect(state.isCurrent(path: project.directory.file("sequencer.yml")), "before the change")
        try change.files(project.directory)
        let current = state.isCurrent(path: project.directory.file("sequencer.yml"))
        let pass = try project.check(Self.yaml).allUpToDate()
        if current { #expect(pass != nil, "the state said current, the pass did not") }
        #expect(current == (change.name == "nothing"), "only an untouched project is current")
        #expect((pass == nil) == change.runsSomething)
    }

    @Test func itNotesEachOutputAndInputOnceAndTheJobsNeedsFirst() async throws {
        let (project, state) = try await Self.stated()
        #expect(state.names == ["build", "after"])
        let directory = String(project.directory.file("x").dropLast())
        let paths = state.files.map { String($0.path.dropFirst(directory.count)) }.sorted()
        #expect(paths == ["absent.txt", "after.txt", "in.txt", "logs/after.log", "out.txt", "src/a.h"], "\(paths)")
        for file in state.files {
            #expect(file.stamp == Array(FileHasher.describeStamp(of: file.path).utf8), "\(file.path)")
        }
    }

    @Test func anEditedWorkflowFileIsNotCurrent() async throws {
        let (project, state) = try await Self.stated()
        try project.directory.write("sequencer.yml", Self.yaml + "\n# a comment\n")
        #expect(!state.isCurrent(path: project.directory.file("sequencer.yml")))
        try FileManager.default.removeItem(atPath: project.directory.file("sequencer.yml"))
        #expect(!state.isCurrent(path: project.directory.file("sequencer.yml")))
    }

    @Test func itSurvivesItsEncodingAndDamageIsRefused() async throws {
        let (_, state) = try await Self.stated()
        let bytes = state.encoded()
        #expect(UpToDateState(decoding: bytes) == state)
        for length in 0..<bytes.count {
            #expect(UpToDateState(decoding: Array(bytes.prefix(length))) == nil, "cut at \(length)")
        }
        var otherFormat = bytes
        otherFormat[4] &+= 1
        #expect(UpToDateState(decoding: otherFormat) == nil)
        #expect(UpToDateState(decoding: bytes + [0]) == nil, "trailing bytes")
        var hugeCount = bytes
        hugeCount.replaceSubrange(5..<9, with: [0xff, 0xff, 0xff, 0x7f])
        #expect(UpToDateState(decoding: hugeCount) == nil)
    }

    /// Files are kept by directory, in two halves (a large directory split between them),
    /// their stamps as numbers: every path and stamp comes back as it went in.
    @Test func filesComeBackAsTheyWentIn() {
        var files = (0..<101).map { UpToDateState.File(path: "/a/b/\($0)", stamp: Array("\($0):1795687360267722048:\(-$0)".utf8)) }
        files += [
            UpToDateState.File(path: "/c/missing", stamp: Array("none".utf8)),
            UpToDateState.File(path: "/c/sub", stamp: Array("directory".utf8)),
            UpToDateState.File(path: "/top", stamp: Array("1:2:3".utf8)),
            UpToDateState.File(path: "/c/odd", stamp: Array("not a stamp".utf8)),
        ]
        let state = UpToDateState(
            fileDigest: "d", includes: ["/i.yml"], includeDigests: ["e"], listings: [.init(patterns: ["*.c"], excluded: [], files: ["a.c"])],
            directory: "/p", warnings: ["w: a warning"], names: ["a"], files: files)
        let decoded = UpToDateState(decoding: state.encoded())
        #expect(decoded == state)
        let back = Dictionary(uniqueKeysWithValues: (decoded?.files ?? []).map { ($0.path, String(decoding: $0.stamp, as: UTF8.self)) })
        #expect(back.count == files.count)
        for file in files.dropLast() { #expect(back[file.path] == String(decoding: file.stamp, as: UTF8.self), "\(file.path)") }
        #expect(back["/c/odd"] == "unknown", "a stamp that is not one never matches")
    }

    /// A template over files: the state keeps its file list, and a new file (a new job) or a
    /// removed one makes it stale.
    @Test func aTemplatesFileListIsListedAgain() async throws {
        let project = try Project()
        try project.directory.makeDirectory("src")
        try project.directory.write("src/a.c", "a\n")
        let yaml = """
            jobs:
              copy-${stem}:
                for: { files: ["src/*.c"] }
                run: cp ${item} ${stem}.o
                outputs: ["${stem}.o"]
            """
        try project.directory.write("sequencer.yml", yaml)
        let file = try WorkflowFile.parse(yaml, path: project.directory.file("sequencer.yml"))
        #expect(UpToDateState.canDescribe(file, pathsUseVariables: file.pathsUseVariables))
        #expect(file.listings.map(\.files) == [["src/a.c"]])
        let state = UpToDateState(
            fileDigest: FileHasher.digest(of: try Data(contentsOf: URL(fileURLWithPath: project.directory.file("sequencer.yml")))),
            listings: file.listings,
            directory: file.directory, names: ["copy-a"], files: [])
        #expect(UpToDateState(decoding: state.encoded()) == state)
        #expect(state.isCurrent(path: project.directory.file("sequencer.yml")))
        try project.directory.write("src/b.c", "b\n")
        #expect(!state.isCurrent(path: project.directory.file("sequencer.yml")), "a new file is a new job")
        try FileManager.default.removeItem(atPath: project.directory.file("src/b.c"))
        #expect(state.isCurrent(path: project.directory.file("sequencer.yml")))
        try FileManager.default.removeItem(atPath: project.directory.file("src/a.c"))
        #expect(!state.isCurrent(path: project.directory.file("sequencer.yml")), "a job's file is gone")
    }

    @Test func globInputsVariablesInPathsAndJobsWithoutOutputsCannotBeDescribed() throws {
        let plain = try WorkflowFile.parse(Self.yaml, path: "/tmp/x/sequencer.yml")
        #expect(UpToDateState.canDescribe(plain, pathsUseVariables: plain.pathsUseVariables))
        let glob = try WorkflowFile.parse(Self.yaml.replacingOccurrences(of: "src/a.h", with: "src/*.h"), path: "/tmp/x/sequencer.yml")
        #expect(!UpToDateState.canDescribe(glob, pathsUseVariables: glob.pathsUseVariables))
        let variable = try WorkflowFile.parse(Self.yaml.replacingOccurrences(of: "[out.txt]", with: "[$OUT]"), path: "/tmp/x/sequencer.yml")
        #expect(variable.pathsUseVariables)
        #expect(!UpToDateState.canDescribe(variable, pathsUseVariables: variable.pathsUseVariables))
        let noOutputs = try WorkflowFile.parse(Self.yaml + "\n  stamp:\n    run: date\n", path: "/tmp/x/sequencer.yml")
        #expect(!UpToDateState.canDescribe(noOutputs, pathsUseVariables: false))
    }
}

extension UpToDateTests.Project {
    /// The checks for `yaml` with the journal as it is.
    func check(_ yaml: String) throws -> UpToDate {
        let file = try WorkflowFile.parse(yaml, path: directory.file("sequencer.yml"))
        let recorder = try journal.beginRun(workflow: "w")
        defer { recorder.close() }
        return UpToDate(
            file: file, stored: try journal.fingerprints(workflow: "w"), hasher: FileHasher(), expansions: PatternExpansions(),
            recorder: recorder, force: false, explain: nil)
    }
}
