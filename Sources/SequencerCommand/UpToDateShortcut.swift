import Foundation
import Synchronization
import SequencerBuild
import SequencerJournal
import SequencerWorkflowFile

/// A run of a workflow file whose every job is up to date, decided from the journal's
/// ``UpToDateState`` alone, as ninja decides a no-op: the file's digest, then (holding the
/// journal's lock, as a run does) a `stat` and a compare per file, without loading the file
/// or computing a fingerprint. When the state is
/// missing or anything changed, the run goes the usual way (which keeps a new state when it
/// finds every job up to date).
///
/// ```swift
/// switch try await UpToDateShortcut.run(path: "sequencer.yml", options: execution, journal: journalOptions) {
/// case .ended: return
/// case .notTaken(let begun): // run as usual, with `begun` if a run was begun
/// }
/// ```
enum UpToDateShortcut {
    enum Outcome {
        /// The run was recorded and reported: every job was up to date.
        case ended
        /// The run goes the usual way; with the journal and the run begun, if one was (the
        /// state changed while this process waited for the journal).
        case notTaken(begun: (journal: SQLiteJournal, recorder: JournalRecorder)?)
    }

    /// What the shortcut reads of a run's options.
    struct Settings {
        var noWait = false
        var keepGoing = false
        var verbose = false
        /// How many runs of the file the journal keeps (0: every run); nil when
        /// `SEQUENCER_KEEP_RUNS` is not a number (the usual run says so).
        var runsToKeep: Int?
        /// `--journal`, if given.
        var journal: String?

        init(_ options: ExecutionOptions, _ journal: JournalOptions) {
            noWait = options.noWait
            keepGoing = options.keepGoing
            verbose = options.verbose
            runsToKeep = try? options.runsToKeep
            self.journal = journal.journal
        }

        /// A run's defaults: `sequencer` or `sequencer run` with no argument.
        init() {
            runsToKeep = try? ExecutionOptions.runsToKeep(option: nil)
        }
    }

    /// Ends the run of the file at `path` here if the journal's state says every job is up to
    /// date. For a run of every job, without `--force`, `--json`, `--trace` or `--no-journal`.
    static func run(path: String, options: ExecutionOptions, journal journalOptions: JournalOptions) async throws -> Outcome {
        // Options the usual run would refuse are refused here too.
        _ = try duration(options.gracePeriod, option: "--grace-period")
        _ = try options.deadline.map { try duration($0, option: "--deadline") }
        return try await run(path: path, settings: Settings(options, journalOptions))
    }

    /// `sequencer` or `sequencer run` with no argument, which is what a no-op build most often
    /// is, decided before the argument parser (which reflects over every option of `run` at
    /// each start, about 3 ms): true when the run ended here. Otherwise the usual parse and run
    /// follow, and a run begun here is handed to them (see ``takeHandedOver()``). Anything
    /// unusual (a durable queue named by `SEQUENCER_QUEUE`, a `SEQUENCER_KEEP_RUNS` that is not
    /// a number) is left to the usual run.
    static func endsBeforeParsing(_ arguments: [String]) async throws -> Bool {
        guard arguments.isEmpty || arguments == [RunCommand._commandName], QueueOptions.location(nil) == nil else { return false }
        let settings = Settings()
        guard settings.runsToKeep != nil else { return false }
        signal(SIGPIPE, SIG_IGN)
        switch try await run(path: CommandLineTargets.defaultPath, settings: settings) {
        case .ended:
            log.debug("decided before the arguments were parsed")
            return true
        case .notTaken(let begun):
            handedOver.withLock { $0 = begun }
            return false
        }
    }

    /// A run ``endsBeforeParsing(_:)`` began and did not end, for the usual run to go on with.
    static func takeHandedOver() -> (journal: SQLiteJournal, recorder: JournalRecorder)? {
        handedOver.withLock { begun in
            defer { begun = nil }
            return begun
        }
    }

    private static let handedOver = Mutex<(journal: SQLiteJournal, recorder: JournalRecorder)?>(nil)

    private static func run(path: String, settings: Settings) async throws -> Outcome {
        let journalPath = JournalOptions.path(settings.journal, beside: JournalPrefetch.directory(ofFile: path))
        let key = absolutePath(path)
        // Any failure here is left to the usual run, which reports it. The file's digest
        // first, which needs no lock.
        guard FileManager.default.fileExists(atPath: journalPath), let journal = try? SQLiteJournal(path: journalPath),
              let version = try? journal.dataVersion(), let bytes = try? journal.upToDateState(workflow: key),
              let state = UpToDateState(decoding: bytes), state.sourceIsCurrent(path: path) else { return .notTaken(begun: nil) }
        ProcessLifetime.keep(state)
        let recorder = try await journal.recorder(waiting: !settings.noWait) {
            try journal.beginRun(workflow: key, info: RunInfo(only: [], keepGoing: settings.keepGoing).json)
        }
        // The files, once no other run can change them: holding the journal's lock. Another
        // process may have recorded a run meanwhile: the state is kept only while the
        // fingerprints it stands for are unchanged, so it is read again if anything was written
        // (nothing was if the journal's data version is the same).
        guard let now = try? journal.dataVersion(), now == version || (try? journal.upToDateState(workflow: key)) == bytes,
              state.filesAreCurrent() else {
            return .notTaken(begun: (journal, recorder))
        }
        defer {
            recorder.close()
            RunSession.deleteOldRuns(recorder: recorder, key: key, keep: settings.runsToKeep)
        }
        log.debug("every job is up to date, as the journal's up-to-date state says", metadata: ["files": "\(state.files.count)"])
        for warning in state.warnings { printError(warning) }
        let console = Console(descriptor: STDOUT_FILENO, isLive: Console.isTerminal(STDOUT_FILENO))
        RunSession.endUpToDate(jobs: state.names, path: path, recorder: recorder, console: console, verbose: settings.verbose, state: nil)
        return .ended
    }
}
