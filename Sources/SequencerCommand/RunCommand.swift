import ArgumentParser
import SequencerWorkflowFile

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a workflow file's jobs."
    )

    @OptionGroup var file: FileArgument

    func run() async throws {
        _ = try loadOrExit(file.file)
    }
}
