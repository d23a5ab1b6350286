/// What a `ninja` command line asks for: ninja 1.11's flags, read as its `getopt_long` reads
/// them (options may follow targets; `-t TOOL` ends the options, and the rest goes to the tool).
public struct NinjaOptions: Sendable, Equatable {
    public enum Verbosity: Sendable, Equatable {
        case normal
        /// `-v`: every command line, never shortened.
        case verbose
        /// `--quiet`: no status lines, only the commands' output.
        case quiet
    }

    /// `-C DIR`.
    public var directory: String?
    /// `-f FILE`.
    public var manifest = "build.ninja"
    /// `-j N`: nil for ninja's guess (see ``defaultParallelism(processors:)``); `Int.max` for `-j 0`.
    public var parallelism: Int?
    /// `-k N`: how many failures stop the build (`-k 0`: none does).
    public var failuresAllowed = 1
    /// `-l N`: no new command while the load average is above it.
    public var maxLoadAverage: Double?
    /// `-n`.
    public var dryRun = false
    public var verbosity = Verbosity.normal
    /// `-d explain`, `-d stats`, `-d keepdepfile`, `-d keeprsp`.
    public var explain = false
    public var stats = false
    public var keepDepfiles = false
    public var keepResponseFiles = false
    /// `-w dupbuild=err` (the default) or `=warn`.
    public var duplicateOutputsAreErrors = true
    /// `-w phonycycle=err`, or `=warn` (the default).
    public var phonyCyclesAreErrors = false
    /// `-t TOOL` and the arguments after it.
    public var tool: String?
    /// The targets, or the tool's arguments.
    public var arguments: [String] = []

    public init() {}

    /// ninja's default `-j`: 2 on one processor, 3 on two, else two more than there are.
    public static func defaultParallelism(processors: Int) -> Int {
        switch processors {
        case ...1: 2
        case 2: 3
        default: processors + 2
        }
    }
}

/// What reading a command line ends in, when it does not end in a build or a tool.
public enum NinjaCommandLineOutcome: Sendable, Equatable {
    /// Carry on with these options.
    case options(NinjaOptions)
    /// Print this on stdout and exit with the code (`--version`, `-d list`, `-t list`, `-w list`).
    case print(String, exitCode: Int32)
    /// Print the usage on stderr and exit 1 (`-h`, an unknown flag).
    case usage(message: String?)
    /// Print `ninja: error: MESSAGE` (or `ninja: fatal: MESSAGE`) and exit 1.
    case error(String, fatal: Bool)
    /// `-w depfilemulti=…`: a warning, then carry on.
    indirect case warning(String, then: NinjaCommandLineOutcome)
}

extension NinjaOptions {
    /// The version `--version` prints: the newest ninja whose features are all implemented.
    public static let version = "1.11.1"

    /// The tools `-t list` names, with what each does, in ninja's order.
    public static let tools: [(name: String, summary: String)] = [
        ("browse", "browse dependency graph in a web browser"),
        ("clean", "clean built files"),
        ("commands", "list all commands required to rebuild given targets"),
        ("inputs", "list all inputs required to rebuild given targets"),
        ("deps", "show dependencies stored in the deps log"),
        ("missingdeps", "check deps log dependencies on generated files"),
        ("graph", "output graphviz dot file for targets"),
        ("query", "show inputs/outputs for a path"),
        ("targets", "list targets by their rule or depth in the DAG"),
        ("compdb", "dump JSON compilation database to stdout"),
        ("recompact", "recompacts ninja-internal data structures"),
        ("restat", "restats all outputs in the build log"),
        ("rules", "list all rules"),
        ("cleandead", "clean built files that are no longer produced by the manifest"),
    ]

    /// Reads `arguments` (without the program's name) as ninja does.
    public static func parse(_ arguments: [String]) -> NinjaCommandLineOutcome {
        var options = NinjaOptions()
        var operands: [String] = []
        var index = 0
        var warnings: [String] = []
        func finish(_ outcome: NinjaCommandLineOutcome) -> NinjaCommandLineOutcome {
            warnings.reversed().reduce(outcome) { .warning($1, then: $0) }
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                operands += arguments[index...]
                break
            }
            if argument.hasPrefix("--") {
                switch argument {
                case "--version": return finish(.print(version + "\n", exitCode: 0))
                case "--verbose": options.verbosity = .verbose
                case "--quiet": options.verbosity = .quiet
                case "--help": return finish(.usage(message: nil))
                default: return finish(.usage(message: "unrecognized option '\(argument)'"))
                }
                continue
            }
            guard argument.count > 1, argument.hasPrefix("-") else {
                operands.append(argument)
                continue
            }
            // A cluster of short flags: `-nv`, `-j4`, `-j 4`.
            var flags = Substring(argument.dropFirst())
            while let flag = flags.first {
                flags = flags.dropFirst()
                let takesValue = "dfjkltwC".contains(flag)
                var value = ""
                if takesValue {
                    if !flags.isEmpty {
                        value = String(flags)
                        flags = ""
                    } else if index < arguments.count {
                        value = arguments[index]
                        index += 1
                    } else {
                        return finish(.usage(message: "option requires an argument -- '\(flag)'"))
                    }
                }
                switch flag {
                case "n": options.dryRun = true
                case "v": options.verbosity = .verbose
                case "h": return finish(.usage(message: nil))
                case "C": options.directory = value
                case "f": options.manifest = value
                case "j":
                    guard let count = Int(value), count >= 0 else { return finish(.error("invalid -j parameter", fatal: true)) }
                    options.parallelism = count == 0 ? Int.max : count
                case "k":
                    guard let count = Int(value) else {
                        return finish(.error("-k parameter not numeric; did you mean -k 0?", fatal: true))
                    }
                    options.failuresAllowed = count > 0 ? count : Int.max
                case "l":
                    guard let load = leadingNumber(value) else {
                        return finish(.error("-l parameter not numeric: did you mean -l 0.0?", fatal: true))
                    }
                    options.maxLoadAverage = load
                case "d":
                    switch value {
                    case "list": return finish(.print(debugModes, exitCode: 1))
                    case "explain": options.explain = true
                    case "stats": options.stats = true
                    case "keepdepfile": options.keepDepfiles = true
                    case "keeprsp": options.keepResponseFiles = true
                    case "nostatcache": break
                    default:
                        return finish(.error(unknown("debug setting", value, among: ["stats", "explain", "keepdepfile", "keeprsp", "nostatcache"]), fatal: false))
                    }
                case "w":
                    switch value {
                    case "list": return finish(.print("warning flags:\n  phonycycle={err,warn}  phony build statement references itself\n", exitCode: 1))
                    case "dupbuild=err": options.duplicateOutputsAreErrors = true
                    case "dupbuild=warn": options.duplicateOutputsAreErrors = false
                    case "phonycycle=err": options.phonyCyclesAreErrors = true
                    case "phonycycle=warn": options.phonyCyclesAreErrors = false
                    case "depfilemulti=err", "depfilemulti=warn": warnings.append("deprecated warning 'depfilemulti'")
                    default:
                        return finish(.error(unknown("warning flag", value, among: ["dupbuild=err", "dupbuild=warn", "phonycycle=err", "phonycycle=warn"]), fatal: false))
                    }
                case "t":
                    if value == "list" {
                        var text = "ninja subtools:\n"
                        for tool in tools { text += String(repeating: " ", count: max(0, 11 - tool.name.count)) + tool.name + "  " + tool.summary + "\n" }
                        return finish(.print(text, exitCode: 0))
                    }
                    // compdb-targets is ninja 1.13's: accepted, not listed by the 1.11 this reports.
                    guard tools.contains(where: { $0.name == value }) || value == "urtle" || value == "compdb-targets" else {
                        return finish(.error(unknown("tool", value, among: tools.map(\.name)), fatal: true))
                    }
                    options.tool = value
                    // The tool takes everything after it, flags included.
                    options.arguments = operands + arguments[index...]
                    return finish(.options(options))
                default:
                    return finish(.usage(message: "invalid option -- '\(flag)'"))
                }
                if takesValue { break }
            }
        }
        options.arguments = operands
        return finish(.options(options))
    }

    /// The usage ninja prints on stderr for `-h` and unknown flags.
    public static func usage(parallelism: Int) -> String {
        """
        usage: ninja [options] [targets...]

        if targets are unspecified, builds the 'default' target (see manual).

        options:
          --version      print ninja version ("\(version)")
          -v, --verbose  show all command lines while building
          --quiet        don't show progress status, just command output

          -C DIR   change to DIR before doing anything else
          -f FILE  specify input build file [default=build.ninja]

          -j N     run N jobs in parallel (0 means infinity) [default=\(parallelism) on this system]
          -k N     keep going until N jobs fail (0 means infinity) [default=1]
          -l N     do not start new jobs if the load average is greater than N
          -n       dry run (don't run commands but act like they succeeded)

          -d MODE  enable debugging (use '-d list' to list modes)
          -t TOOL  run a subtool (use '-t list' to list subtools)
            terminates toplevel options; further flags are passed to the tool
          -w FLAG  adjust warnings (use '-w list' to list warnings)

        """
    }

    static let debugModes = """
        debugging modes:
          stats        print operation counts/timing info
          explain      explain what caused a command to execute
          keepdepfile  don't delete depfiles after they're read by ninja
          keeprsp      don't delete @response files on success
        multiple modes can be enabled via -d FOO -d BAR

        """

    /// "unknown KIND 'VALUE'", with ninja's suggestion of the closest known one.
    static func unknown(_ kind: String, _ value: String, among known: [String]) -> String {
        if let suggestion = Spelling.closest(to: value, among: known) {
            return "unknown \(kind) '\(value)', did you mean '\(suggestion)'?"
        }
        return "unknown \(kind) '\(value)'"
    }

    /// The number `strtod` reads at the start of `text`, if any (ninja ignores what follows).
    static func leadingNumber(_ text: String) -> Double? {
        var longest: Double?
        var prefix = ""
        for character in text {
            prefix.append(character)
            if let number = Double(prefix) { longest = number }
        }
        return longest
    }
}
