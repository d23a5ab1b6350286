import ArgumentParser
import Foundation
import SequencerQueue

/// `runs` and `show` against a durable queue (`--queue`): the runs that `sequencer run --queue`
/// submitted, read from any machine.
enum QueueHistory {
    struct RunEntry: Encodable {
        var id: Int64
        var workflow: String
        var origin: String
        var state: String
        var createdAt: Double
        var endedAt: Double?
        var duration: Double?
        var counts: [String: Int]

        init(_ run: QueueRun) {
            id = run.id.rawValue
            workflow = run.workflow
            origin = run.origin
            state = run.state.rawValue
            createdAt = Double(run.createdAt) / 1000
            endedAt = run.endedAt.map { Double($0) / 1000 }
            duration = run.endedAt.map { Double($0 - run.createdAt) / 1000 }
            counts = Dictionary(uniqueKeysWithValues: run.counts.map { ("\($0.key)", $0.value) })
        }
    }

    static func listRuns(_ store: any RunStore, location: String, workflow: String?, limit: Int, json: Bool) async throws {
        let runs = try await store.runs(workflow: workflow, limit: limit).map(RunEntry.init)
        if json { return printJSON(runs) }
        guard !runs.isEmpty else {
            print("no runs" + (workflow.map { " of workflow '\($0)'" } ?? "") + " in the queue \(location)")
            return
        }
        var rows = [["RUN", "STATE", "STARTED", "TIME", "JOBS", "OK", "FAILED", "SKIPPED", "WORKFLOW"]]
        for run in runs {
            let failed = ["failed", "cancelled"].compactMap { run.counts[$0] }.reduce(0, +)
            rows.append([
                "#\(run.id)", run.state, timestamp(Int64(run.createdAt * 1e9)), seconds(run.duration), "\(run.counts.values.reduce(0, +))",
                "\(run.counts["succeeded"] ?? 0)", "\(failed)", "\(run.counts["skipped"] ?? 0)", run.workflow,
            ])
        }
        print(table(rows))
    }

    struct JobEntry: Encodable {
        var name: String
        var state: String
        var attempts: Int
        var error: String?
        var duration: Double?
        var exit: String?
        var worker: String?
    }

    /// A run with its jobs: what `show --queue --json` and `run --queue --json` print. The run's
    /// keys are those of `runs --json`, with its ID also as `run`.
    struct Document: Encodable {
        var run: RunEntry
        var jobs: [JobEntry]

        init(_ run: QueueRun, jobs: [JobEntry]) {
            self.run = RunEntry(run)
            self.jobs = jobs
        }

        private enum Keys: String, CodingKey { case run, jobs }

        func encode(to encoder: any Encoder) throws {
            try run.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(run.id, forKey: .run)
            try container.encode(jobs, forKey: .jobs)
        }
    }

    /// The run's jobs with their last attempts (time, exit, worker).
    static func jobEntries(of run: QueueRunID, in store: any RunStore, jobs: [QueueRunJob]) async throws -> [JobEntry] {
        let attempts = try await store.attempts(of: run)
        let last = Dictionary(attempts.map { ($0.job, $0) }) { a, b in a.attempt > b.attempt || (a.attempt == b.attempt && a.endedAt > b.endedAt) ? a : b }
        return jobs.map { entry in
            let attempt = last[entry.job.id]
            return JobEntry(
                name: entry.name, state: "\(entry.job.state)", attempts: entry.job.attempts, error: entry.job.error,
                duration: attempt.map { Double($0.endedAt - $0.startedAt) / 1000 }, exit: attempt?.summary, worker: attempt?.worker)
        }
    }

    /// The run `selector` names, or the newest of `workflow`; a usage error when there is none.
    static func find(_ selector: RunSelector, workflow: String, in store: any RunStore, location: String) async throws -> QueueRun {
        let found: QueueRun?
        if let id = selector.id {
            found = try await store.run(QueueRunID(id))
        } else {
            found = try await store.runs(workflow: workflow, limit: 1).first
        }
        guard let run = found else {
            printError("error: the queue \(location) has no " + (selector.id.map { "run #\($0)" } ?? "run of workflow '\(workflow)'"))
            throw ExitCode(ExitStatus.invalid)
        }
        return run
    }

    static func show(
        _ store: any RunStore, location: String, selector: RunSelector, workflow: String, output: String?, json: Bool
    ) async throws {
        let run = try await find(selector, workflow: workflow, in: store, location: location)
        let jobs = try await store.jobs(of: run.id)
        if let output {
            guard let job = jobs.first(where: { $0.name == output }) else {
                printError("error: run #\(run.id) has no job '\(output)'")
                throw ExitCode(ExitStatus.invalid)
            }
            if let data = try await store.output(of: job.job.id, attempt: nil) { FileHandle.standardOutput.write(data) }
            return
        }
        let entries = try await jobEntries(of: run.id, in: store, jobs: jobs)
        if json { return printJSON(Document(run, jobs: entries)) }
        print("run #\(run.id) of \(run.workflow) (from \(run.origin)): \(run.state.rawValue), \(jobs.count) jobs, started \(timestamp(run.createdAt * 1_000_000))"
              + (run.endedAt.map { ", took \(seconds(Double($0 - run.createdAt) / 1000))" } ?? ""))
        var rows = [["JOB", "STATE", "ATTEMPTS", "EXIT", "TIME", "WORKER"]]
        for job in entries {
            rows.append([job.name, job.state, "\(job.attempts)", job.exit ?? "-", seconds(job.duration), job.worker ?? "-"])
        }
        print(table(rows))
        for job in entries where job.state == "failed" || job.state == "skipped" {
            print("\(job.name): \(job.error ?? job.state)")
        }
    }
}
