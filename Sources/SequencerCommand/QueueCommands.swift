import ArgumentParser
import Foundation
import Sequencer
import SequencerBuild
import SequencerOutput
import SequencerQueue
import SequencerWorkflowFile

/// `gc` and `resume` against a durable queue (`--queue`), as they work against the
/// journal.
enum QueueCommands {
    /// `gc --queue`: deletes the ended runs beyond the newest `keep` of each workflow, with their
    /// jobs and attempt logs (their output). Running runs are kept.
    static func collect(_ store: any RunStore, location: String, keep: Int, json: Bool) async throws {
        let deleted = try await store.deleteRuns(keeping: keep, workflow: nil)
        struct Result: Encodable {
            let deletedRuns: [Int64]
            let keptPerWorkflow: Int
        }
        if json { return printJSON(Result(deletedRuns: deleted.map(\.id.rawValue), keptPerWorkflow: keep)) }
        print("deleted \(deleted.count) run\(deleted.count == 1 ? "" : "s") from the queue \(location), with their jobs and output; kept the newest \(keep) of each workflow")
    }

    /// `resume RUN --queue`: submits, as a new run, the jobs of the local file that did not
    /// succeed in RUN (needs on jobs that did are dropped: they are done), and follows it.
    /// A run still going is followed instead, as `run --attach` does (its submitter was killed).
    static func resume(_ run: QueueRun, session: QueueRunSession, file: WorkflowFile) async throws -> Int32 {
        if run.state == .running {
            write("run \(run.id) of '\(run.workflow)' is still running: following it\n", to: session.progress)
            return try await session.follow(run.id)
        }
        guard run.state != .succeeded else {
            print("run \(run.id) of '\(run.workflow)' succeeded: nothing to resume")
            return ExitStatus.succeeded
        }
        // What succeeded in this run, and in the runs it resumed.
        var succeeded: Set<String> = []
        var next: QueueRun? = run
        var seen: Set<QueueRunID> = []
        while let current = next, seen.insert(current.id).inserted {
            succeeded.formUnion(try await session.store.jobs(of: current.id).filter { $0.job.state == .succeeded }.map(\.name))
            if let previous = resumed(by: current) { next = try await session.store.run(previous) } else { next = nil }
        }
        var rest = file
        rest.jobs = file.jobs.filter { !succeeded.contains($0.name) }.map { job in
            var job = job
            job.needs = job.needs.filter { !succeeded.contains($0.name) }
            return job
        }
        guard !rest.jobs.isEmpty else {
            print("run \(run.id) of '\(run.workflow)': every job succeeded; nothing to resume")
            return ExitStatus.succeeded
        }
        let resumed = try await session.submit(rest, info: String(decoding: try JSONEncoder().encode(Resumption(resumes: run.id.rawValue)), as: UTF8.self))
        return try await session.follow(resumed)
    }

    /// A run's `info` when it resumes another.
    struct Resumption: Codable {
        var resumes: Int64
    }

    /// The run that `run` resumed, if it did.
    static func resumed(by run: QueueRun) -> QueueRunID? {
        guard let info = run.info, let resumption = try? JSONDecoder().decode(Resumption.self, from: Data(info.utf8)) else { return nil }
        return QueueRunID(resumption.resumes)
    }
}
