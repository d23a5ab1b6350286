import ArgumentParser
import Foundation
import SequencerJournal

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a recorded run: each job's outcome, attempts, exit and time.",
        discussion: "RUN is a run's number (see `sequencer runs`), or `last`."
    )

    @Argument(help: "The run: its number, or `last`.")
    var run: RunSelector = RunSelector(argument: "last")!

    @OptionGroup var location: JournalLocation

    @Option(help: ArgumentHelp("Print the output of this job's last attempt instead.", valueName: "job"))
    var output: String?

    @Flag(help: "Print the run as JSON.")
    var json = false

    @Flag(help: "Also print why each job ran, as `run --explain` did (kept in the journal for every run).")
    var explain = false

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "Show a run submitted to this durable queue instead (default: $SEQUENCER_QUEUE when set).", valueName: "location"))
    var queueLocation: String?

    struct Document: Encodable {
        let run: RunsCommand.Entry
        let jobs: [Job]
    }

    struct Job: Encodable {
        let name: String
        let status: String
        let code: String?
        let error: String?
        let attempts: Int
        let duration: Double?
        let exit: String?
        let exitCode: Int?
        let output: String?
        /// Why it ran, in `--explain`'s words; absent when it was not checked or was up to date.
        let reason: String?
        /// Its fingerprint when it was checked.
        let fingerprint: String?
    }

    func run() async throws {
        if let queue = QueueOptions.location(queueLocation) {
            return try await QueueHistory.show(
                try await QueueLocation.open(queue, create: false), location: QueueLocation.shown(queue), selector: run, workflow: QueueShellJob.workflowName(ofFile: location.file),
                output: output, json: json)
        }
        let recorded = try location.read(self.run)
        let (journal, run, jobs, attempts) = (recorded.journal, recorded.run, recorded.jobs, recorded.attempts)
        let lastAttempt = Dictionary(attempts.map { ($0.job, $0) }) { a, b in a.attempt > b.attempt ? a : b }
        if let output { return try printOutput(of: output, in: run, jobs: jobs, lastAttempt: lastAttempt) }

        let state = run.state(recordingRun: try? journal.recordingRun())
        // Supplementary: the run's records were read above, so a journal that cannot give its
        // checks has lost only the reasons.
        let checks = (try? journal.jobChecks(of: run.id).jobs) ?? [:]
        let entries = jobs.map { job in
            let attempt = lastAttempt[job.name]
            return Job(
                name: job.name, status: job.status, code: job.code, error: job.error,
                attempts: job.attempts, duration: job.duration, exit: attempt?.exit, exitCode: attempt?.exitCode,
                output: attempt?.output, reason: checks[job.name]?.reason, fingerprint: checks[job.name]?.fingerprint)
        }
        let counted = RunsCommand.Entry(
            run: run, state: state, duration: run.duration, upToDate: jobs.count { $0.status == "upToDate" })
        if json { return printJSON(Document(run: counted, jobs: entries)) }
        let sessions = run.sessions > 1 ? ", \(run.sessions) sessions" : ""
        print("run #\(run.id) of \(run.workflow): \(state), \(run.jobCount) jobs, started \(timestamp(run.startedAt))"
              + (run.duration.map { ", took \(seconds($0))" } ?? "") + sessions)
        var rows = [["JOB", "STATUS", "ATTEMPTS", "EXIT", "TIME"]]
        for job in entries {
            let status = job.status == "upToDate" ? "up to date" : job.status
            rows.append([job.name, status, "\(job.attempts)", job.exit ?? "-", seconds(job.duration)])
        }
        print(table(rows))
        print("jobs: \(counted.countsText)")
        for job in entries where job.status == "failed" || job.status == "timedOut" {
            print("\(job.name): \(job.error ?? job.status)")
        }
        if jobs.count < run.jobCount {
            print("\(run.jobCount - jobs.count) job(s) never started")
        }
        if explain {
            for job in entries {
                if let reason = job.reason { print("explain: \(job.name) runs: \(reason)") }
            }
        }
    }

    private func printOutput(
        of name: String, in run: JournalRun, jobs: [JournalJob], lastAttempt: [String: JournalAttempt]
    ) throws {
        guard let attempt = lastAttempt[name] else {
            let known = jobs.contains { $0.name == name }
            printError("error: run #\(run.id) " + (known ? "has no output of job '\(name)' (it never ran a command)" : "has no job '\(name)'"))
            throw ExitCode(ExitStatus.invalid)
        }
        guard let path = attempt.output else { return }  // it printed nothing
        guard let handle = FileHandle(forReadingAtPath: path) else {
            printError("error: the output of '\(name)' in run #\(run.id) is gone: \(path) (sequencer gc deletes old runs' output)")
            throw ExitCode(ExitStatus.failed)
        }
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            FileHandle.standardOutput.write(chunk)
        }
    }
}
