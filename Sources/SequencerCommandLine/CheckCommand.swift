import ArgumentParser
import SequencerRunner
import SequencerBuild
import SequencerJournal
import SequencerWorkflowFile

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a workflow file without running it.",
        discussion: """
            Every problem is printed as FILE:LINE:COLUMN: error: MESSAGE, in file order. Exits 2 if \
            there are any. Inputs that do not exist and that no job writes, globs that match \
            nothing, and templates that make no jobs are warnings (FILE:LINE:COLUMN: warning: \
            MESSAGE), which do not change the exit status.
            """
    )

    @OptionGroup var file: FileArgument

    func run() async throws {
        let workflow = try expandOrExit(try loadOrExit(file.file))
        let warnings = workflow.warnings + InputCheck(file: workflow, expansions: PatternExpansions())
            .diagnostics(for: workflow.jobs, missing: .warning)
        for warning in warnings { printError(warning.description) }
        let lanes = workflow.lanes.isEmpty ? "" : ", \(workflow.lanes.count) lane\(workflow.lanes.count == 1 ? "" : "s")"
        let problems = warnings.isEmpty ? "no problems" : "\(warnings.count) warning\(warnings.count == 1 ? "" : "s")"
        print("\(file.file): \(workflow.jobs.count) job\(workflow.jobs.count == 1 ? "" : "s")\(lanes), \(problems)")
    }
}

/// The workflow file, or (after printing its errors to standard error) exit status 2.
func loadOrExit(_ path: String) throws -> WorkflowFile {
    do {
        return try WorkflowFile.load(path: path)
    } catch {
        throw invalidFile(error, in: path)
    }
}

/// The file with the variables in its paths expanded, or (after printing where one is
/// undefined or malformed) exit status 2.
func expandOrExit(_ file: WorkflowFile) throws -> WorkflowFile {
    do {
        return try file.expandingVariables()
    } catch {
        throw invalidFile(error, in: file.path)
    }
}

/// Prints a file's errors and a count of them; exit status 2.
private func invalidFile(_ error: WorkflowFileError, in path: String) -> ExitCode {
    printError(error.description)
    let count = error.diagnostics.count
    printError("\(count) error\(count == 1 ? "" : "s") in \(path)")
    return ExitCode(ExitStatus.invalid)
}
