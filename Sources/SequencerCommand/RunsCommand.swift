import ArgumentParser
import SequencerJournal

struct RunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the runs recorded in the journal, newest first.",
        discussion: "A run whose process died (killed, or the machine stopped) shows as interrupted: `sequencer resume` finishes it."
    )

    @OptionGroup var location: JournalLocation

    @Flag(help: "List the runs of every workflow file in the journal, not only this one's.")
    var all = false

    @Option(help: "The most runs to list.")
    var limit = 20

    @Flag(help: "Print the runs as JSON.")
    var json = false

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "List the runs submitted to this durable queue instead (default: $SEQUENCER_QUEUE when set).", valueName: "location"))
    var queueLocation: String?

    /// A run as `runs --json` and `show --json` print it. Its counts add up to its jobs for a
    /// run that ended: succeeded + upToDate + failed + skipped + cancelled + timedOut = jobs
    /// (`unfinished` counts the jobs of an interrupted run that never ended).
    struct Entry: Encodable {
        let run: JournalRun
        let state: String
        let duration: Double?
        /// The up-to-date jobs (the run's row counts them with the skipped ones).
        let upToDate: Int
        enum CodingKeys: String, CodingKey {
            case id, workflow, state, startedAt, endedAt, duration, jobs, succeeded, upToDate, failed, skipped, cancelled, timedOut, unfinished
            case sessions
        }

        /// Jobs skipped for another reason than being up to date (a needed job failed).
        var skipped: Int { max(0, run.skipped - upToDate) }
        /// Jobs that have not ended: those still running or never started, in an interrupted run.
        var unfinished: Int { max(0, run.jobCount - run.succeeded - run.failed - run.skipped - run.cancelled - run.timedOut) }

        /// The counts that are not 0, for people: `5 succeeded, 1 up to date`.
        var countsText: String {
            let counts = [
                (run.succeeded, "succeeded"), (upToDate, "up to date"), (run.failed, "failed"), (skipped, "skipped"),
                (run.cancelled, "cancelled"), (run.timedOut, "timed out"), (unfinished, "unfinished"),
            ]
            let shown = counts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            return shown.isEmpty ? "no jobs" : shown.joined(separator: ", ")
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(run.id, forKey: .id)
            try container.encode(run.workflow, forKey: .workflow)
            try container.encode(state, forKey: .state)
            try container.encode(Double(run.startedAt) / 1e9, forKey: .startedAt)
            try container.encodeIfPresent(run.endedAt.map { Double($0) / 1e9 }, forKey: .endedAt)
            try container.encodeIfPresent(duration, forKey: .duration)
            try container.encode(run.jobCount, forKey: .jobs)
            try container.encode(run.succeeded, forKey: .succeeded)
            try container.encode(upToDate, forKey: .upToDate)
            try container.encode(run.failed, forKey: .failed)
            try container.encode(skipped, forKey: .skipped)
            try container.encode(run.cancelled, forKey: .cancelled)
            try container.encode(run.timedOut, forKey: .timedOut)
            try container.encode(unfinished, forKey: .unfinished)
            try container.encode(run.sessions, forKey: .sessions)
        }
    }

    func run() async throws {
        if let queue = QueueOptions.location(queueLocation) {
            let workflow = all ? nil : QueueShellJob.workflowName(ofFile: location.file)
            return try await QueueHistory.listRuns(try await QueueLocation.open(queue, create: false), location: QueueLocation.shown(queue), workflow: workflow, limit: max(1, limit), json: json)
        }
        let journal = try location.open()
        let runs: [JournalRun]
        do {
            runs = try journal.runs(workflow: all ? nil : location.workflowKey, limit: max(1, limit))
        } catch {
            throw journalFailure(error)
        }
        // The run another process records (a resumed older run as well as the newest).
        let recording = try? journal.recordingRun()
        let counts: [Int64: JournalJobCounts]
        do {
            counts = try journal.jobCounts(of: runs.map(\.id))
        } catch {
            throw journalFailure(error)
        }
        let entries = runs.map { run in
            Entry(
                run: run, state: run.state(recordingRun: recording), duration: run.duration,
                upToDate: counts[run.id]?.upToDate ?? 0)
        }
        if json { return printJSON(entries) }
        guard !entries.isEmpty else {
            print("no runs of \(location.workflowKey) in \(journal.path)" + (all ? "" : " (--all lists every file's)"))
            return
        }
        var rows = [["RUN", "STATE", "STARTED", "TIME", "JOBS", "OK", "UP-TO-DATE", "FAILED", "SKIPPED", "FILE"]]
        for entry in entries {
            let run = entry.run
            rows.append([
                "#\(run.id)", entry.state, timestamp(run.startedAt), seconds(entry.duration), "\(run.jobCount)",
                "\(run.succeeded)", "\(entry.upToDate)", "\(run.failed + run.timedOut + run.cancelled)", "\(entry.skipped)", run.workflow,
            ])
        }
        print(table(rows))
    }
}
