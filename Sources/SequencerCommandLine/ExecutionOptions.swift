import ArgumentParser
import Foundation
import Sequencer
import SequencerRunner

/// How jobs run: the options `run` and `resume` share.
struct ExecutionOptions: ParsableArguments {
    @Option(name: [.customShort("j", allowingJoined: true), .long], help: "The most jobs running at once (-j 4 or -j4); the default is the number of cores.")
    var jobs: Int = RunOptions.activeProcessorCount

    @Flag(name: [.short, .long], help: "Keep starting jobs that do not depend on a failed one.")
    var keepGoing = false

    @Option(help: ArgumentHelp("Stop the run after this long (like 30s or 1h30m), reporting what finished.",
                               valueName: "duration"))
    var deadline: String?

    @Option(help: ArgumentHelp("How long a stopped command may take to exit after SIGTERM before it gets SIGKILL.",
                               valueName: "duration"))
    var gracePeriod = "2s"

    @Flag(help: "Print the run report as JSON on standard output (progress goes to standard error).")
    var json = false

    @Option(help: ArgumentHelp("Write a Chrome trace of the run (open it in Perfetto or chrome://tracing).",
                               valueName: "file"),
            completion: .file(extensions: ["json"]))
    var trace: String?

    @Flag(help: "Run every job, even those that are up to date.")
    var force = false

    @Flag(help: "Print why each job runs (which input, command or needed job changed), like ninja -d explain.")
    var explain = false

    @Flag(help: "Do not use the journal: nothing is recorded, nothing is up to date, and the run cannot be resumed.")
    var noJournal = false

    @Flag(help: "Fail at once, instead of waiting, when another sequencer is recording a run in the journal.")
    var noWait = false

    @Flag(name: [.short, .long], help: "Print every job as it finishes, with its output.")
    var verbose = false

    @Option(help: ArgumentHelp(
        "After the run, keep this many runs of the file in the journal, deleting older ones and their output; 0 keeps all (default: $SEQUENCER_KEEP_RUNS, or 100).",
        valueName: "n"))
    var keepRuns: Int?

    /// How many runs of the file the journal keeps: `--keep-runs`, else `SEQUENCER_KEEP_RUNS`,
    /// else 100; 0 keeps every run.
    var runsToKeep: Int {
        get throws { try Self.runsToKeep(option: keepRuns) }
    }

    /// `option` when given, else `SEQUENCER_KEEP_RUNS`, else 100.
    static func runsToKeep(option: Int?) throws -> Int {
        if let option { return option }
        guard let text = ProcessInfo.processInfo.environment["SEQUENCER_KEEP_RUNS"] else { return 100 }
        guard let count = Int(text), count >= 0 else {
            throw ValidationError("SEQUENCER_KEEP_RUNS must be a number of runs (0 keeps all), not '\(text)'")
        }
        return count
    }

    @Flag(help: "Do not print the output of jobs that succeed (it is still kept in their log files).")
    var noSuccessOutput = false

    @OptionGroup(title: "Cache")
    var cache: CacheOptions

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        if let deadline { _ = try duration(deadline, option: "--deadline") }
        _ = try duration(gracePeriod, option: "--grace-period")
        if let keepRuns, keepRuns < 0 { throw ValidationError("--keep-runs must be at least 0") }
        _ = try runsToKeep
    }
}

extension ExecutionOptions {
    /// The options as the runner takes them, with the journal `journal` names.
    func settings(journal: JournalOptions) throws -> RunSettings {
        var settings = RunSettings()
        settings.jobs = jobs
        settings.keepGoing = keepGoing
        settings.deadline = try deadline.map { try duration($0, option: "--deadline") }
        settings.gracePeriod = try duration(gracePeriod, option: "--grace-period")
        settings.json = json
        settings.trace = trace
        settings.force = force
        settings.explain = explain
        settings.journaled = !noJournal
        settings.journal = journal.journal
        settings.waitsForJournal = !noWait
        settings.verbose = verbose
        settings.runsToKeep = try? runsToKeep
        settings.showsSuccessOutput = !noSuccessOutput
        settings.cache = cache.settings
        return settings
    }

    /// Where the run's words go: progress on standard output (standard error with `--json`).
    var output: RunnerOutput { .standard(json: json, log: log) }
}
