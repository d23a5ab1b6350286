import ArgumentParser
import Foundation
import SequencerJournal
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

    func run() async throws {
        let recorded = try location.read(self.run)
        let (run, jobs, attempts) = (recorded.run, recorded.jobs, recorded.attempts)
        // The file gives lanes, commands and needs; a file that changed or is gone gives less.
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
        for job in jobs { statuses[job.name] = job.code == "upToDate" ? "upToDate" : job.status }
        let trace = ChromeTrace(
            file: file, attempts: records, statuses: statuses, criticalPath: Self.criticalPath(jobs: jobs, file: file))
        write(trace.json(), to: STDOUT_FILENO)
    }

    /// The job that ended last, the need it waited for that ended last, and so on: in order.
    static func criticalPath(jobs: [JournalJob], file: WorkflowFile) -> [String] {
        var ends: [String: Int64] = [:]
        for job in jobs { if let end = job.endedAt, job.startedAt != nil { ends[job.name] = end } }
        var needs: [String: [String]] = [:]
        for job in file.jobs { needs[job.name] = job.needs.map(\.name) }
        guard var current = ends.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key else { return [] }
        var path = [current]
        var seen: Set<String> = [current]
        while let next = (needs[current] ?? []).filter({ ends[$0] != nil && !seen.contains($0) })
            .max(by: { (ends[$0] ?? 0, $1) < (ends[$1] ?? 0, $0) }) {
            path.append(next)
            seen.insert(next)
            current = next
        }
        return path.reversed()
    }
}
