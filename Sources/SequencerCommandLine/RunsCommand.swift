import ArgumentParser
import SequencerRunner
import SequencerHistory

struct RunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the runs recorded in the journal (or submitted to a queue), newest first.",
        discussion: """
            A run whose process died (killed, or the machine stopped) shows as interrupted: `sequencer resume` finishes it. \
            FAILED counts the jobs that failed or timed out; cancelled and skipped jobs have columns of their own.
            """
    )

    @OptionGroup var source: HistoryOptions

    @Flag(help: "List the runs of every workflow, not only this file's.")
    var all = false

    @Option(help: "The most runs to list.")
    var limit = 20

    @Flag(help: "Print the runs as JSON.")
    var json = false

    func run() async throws {
        let history = try await source.open()
        let workflow = all ? nil : source.workflow(in: history)
        let runs = try await reading { try await history.runs(RunQuery(workflow: workflow, limit: max(1, limit))).runs }
        if json { return printJSON(runs.map(RunEntry.init)) }
        guard !runs.isEmpty else {
            print("no runs of \(workflow ?? "any workflow") in the \(history.name)" + (all ? "" : " (--all lists every workflow's)"))
            return
        }
        var rows = [["RUN", "STATE", "STARTED", "TIME", "JOBS", "OK", "UP-TO-DATE", "FAILED", "CANCELLED", "SKIPPED", "WORKFLOW"]]
        for run in runs {
            let counts = run.counts
            rows.append([
                "#\(run.id)", run.state.rawValue, timestamp(run.startedAt), seconds(run.duration), "\(counts.jobs)",
                "\(counts.succeeded)", "\(counts.upToDate)", "\(counts.failures)", "\(counts.cancelled)", "\(counts.skipped)", run.workflow,
            ])
        }
        print(table(rows))
    }
}
