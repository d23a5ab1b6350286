import Foundation
import SequencerBuild
import SequencerCache
import SequencerJournal
import SequencerTestHelpers
import SequencerWorkflowFile
import Testing

/// A job's cache key: the same for two checkouts at different paths, and another whenever
/// what the job is made of changes (its command, a declared variable, an input, its tool).
@Suite struct JobKeysTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// A checkout named `name` of a project whose `build` job compiles `src/a.c` with `tool`.
    private func checkout(_ name: String, source: String = "int a;\n", env: String = "") throws -> (file: WorkflowFile, root: String) {
        let root = directory.file(name)
        try FileManager.default.createDirectory(atPath: root + "/src", withIntermediateDirectories: true)
        try source.write(toFile: root + "/src/a.c", atomically: true, encoding: .utf8)
        try """
            version: 1
            \(env)
            jobs:
              build: { run: "mytool -I\(root)/include -c \(root)/src/a.c -o out/a.o", inputs: [src/a.c, "src/*.h"], outputs: [out/a.o] }
              check: mytool --check
            """.write(toFile: root + "/sequencer.yml", atomically: true, encoding: .utf8)
        return (try WorkflowFile.load(path: root + "/sequencer.yml").expandingVariables(), root)
    }

    /// An executable `mytool` in the directory `name`, printing `text`.
    private func tool(in name: String, _ text: String) throws -> String {
        let folder = directory.file(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \(text)\n".write(toFile: folder + "/mytool", atomically: true, encoding: .utf8)
        chmod(folder + "/mytool", 0o755)
        return folder
    }

    private func key(_ file: WorkflowFile, _ job: String = "build", inherited: [String: String]) throws -> KeyPreimage {
        let declared = try #require(file.job(named: job))
        return try #require(JobKeys(file: file).preimage(of: declared, inherited: inherited))
    }

    @Test func twoCheckoutsAtDifferentPathsHaveOneKey() throws {
        let tools = try tool(in: "bin", "v1")
        let (ada, adaRoot) = try checkout("ada")
        let (bob, bobRoot) = try checkout("bob")
        let adaKey = try key(ada, inherited: ["PATH": tools, "PWD": adaRoot, "HOME": "/home/ada"])
        let bobKey = try key(bob, inherited: ["PATH": tools, "PWD": bobRoot, "HOME": "/home/bob"])
        #expect(adaKey.digest == bobKey.digest, "\(adaKey.firstDifference(from: bobKey) ?? "")")
        #expect(adaKey.value(.input, "src/a.c") == CacheDigest.of(Data("int a;\n".utf8)).hex)
        #expect(adaKey.value(.output, "out/a.o") == "")
        #expect(adaKey.value(.input, "src/*.h") == "no files")
        // The command as the key has it: the checkout's absolute path written relative.
        #expect(adaKey.value(.command) == "mytool -Iinclude -c src/a.c -o out/a.o")
    }

    @Test func anEditedInputGivesAnotherKey() throws {
        let tools = try tool(in: "bin", "v1")
        let (one, _) = try checkout("one")
        let (two, _) = try checkout("two", source: "int b;\n")
        let first = try key(one, inherited: ["PATH": tools])
        let second = try key(two, inherited: ["PATH": tools])
        #expect(first.digest != second.digest)
        #expect(second.firstDifference(from: first) == "input src/a.c differs")
    }

    /// Another program of the same name first on `PATH` is another tool.
    @Test func anotherToolOnThePathGivesAnotherKey() throws {
        let old = try tool(in: "old", "v1"), new = try tool(in: "new", "v2")
        let (file, _) = try checkout("p")
        let first = try key(file, inherited: ["PATH": old + ":" + new])
        let second = try key(file, inherited: ["PATH": new + ":" + old])
        #expect(second.firstDifference(from: first)?.hasPrefix("the tool 'mytool' differs") == true, "\(second.firstDifference(from: first) ?? "")")
        let missing = try key(file, inherited: ["PATH": directory.file("nowhere")])
        #expect(missing.value(.tool, "mytool") == "not found")
    }

    /// A declared variable is in the key; one the job was not given is neither in the key nor
    /// in its environment (Turborepo#548: a variable left out of the key gave wrong hits).
    @Test func declaredVariablesAreKeyedAndOthersNotSeen() throws {
        let tools = try tool(in: "bin", "v1")
        let (file, _) = try checkout("p", env: "env: { OPT: \"-O2\" }")
        let keys = JobKeys(file: file)
        let job = try #require(file.job(named: "build"))
        let inherited = ["PATH": tools, "SECRET_FLAG": "1", "HOME": "/home/ada"]
        let environment = keys.environment(of: job, inherited: inherited)
        #expect(environment["OPT"] == "-O2" && environment["PATH"] == tools && environment["HOME"] == "/home/ada")
        #expect(environment["SECRET_FLAG"] == nil)
        let base = try key(file, inherited: inherited)
        #expect(base.value(.environment, "OPT") == "-O2" && base.value(.environment, "SECRET_FLAG") == nil)
        #expect(try key(file, inherited: inherited.merging(["SECRET_FLAG": "2"]) { $1 }).digest == base.digest)
        let (other, _) = try checkout("q", env: "env: { OPT: \"-O0\" }")
        #expect(try key(other, inherited: inherited).firstDifference(from: base) == "environment variable OPT differs (-O0 here)")
    }

    @Test func aJobWithoutOutputsHasNoKey() throws {
        let (file, _) = try checkout("p")
        let check = try #require(file.job(named: "check"))
        #expect(JobKeys(file: file).preimage(of: check) == nil)
    }

    @Test func theToolIsTheFirstWordAfterAssignments() throws {
        let tools = try tool(in: "bin", "v1")
        let identity = ToolIdentity()
        #expect(identity.identify(command: "FOO=1 BAR=x mytool -c", path: tools, directory: "/").map(\.name) == ["mytool"])
        #expect(identity.identify(command: "cd src && mytool; echo done", path: tools, directory: "/").map(\.name) == ["sh", "mytool"])
        #expect(identity.identify(command: "(mytool)", path: tools, directory: "/").map(\.name) == ["sh"])
        #expect(identity.identify(command: "\tA_1=x\tmytool\t-c", path: tools, directory: "/").map(\.name) == ["mytool"])
        #expect(identity.identify(command: "1A=x mytool", path: tools, directory: "/").map(\.name) == ["1A=x"], "not a variable's name")
        #expect(identity.identify(command: "a || mytool\nb", path: tools, directory: "/").map(\.name) == ["a", "mytool", "b"])
        #expect(identity.identify(command: "nosuchtool -x | mytool", path: tools, directory: "/").map { $0.digest == nil } == [true, false])
        let direct = identity.identify(command: "\(tools)/mytool -c", path: nil, directory: "/")
        #expect(direct.map(\.digest) == [CacheDigest.ofFile(tools + "/mytool")?.digest.hex])
    }
}
