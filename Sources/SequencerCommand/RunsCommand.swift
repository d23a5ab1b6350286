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

    struct Entry: Encodable {
        let run: JournalRun
        let state: String
        let duration: Double?
        enum CodingKeys: String, CodingKey { case id, workflow, state, startedAt, endedAt, duration, jobs, succeeded, failed, skipped, cancelled, timedOut, sessions }
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
            try container.encode(run.failed, forKey: .failed)
            try container.encode(run.skipped, forKey: .skipped)
            try container.encode(run.cancelled, forKey: .cancelled)
            try container.encode(run.timedOut, forKey: .timedOut)
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
        let entries = runs.map { run in
            Entry(run: run, state: run.state(recordingRun: recording), duration: run.duration)
        }
        if json { return printJSON(entries) }
        guard !entries.isEmpty else {
            print("no runs of \(location.workflowKey) in \(journal.path)" + (all ? "" : " (--all lists every file's)"))
            return
        }
        var rows = [["RUN", "STATE", "STARTED", "TIME", "JOBS", "OK", "FAILED", "SKIPPED", "FILE"]]
        for entry in entries {
            let run = entry.run
            rows.append([
                "#\(run.id)", entry.state, timestamp(run.startedAt), seconds(entry.duration), "\(run.jobCount)",
                "\(run.succeeded)", "\(run.failed + run.timedOut + run.cancelled)", "\(run.skipped)", run.workflow,
            ])
        }
        print(table(rows))
    }
}
