import ArgumentParser
import SequencerWorkflowFile

/// The workflow file and the targets of `run`, `clean` and `graph`, read as make and ninja read
/// theirs: `-f FILE` names the file; without it the first word is the file only when it is an
/// existing file ending in `.yml` or `.yaml` (see `CommandLineTargets`), and every other word
/// is a job, an output or a pattern of `./sequencer.yml`.
struct TargetArguments: ParsableArguments {
    @Option(name: [.customShort("f"), .customLong("file")], help: ArgumentHelp(
        "The workflow file (default: ./sequencer.yml, or the first argument when it is an existing file ending in .yml or .yaml).",
        valueName: "file"),
            completion: .file(extensions: ["yml", "yaml"]))
    var file: String?

    @Argument(help: ArgumentHelp(
        "Jobs, outputs of jobs, or patterns of either ('compile-*', 'obj/*.o'), with the jobs they need (default: every job). The first may be the workflow file.",
        valueName: "target"),
              completion: .file())
    var words: [String] = []

    /// The file and the targets the words name.
    var named: CommandLineTargets { CommandLineTargets(file: file, words: words) }
}

extension CommandLineTargets {
    /// Exit status 2, with an error naming the default file, when targets were given but the
    /// default file (which they were taken to be in) does not exist: `sequencer run hello`
    /// in a directory with no `sequencer.yml`.
    func checkDefaultFileExists() throws {
        guard isDefault, !targets.isEmpty, !Self.isFile(path) else { return }
        let names = targets.map { "'\($0)'" }.joined(separator: ", ")
        printError("""
            error: \(path): no such file; \(names) \(targets.count == 1 ? "is a job or output" : "are jobs or outputs") \
            of the workflow file, which is ./\(Self.defaultPath) unless -f FILE names another \
            (or the first argument is an existing file ending in .yml or .yaml)
            """)
        throw ExitCode(ExitStatus.invalid)
    }
}

/// The file limited to the targets and what they need, or exit status 2 for a name that is
/// neither a job nor an output of it (saying so, with close names, and that a name that looked
/// like a workflow file is no file either).
func selectOrExit(_ file: WorkflowFile, _ named: CommandLineTargets) throws -> WorkflowFile {
    do {
        return try selectOrExit(file, only: named.targets)
    } catch {
        if let missing = named.missingFile, (try? file.selecting([missing])) == nil {
            printError("error: \(missing) is not a workflow file either: there is no such file")
        }
        throw error
    }
}
