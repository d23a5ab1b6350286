import Foundation
package import SequencerQueue
package import SequencerWorkflowFile

extension QueueRunSession {
    /// `resume RUN --queue`: submits, as a new run, the jobs of `file` that did not succeed in
    /// `run` (needs on jobs that did are dropped: they are done), and follows it. A run still
    /// going is followed instead, as `run --attach` does (its submitter was killed).
    /// - Throws: ``RunnerError``, as ``follow(_:)`` does; `.invalid` when there is no such run.
    package func resume(_ id: QueueRunID, file: WorkflowFile) async throws {
        guard let run = try await store.run(id) else {
            throw RunnerError(.invalid, "error: --queue \(location): there is no run #\(id)")
        }
        if run.state == .running {
            output.progress.line("run \(run.id) of '\(run.workflow)' is still running: following it")
            return try await follow(run.id)
        }
        guard run.state != .succeeded else {
            output.progress.line("run \(run.id) of '\(run.workflow)' succeeded: nothing to resume")
            return
        }
        // What succeeded in this run, and in the runs it resumed.
        var succeeded: Set<String> = []
        var next: QueueRun? = run
        var seen: Set<QueueRunID> = []
        while let current = next, seen.insert(current.id).inserted {
            succeeded.formUnion(try await store.jobs(of: current.id).filter { $0.job.state == .succeeded }.map(\.name))
            if let previous = Self.resumed(by: current) { next = try await store.run(previous) } else { next = nil }
        }
        var rest = file
        rest.jobs = file.jobs.filter { !succeeded.contains($0.name) }.map { job in
            var job = job
            job.needs = job.needs.filter { !succeeded.contains($0.name) }
            return job
        }
        guard !rest.jobs.isEmpty else {
            output.progress.line("run \(run.id) of '\(run.workflow)': every job succeeded; nothing to resume")
            return
        }
        let info = String(decoding: try JSONEncoder().encode(Resumption(resumes: run.id.rawValue)), as: UTF8.self)
        try await follow(try await submit(rest, info: info))
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
