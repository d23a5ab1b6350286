import ArgumentParser
import Foundation
import SequencerRunner
import Sequencer
import SequencerNinja
import SequencerWorkflowFile

@main
struct SequencerCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sequencer",
        abstract: "Run graphs of shell jobs described in a YAML workflow file.",
        discussion: """
            Exit status: 0 every job succeeded (or was up to date); 1 a job failed or timed out, \
            or the deadline passed; 2 the workflow file or the arguments are invalid; \
            130 interrupted (SIGINT or SIGTERM).
            """,
        version: "sequencer \(SequencerVersion.current)",
        subcommands: [
            RunCommand.self, CheckCommand.self, GraphCommand.self, RunsCommand.self, ShowCommand.self, TraceCommand.self,
            ResumeCommand.self, GCCommand.self, CleanCommand.self, WorkerCommand.self, ServeCommand.self,
            NinjaCommand.self, CacheCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    /// Like the library's `main`, but bad arguments exit with 2 (the documented status for
    /// invalid input) instead of argument-parser's 64.
    static func main() async {
        // ninja's command line is ninja's, not argument-parser's: `ninja` (a link to this
        // binary) and `sequencer ninja` hand every argument to ninja mode as they are.
        let arguments = CommandLine.arguments
        if arguments.first.map({ $0.split(separator: "/").last == "ninja" }) == true {
            Foundation.exit(await NinjaMain.run(arguments: Array(arguments.dropFirst()), endsProcess: true, openCache: CacheStores.open))
        }
        if arguments.count > 1, arguments[1] == "ninja" {
            Foundation.exit(await NinjaMain.run(arguments: Array(arguments.dropFirst(2)), endsProcess: true, openCache: CacheStores.open))
        }
        // Answered before the parser, which reflects over every command's options (about 2 ms,
        // a third of the process's life): what scripts and package managers call most.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(configuration.version)
            return
        }
        do {
            if try await UpToDateShortcut.endsBeforeParsing(Array(CommandLine.arguments.dropFirst())) { return }
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(ExitStatus.invalid)
        }
    }
}

/// The process's exit statuses (the command-line contract).
enum ExitStatus {
    static let succeeded: Int32 = 0
    static let failed: Int32 = 1
    static let invalid: Int32 = 2
    static let interrupted: Int32 = 130
}

/// The workflow file of a command that takes no targets (`check`): `-f FILE`, or the file as
/// its argument, else `./sequencer.yml`.
struct FileArgument: ParsableArguments {
    @Option(name: [.customShort("f"), .customLong("file")], help: ArgumentHelp(
        "The workflow file (default: ./sequencer.yml).", valueName: "file"),
            completion: .file(extensions: ["yml", "yaml"]))
    var option: String?

    @Argument(help: ArgumentHelp("The workflow file, as -f names it.", valueName: "file"),
              completion: .file(extensions: ["yml", "yaml"]))
    var argument: String?

    /// The file to read.
    var file: String { option ?? argument ?? CommandLineTargets.defaultPath }

    func validate() throws {
        if let option, let argument {
            throw ValidationError("two workflow files: -f \(option) and \(argument); give one")
        }
    }
}
