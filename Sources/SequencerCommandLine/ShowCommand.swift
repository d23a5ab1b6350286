import ArgumentParser
import Foundation
import SequencerRunner
import SequencerHistory

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a recorded run: each job's outcome, attempts, exit and time.",
        discussion: "RUN is a run's number (see `sequencer runs`), or `last`."
    )

    @Argument(help: "The run: its number, or `last`.")
    var run: RunSelector = RunSelector(argument: "last")!

    @OptionGroup var source: HistoryOptions

    @Option(help: ArgumentHelp("Print the output of this job's last attempt instead.", valueName: "job"))
    var output: String?

    @Flag(help: "Print the run as JSON.")
    var json = false

    @Flag(help: "Also print why each job ran, as `run --explain` did (kept in the journal for every run).")
    var explain = false

    func run() async throws {
        let history = try await source.open()
        let record = try await self.run.find(in: history, workflow: source.workflow(in: history))
        if let output { return try await printOutput(of: output, in: record, history: history) }
        let document = RunDocument(record)
        if json { return printJSON(document) }
        let run = record.run
        let sessions = run.sessions > 1 ? ", \(run.sessions) sessions" : ""
        print("run #\(run.id) of \(run.workflow)" + (run.origin.map { " (from \($0))" } ?? "")
              + ": \(run.state), \(run.counts.jobs) jobs, started \(timestamp(run.startedAt))"
              + (run.duration.map { ", took \(seconds($0))" } ?? "") + sessions)
        // A queue's runs say which worker ran each job.
        let workers = document.jobs.contains { $0.worker != nil }
        var rows = [["JOB", "STATUS", "ATTEMPTS", "EXIT", "TIME"] + (workers ? ["WORKER"] : [])]
        for job in document.jobs {
            let status = job.restoredFrom != nil ? "restored" : job.status == JobState.upToDate.rawValue ? "up to date" : job.status
            rows.append([job.name, status, "\(job.attempts)", job.exit ?? "-", seconds(job.duration)] + (workers ? [job.worker ?? "-"] : []))
        }
        print(table(rows))
        let restored = document.jobs.filter { $0.restoredFrom != nil }.count
        print("jobs: \(run.counts.text)" + (restored > 0 ? " (restored from the cache: \(restored) of the succeeded)" : ""))
        for job in record.jobs where job.state == .failed || job.state == .timedOut {
            print("\(job.name): \(job.error ?? job.state.rawValue)")
        }
        if record.jobs.count < run.counts.jobs {
            print("\(run.counts.jobs - record.jobs.count) job(s) never started")
        }
        if explain {
            for job in record.jobs {
                if let reason = job.reason { print("explain: \(job.name) runs: \(reason)") }
            }
        }
    }

    private func printOutput(of name: String, in record: RunRecord, history: any RunHistory) async throws {
        let run = record.run.id
        guard let attempt = record.lastAttempts[name] else {
            let known = record.jobs.contains { $0.name == name } || record.names.contains(name)
            printError("error: run #\(run) " + (known ? "has no output of job '\(name)' (it never ran a command)" : "has no job '\(name)'"))
            throw ExitCode(ExitStatus.invalid)
        }
        switch try await reading({ try await history.output(of: attempt, in: record, last: nil) }) {
        case .nothing: return
        case .gone(let why):
            printError("error: run #\(run), job '\(name)': \(why)")
            throw ExitCode(ExitStatus.failed)
        case .bytes(let data, _): FileHandle.standardOutput.write(data)
        }
    }
}
