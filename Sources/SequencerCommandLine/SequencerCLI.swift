import ArgumentParser
import Foundation
import SequencerRunner
import Sequencer
import SequencerNinja
import SequencerWorkflowFile

/// The `sequencer` command line, for the binaries that run it (`sequencer`, `sequencer-otel`).
public enum CommandLineProgram {
    /// Runs the command that the process's arguments name, and returns the process's exit
    /// status; the caller exits with it (`sequencer-otel` first sends the spans it holds).
    public static func status() async -> Int32 { await SequencerCLI.status() }
}

/// The root command.
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

    /// Runs the command the process's arguments name, and returns the process's exit status:
    /// as argument-parser's `main`, but bad arguments are 2 (the documented status for invalid
    /// input) instead of argument-parser's 64.
    static func status() async -> Int32 {
        // ninja's command line is ninja's, not argument-parser's: `ninja` (a link to this
        // binary) and `sequencer ninja` hand every argument to ninja mode as they are.
        let arguments = CommandLine.arguments
        if arguments.first.map({ $0.split(separator: "/").last == "ninja" }) == true {
            return await NinjaMain.run(arguments: Array(arguments.dropFirst()), endsProcess: true, openCache: CacheStores.open)
        }
        if arguments.count > 1, arguments[1] == "ninja" {
            return await NinjaMain.run(arguments: Array(arguments.dropFirst(2)), endsProcess: true, openCache: CacheStores.open)
        }
        // Answered before the parser, which reflects over every command's options (about 2 ms,
        // a third of the process's life): what scripts and package managers call most.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(configuration.version)
            return ExitStatus.succeeded
        }
        do {
            if try await UpToDateShortcut.endsBeforeParsing(Array(CommandLine.arguments.dropFirst())) { return ExitStatus.succeeded }
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return ExitStatus.succeeded
        } catch {
            // What argument-parser's `exit(withError:)` prints, without exiting.
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((message + "\n").utf8))
                return ExitStatus.invalid
            }
            if !message.isEmpty {
                if code == .success { print(message) } else { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            }
            return code.rawValue
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
