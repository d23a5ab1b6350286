import Foundation
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@Suite struct ProcessErrorTests {
    private func failure(_ command: ProcessCommand, output: String) async -> ProcessError? {
        do {
            let exit = try await ProcessRunner().run(command, outputPath: output)
            Issue.record("expected an error, got \(exit)")
            return nil
        } catch let error as ProcessError {
            return error
        } catch {
            Issue.record("expected a ProcessError, got \(error)")
            return nil
        }
    }

    @Test("a program that cannot be run is a ProcessError naming it", arguments: [
        ("no-such-program-for-sequencer", "cannot run 'no-such-program-for-sequencer': No such file or directory"),
        ("./missing.sh", "cannot run './missing.sh': No such file or directory"),
        ("/no/such/dir/prog", "cannot run '/no/such/dir/prog': No such file or directory"),
        ("./data.txt", "cannot run './data.txt': Permission denied"),
        ("data.txt", "cannot run 'data.txt': Permission denied"),
    ])
    func programCannotBeRun(program: String, message: String) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.write("data.txt", "not a program\n")
        let command = ProcessCommand(arguments: [program, "x"], environment: ["PATH": "\(directory.path):\(testPath)"], directory: directory.path)
        let error = await failure(command, output: directory.file("out"))
        #expect(error?.code == .cannotRun)
        #expect(error?.message == message)
        #expect(error?.description == message)
    }

    @Test func scriptHeldOpenForWritingIsBusy() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.write("script.sh", "#!/bin/sh\necho ran\n", permissions: 0o755)
        // Held open for writing for the whole run: every retry finds it busy.
        let writer = try #require(FileHandle(forWritingAtPath: directory.file("script.sh")))
        defer { try? writer.close() }
        let command = ProcessCommand(arguments: ["./script.sh"], environment: ["PATH": testPath], directory: directory.path)
        let error = await failure(command, output: directory.file("out"))
        #expect(error?.code == .cannotRun)
        #expect(error?.message == "cannot run './script.sh': Text file busy")
    }

    @Test func programNotFoundLeavesNoOutputFile() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let command = ProcessCommand(arguments: ["no-such-program-for-sequencer"], environment: ["PATH": testPath], directory: directory.path)
        _ = await failure(command, output: directory.file("out"))
        #expect(!directory.exists("out"))
    }

    @Test func missingDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let missing = directory.file("nowhere")
        let command = ProcessCommand(arguments: ["true"], environment: ["PATH": testPath], directory: missing)
        let error = await failure(command, output: directory.file("out"))
        #expect(error?.code == .badDirectory)
        #expect(error?.message == "working directory '\(missing)' does not exist")
    }

    @Test func directoryThatIsAFile() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.write("file", "")
        let command = ProcessCommand(arguments: ["true"], environment: ["PATH": testPath], directory: directory.file("file"))
        let error = await failure(command, output: directory.file("out"))
        #expect(error?.code == .badDirectory)
        #expect(error?.message == "working directory '\(directory.file("file"))' is not a directory")
    }

    @Test func outputFileThatCannotBeOpened() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let output = directory.file("no/such/out")
        let command = ProcessCommand(arguments: ["true"], environment: ["PATH": testPath], directory: directory.path)
        let error = await failure(command, output: output)
        #expect(error?.code == .cannotOpenOutput)
        #expect(error?.message == "cannot open output file '\(output)': No such file or directory")
    }

    @Test("commands the system cannot pass are rejected", arguments: [
        ProcessCommand(arguments: [], environment: [:], directory: "/"),
        ProcessCommand(arguments: ["echo", "a\u{0}b"], environment: [:], directory: "/"),
        ProcessCommand(arguments: ["true"], environment: ["A=B": "c"], directory: "/"),
        ProcessCommand(arguments: ["true"], environment: ["": "c"], directory: "/"),
        ProcessCommand(arguments: ["true"], environment: ["A": "b\u{0}"], directory: "/"),
    ])
    func invalidCommand(command: ProcessCommand) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let error = await failure(command, output: directory.file("out"))
        #expect(error?.code == .invalidCommand)
        #expect(error?.message.isEmpty == false)
        #expect(!directory.exists("out"))
    }

    @Test func codesAreDistinctAndNamed() {
        let codes: [ProcessError.Code] = [.invalidCommand, .cannotRun, .badDirectory, .cannotOpenOutput, .waitFailed]
        #expect(Set(codes).count == codes.count)
        #expect(codes.map(\.description) == ["invalidCommand", "cannotRun", "badDirectory", "cannotOpenOutput", "waitFailed"])
    }
}
