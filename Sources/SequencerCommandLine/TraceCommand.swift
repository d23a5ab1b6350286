import ArgumentParser
import Foundation
import SequencerRunner
import Sequencer
import SequencerBuild
import SequencerHistory
import SequencerOutput
import SequencerWorkflowFile

struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Print a recorded run as a Chrome trace (open it in Perfetto or chrome://tracing).",
        discussion: "Like `sequencer run --trace`, for a past run: `sequencer trace 12 > run.trace.json`."
    )

    @Argument(help: "The run: its number, or `last`.")
    var run: RunSelector = RunSelector(argument: "last")!

    @OptionGroup var source: HistoryOptions

    func run() async throws {
        let history = try await source.open()
        let record = try await self.run.find(in: history, workflow: source.workflow(in: history))
        write(Self.trace(of: record, graph: graph(of: record)).json(), to: STDOUT_FILENO)
    }

    /// The lanes, commands and needs to lay the run out with: the run's own graph when its
    /// history kept it (a ninja build's, say); else its workflow file's (a queue's run: the
    /// file given, when the run came from elsewhere), as it is now; else none (the attempts alone).
    private func graph(of record: RunRecord) -> HistoryGraph {
        if let graph = record.graph { return graph }
        let path = record.workflowFile ?? source.location.file
        if let file = try? WorkflowFile.load(path: path) { return HistoryGraph(file: file) }
        printError("warning: cannot read \(path) to lay out the trace: jobs are shown without lanes and needs")
        return HistoryGraph(lanes: [], jobs: [])
    }

    /// A run laid out with `graph`.
    static func trace(of record: RunRecord, graph: HistoryGraph) -> ChromeTrace {
        let run = record.run
        var statuses: [String: String] = [:]
        for job in record.jobs { statuses[job.name] = job.state.rawValue }
        var declared = graph.jobs.map { ChromeTrace.Job(name: $0.name, command: $0.run.isEmpty ? nil : $0.run, lane: $0.lane) }
        let known = Set(graph.jobs.map(\.name))
        declared += record.jobs.filter { !known.contains($0.name) }.map { ChromeTrace.Job(name: $0.name, command: nil, lane: nil) }
        return ChromeTrace(ChromeTrace.Input(
            title: "sequencer: \(run.workflow)",
            jobs: declared,
            lanes: graph.lanes.map(\.name),
            attempts: record.attempts.filter { !$0.refused }.map { attempt in
                ChromeTrace.Attempt(
                    job: attempt.job, attempt: attempt.attempt, startedAt: .nanoseconds(attempt.startedAt - run.startedAt),
                    endedAt: .nanoseconds(attempt.endedAt - run.startedAt), exit: attempt.exit, output: attempt.outputFile)
            },
            statuses: statuses,
            criticalPath: record.criticalPath(graph: graph)))
    }
}
