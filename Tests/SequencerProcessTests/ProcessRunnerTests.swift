#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@Suite struct ProcessRunnerTests {
    private func sh(_ script: String, in directory: TemporaryDirectory, environment: [String: String] = ["PATH": testPath]) -> ProcessCommand {
        ProcessCommand(arguments: ["/bin/sh", "-c", script], environment: environment, directory: directory.path)
    }

    @Test("exit codes are reported", arguments: ExitWaiting.allCases, [0, 1, 3, 255])
    func exitCodes(waiting: ExitWaiting, code: Int32) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let runner = ProcessRunner(waiting: waiting)
        let exit = try await runner.run(sh("exit \(code)", in: directory), outputPath: directory.file("out"))
        #expect(exit == .exited(code))
        #expect(exit.succeeded == (code == 0))
        #expect(runner.unfinishedCount == 0)
    }

    @Test("a process killed by a signal is reported as such", arguments: [SIGKILL, SIGTERM, SIGUSR1])
    func signalDeath(signal: Int32) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let exit = try await ProcessRunner().run(sh("kill -\(signal) $$", in: directory), outputPath: directory.file("out"))
        #expect(exit == .signaled(signal))
        #expect(!exit.succeeded)
    }

    @Test func stdoutAndStderrAreInterleavedInOneFile() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let script = "echo out1; echo err1 >&2; echo out2; echo err2 >&2; printf tail"
        let exit = try await ProcessRunner().run(sh(script, in: directory), outputPath: directory.file("out"))
        #expect(exit == .exited(0))
        #expect(directory.read("out") == "out1\nerr1\nout2\nerr2\ntail")
    }

    @Test func outputFileIsTruncated() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.write("out", String(repeating: "old output\n", count: 100))
        _ = try await ProcessRunner().run(sh("echo new", in: directory), outputPath: directory.file("out"))
        #expect(directory.read("out") == "new\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("out"))
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o600 } == 0o600)
    }

    @Test func largeOutputGoesStraightToTheFile() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let size = 20 * 1024 * 1024
        let command = ProcessCommand(arguments: ["head", "-c", "\(size)", "/dev/zero"], environment: ["PATH": testPath], directory: directory.path)
        let exit = try await ProcessRunner().run(command, outputPath: directory.file("out"))
        #expect(exit == .exited(0))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("out"))
        #expect((attributes[.size] as? Int) == size)
    }

    @Test func stdinIsDevNull() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        // `cat` with no file reads stdin: it ends at once on /dev/null (it would hang on a terminal or pipe).
        let command = ProcessCommand(arguments: ["cat"], environment: ["PATH": testPath], directory: directory.path)
        #expect(try await ProcessRunner().run(command, outputPath: directory.file("out")) == .exited(0))
        #expect(directory.read("out") == "")
        _ = try await ProcessRunner().run(sh("readlink /proc/self/fd/0", in: directory), outputPath: directory.file("out"))
        #if os(Linux)
        #expect(directory.read("out") == "/dev/null\n")
        #endif
    }

    @Test func environmentIsExactlyTheGivenOne() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let environment = ["PATH": testPath, "GREETING": "hello world", "EMPTY": "", "UNICODE": "été ✓"]
        let command = ProcessCommand(arguments: ["env"], environment: environment, directory: directory.path)
        #expect(try await ProcessRunner().run(command, outputPath: directory.file("out")) == .exited(0))
        let lines = Set(try #require(directory.read("out")).split(separator: "\n").map(String.init))
        #expect(lines == Set(environment.map { "\($0.key)=\($0.value)" }))
    }

    @Test func directoryIsHonoured() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.makeDirectory("sub dir")
        let command = ProcessCommand(arguments: ["pwd"], environment: ["PATH": testPath], directory: directory.file("sub dir"))
        #expect(try await ProcessRunner().run(command, outputPath: directory.file("out")) == .exited(0))
        #expect(directory.read("out") == directory.file("sub dir") + "\n")
    }

    @Test func relativeProgramPathIsTakenFromTheDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.makeDirectory("project/scripts")
        try directory.write("project/scripts/hello.sh", "#!/bin/sh\necho \"hello $1 from $(pwd)\"\n", permissions: 0o755)
        let command = ProcessCommand(arguments: ["./scripts/hello.sh", "you"], environment: ["PATH": testPath], directory: directory.file("project"))
        #expect(try await ProcessRunner().run(command, outputPath: directory.file("out")) == .exited(0))
        #expect(directory.read("out") == "hello you from \(directory.file("project"))\n")
    }

    @Test("a name is looked up on the child's PATH, relative entries in its directory", arguments: [true, false])
    func nameIsLookedUpOnTheChildsPath(absoluteEntry: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.makeDirectory("tools")
        try directory.write("tools/greet", "#!/bin/sh\necho greetings\n", permissions: 0o755)
        // A file of the same name that cannot be executed, earlier on PATH, is skipped.
        try directory.makeDirectory("other")
        try directory.write("other/greet", "not a program\n", permissions: 0o644)
        let entry = absoluteEntry ? directory.file("tools") : "tools"
        let command = ProcessCommand(arguments: ["greet"], environment: ["PATH": "other:\(entry):\(testPath)"], directory: directory.path)
        #expect(try await ProcessRunner().run(command, outputPath: directory.file("out")) == .exited(0))
        #expect(directory.read("out") == "greetings\n")
    }

    @Test func parentWorkingDirectoryIsUntouched() async throws {
        // The parent's own working directory is left alone: many runs in different directories at once.
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let before = FileManager.default.currentDirectoryPath
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                try directory.makeDirectory("d\(index)")
                group.addTask {
                    let command = ProcessCommand(arguments: ["pwd"], environment: ["PATH": testPath], directory: directory.file("d\(index)"))
                    _ = try await ProcessRunner().run(command, outputPath: directory.file("d\(index)/out"))
                }
            }
            try await group.waitForAll()
        }
        for index in 0..<8 { #expect(directory.read("d\(index)/out") == directory.file("d\(index)") + "\n") }
        #expect(FileManager.default.currentDirectoryPath == before)
    }

    @Test func childSignalsAreDefaultAndUnblocked() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        // This process ignores SIGPIPE (so does the Swift runtime on many paths); the child must not.
        signal(SIGPIPE, SIG_IGN)
        #if os(Linux)
        let command = ProcessCommand(arguments: ["grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"], environment: ["PATH": testPath], directory: directory.path)
        #expect(try await ProcessRunner().run(command, outputPath: directory.file("out")) == .exited(0))
        #expect(directory.read("out") == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
        #endif
    }

    @Test func childIsLeaderOfItsOwnProcessGroup() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        // ps prints the pid and the process group ID of the shell: equal, and not ours.
        let exit = try await ProcessRunner().run(sh("ps -o pid= -o pgid= -p $$", in: directory), outputPath: directory.file("out"))
        #expect(exit == .exited(0))
        let fields = try #require(directory.read("out")).split(separator: " ", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(fields.count == 2)
        #expect(fields.first == fields.last)
        #expect(fields.first != "\(getpgrp())")
    }
}
