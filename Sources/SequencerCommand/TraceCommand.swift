import ArgumentParser
import Foundation
import Sequencer
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
        for job in jobs { statuses[job.name] = job.status }
        let trace = ChromeTrace(
            file: file, attempts: records, statuses: statuses, criticalPath: Self.criticalPath(jobs: jobs, file: file, runStart: run.startedAt))
        write(trace.json(), to: STDOUT_FILENO)
    }

    /// The run's critical path, by the library's rule (``CriticalPath``) over the journal's
    /// times and the file's needs and lanes: the same path the run itself reported.
    static func criticalPath(jobs: [JournalJob], file: WorkflowFile, runStart: Int64) -> [CriticalPath.Step] {
        var declared: [String: WorkflowFile.Job] = [:]
        for job in file.jobs where declared[job.name] == nil { declared[job.name] = job }
        func offset(_ time: Int64?) -> Duration? { time.map { .nanoseconds($0 - runStart) } }
        let schedule = jobs.map { job in
            CriticalPath.Job(
                id: JobID(job.name), needs: declared[job.name]?.needs.map { JobID($0.name) } ?? [],
                lane: declared[job.name]?.lane, parent: job.parent.map { JobID($0) },
                startedAt: offset(job.startedAt), endedAt: offset(job.endedAt ?? job.startedAt),
                tookNoTime: job.status == "upToDate")
        }
        return CriticalPath.steps(of: schedule)
    }
}
