import ArgumentParser
import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
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

    @OptionGroup var location: JournalLocation

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "Trace a run submitted to this durable queue instead, from its workers' attempt log (default: $SEQUENCER_QUEUE when set).",
        valueName: "location"))
    var queueLocation: String?

    func run() async throws {
        if let queue = QueueOptions.location(queueLocation) {
            let store = try await QueueLocation.open(queue, create: false)
            let found = try await QueueHistory.find(
                run, workflow: QueueShellJob.workflowName(ofFile: location.file), in: store, location: QueueLocation.shown(queue))
            // The local file gives lanes and needs; without it, the trace has the attempts alone.
            let file = (try? WorkflowFile.load(path: location.file)) ?? (try? WorkflowFile.parse("version: 1\njobs: {}\n", path: location.file))
            guard let file else { throw ExitCode(ExitStatus.failed) }
            return write(try await QueueCommands.trace(found, store: store, file: file), to: STDOUT_FILENO)
        }
        let recorded = try location.read(self.run)
        let (run, jobs, attempts) = (recorded.run, recorded.jobs, recorded.attempts)
        // The run's own graph when the journal kept it (a ninja build's, say): lanes, commands
        // and needs as they were. Else the file gives them; a file that changed or is gone gives less.
        if let graph = try? recorded.journal.graph(of: run) {
            return write(Self.trace(of: run, jobs: jobs, attempts: attempts, graph: graph).json(), to: STDOUT_FILENO)
        }
        let file = (try? WorkflowFile.load(path: run.workflow))
            ?? (try? WorkflowFile.parse("version: 1\njobs: {}\n", path: run.workflow))
        guard let file else {
            printError("error: cannot read \(run.workflow) to lay out the trace")
            throw ExitCode(ExitStatus.failed)
        }
        let records = attempts.map { attempt in
            AttemptRecord(
                job: attempt.job, attempt: attempt.attempt, startedAt: .nanoseconds(attempt.startedAt - run.startedAt),
                endedAt: .nanoseconds(attempt.endedAt - run.startedAt),
                exit: attempt.exitCode.map { .exited(Int32($0)) } ?? attempt.signal.map { .signaled(Int32($0)) },
                startError: attempt.exitCode == nil && attempt.signal == nil ? attempt.exit : nil,
                outputPath: attempt.output ?? "")
        }
        var statuses: [String: String] = [:]
        for job in jobs { statuses[job.name] = job.status }
        let trace = ChromeTrace(
            file: file, attempts: records, statuses: statuses, criticalPath: RecordedCriticalPath.steps(jobs: jobs, file: file, runStart: run.startedAt))
        write(trace.json(), to: STDOUT_FILENO)
    }

    /// A run laid out from the graph the journal kept with it.
    static func trace(of run: JournalRun, jobs: [JournalJob], attempts: [JournalAttempt], graph: JournalGraph) -> ChromeTrace {
        var statuses: [String: String] = [:]
        for job in jobs { statuses[job.name] = job.status }
        return ChromeTrace(ChromeTrace.Input(
            title: "sequencer: \(run.workflow)",
            jobs: graph.jobs.map { ChromeTrace.Job(name: $0.name, command: $0.run.isEmpty ? nil : $0.run, lane: $0.lane) },
            lanes: graph.lanes.map(\.name),
            attempts: attempts.map { attempt in
                ChromeTrace.Attempt(
                    job: attempt.job, attempt: attempt.attempt, startedAt: .nanoseconds(attempt.startedAt - run.startedAt),
                    endedAt: .nanoseconds(attempt.endedAt - run.startedAt), exit: attempt.exit, output: attempt.output)
            },
            statuses: statuses,
            criticalPath: RecordedCriticalPath.steps(jobs: jobs, graph: graph, runStart: run.startedAt)))
    }
}
