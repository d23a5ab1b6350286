import ArgumentParser
import SequencerWorkflowFile

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a workflow file without running it.",
        discussion: "Every problem is printed as FILE:LINE:COLUMN: error: MESSAGE, in file order. Exits 2 if there are any."
    )

    @OptionGroup var file: FileArgument

    func run() async throws {
        let workflow = try loadOrExit(file.file)
        let lanes = workflow.lanes.isEmpty ? "" : ", \(workflow.lanes.count) lane\(workflow.lanes.count == 1 ? "" : "s")"
        print("\(file.file): \(workflow.jobs.count) job\(workflow.jobs.count == 1 ? "" : "s")\(lanes), no problems")
    }
}

/// The workflow file, or (after printing its errors to standard error) exit status 2.
func loadOrExit(_ path: String) throws -> WorkflowFile {
    do {
        return try WorkflowFile.load(path: path)
    } catch {
        printError(error.description)
        let count = error.diagnostics.count
        printError("\(count) error\(count == 1 ? "" : "s") in \(path)")
        throw ExitCode(ExitStatus.invalid)
    }
}
