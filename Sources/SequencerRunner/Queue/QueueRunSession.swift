import Foundation
import Sequencer
import SequencerHistory
import SequencerProcess
package import SequencerQueue
package import SequencerWorkflowFile

/// `sequencer run --queue`: submits a workflow's jobs to a durable queue as one run, then
/// follows it (progress, the failed jobs' output, the summary, the exit status) until it ends.
/// Ctrl-C cancels the run everywhere; the run does not need this process to go on.
package struct QueueRunSession {
    /// The queue as it may be printed (a URL's password masked).
    package let location: String
    package let store: any RunStore
    /// Whether the ended run goes to the output's results as a JSON document.
    let json: Bool
    let output: RunnerOutput

    package init(location: String, store: any RunStore, json: Bool, output: RunnerOutput) {
        self.location = location
        self.store = store
        self.json = json
        self.output = output
    }

    private func say(_ line: String) { output.progress.line(line) }

    /// Submits the file's jobs as a new run; returns its ID.
    package func submit(_ file: WorkflowFile, info: String? = nil, force: Bool = false) async throws -> QueueRunID {
        let name = QueueShellJob.workflowName(of: file)
        let origin = "\(ProcessInfo.processInfo.hostName):\(absolutePath(file.path))"
        let live = try await store.runs(workflow: name, limit: 50).first { $0.state == .running && $0.origin != origin }
        if let other = live {
            throw RunnerError(.invalid, "error: --queue \(location): workflow '\(name)' (the name of its directory) has run \(other.id) going, submitted from \(other.origin); this file (\(origin)) is another workflow of the same name: rename one directory, or wait for that run")
        }
        for lane in file.lanes {
            try await store.setLane(QueueShellJob.lane(lane.name, ofWorkflow: name), width: lane.width)
        }
        let queue = DurableQueue(store: store)
        var batch = DurableQueue.Batch()
        var added: [String: DurableQueue.Batch.Job] = [:]
        var names: [String] = []
        for job in ShellWorkflow.needsFirst(file.jobs) {
            added[job.name] = try batch.add(
                QueueShellJob.kind(ofWorkflow: name, lane: job.lane), QueueShellJob(job, in: file, force: force), needs: job.needs.compactMap { added[$0.name] },
                priority: job.priority, lane: job.lane.map { QueueShellJob.lane($0, ofWorkflow: name) }, timeout: job.timeout, retry: job.retry)
            names.append(job.name)
        }
        let (run, _) = try await queue.createRun(NewQueueRun(workflow: name, origin: origin, info: info), jobs: batch, names: names)
        say("run \(run) of '\(name)' submitted to \(location): \(names.count) jobs for `sequencer worker --queue \(location)`; following it (Ctrl-C cancels it)")
        return run
    }

    /// Follows the run until it ends, every job having succeeded (or been up to date); SIGINT
    /// or SIGTERM cancels it.
    /// - Throws: ``RunnerError`` `.failed` when a job did not succeed, `.interrupted` when a
    ///   signal here cancelled it, `.invalid` when there is no such run.
    package func follow(_ run: QueueRunID) async throws {
        let cancelled = Locked(false)
        let store = store
        let interrupts = Interrupts(
            first: {
                cancelled.withLock { $0 = true }
                Task { _ = try? await store.cancelRun(run, now: QueueShellBody.now()) }
            },
            again: {})
        defer { interrupts.stop() }
        try await follow(run, cancelled: { cancelled.withLock { $0 } })
    }

    /// Follows the run until it ends; `cancelled` tells whether it was cancelled from here.
    package func follow(_ run: QueueRunID, cancelled: () -> Bool) async throws {
        guard try await store.run(run) != nil else {
            throw RunnerError(.invalid, "error: --queue \(location): there is no run \(run) (never submitted, or deleted)")
        }
        var seen: [DurableJobID: DurableJobState] = [:]
        // One read of the run's jobs per look; the run itself (its counts, whether it was
        // cancelled) is read once they have all ended. A look that finds nothing new doubles
        // the pause before the next, up to a second: a long job in a large run is not read
        // ten times a second.
        var pause = Self.firstPause
        while true {
            let jobs = try await store.jobs(of: run)
            let names = Dictionary(jobs.map { ($0.job.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            var changed = false
            for entry in jobs where seen[entry.job.id] != entry.job.state {
                seen[entry.job.id] = entry.job.state
                changed = true
                try await report(entry, names: names)
            }
            pause = changed ? Self.firstPause : min(pause * 2, .seconds(1))
            if !jobs.contains(where: { $0.job.state.isLive }) {
                guard let ended = try await store.run(run) else {
                    throw RunnerError(.invalid, "error: --queue \(location): run \(run) was deleted while it was followed")
                }
                if ended.state != .running {
                    summarize(ended)
                    if json, let record = try await QueueHistory(store: store, location: location).run(run.rawValue) {
                        output.results(jsonDocument(RunDocument(record)))
                    }
                    if cancelled() { throw RunnerError.interrupted }
                    guard ended.state == .succeeded else { throw RunnerError.failed }
                    return
                }
            }
            try await Task.sleep(for: pause)
        }
    }

    /// The pause between looks at a run whose jobs change.
    static let firstPause = Duration.milliseconds(100)

    /// A progress line for a job that changed state; a failed job's output after it.
    private func report(_ entry: QueueRunJob, names: [DurableJobID: String]) async throws {
        let job = entry.job
        let took = job.startedAt.flatMap { start in job.endedAt.map { seconds(.milliseconds($0 - start)) } } ?? ""
        switch job.state {
        case .running: say("started \(entry.name) on \(job.owner ?? "a worker")")
        case .succeeded where job.result(as: Int.self) == QueueShellBody.upToDate: say("up to date \(entry.name)")
        case .succeeded: say("ok \(entry.name) \(took)")
        case .failed:
            var lines = "FAILED \(entry.name) \(took): \(job.error ?? "failed") (attempt \(job.attempts))"
            if let printed = try await store.output(of: job.id, attempt: nil), !printed.isEmpty {
                var text = String(decoding: printed, as: UTF8.self)
                if text.hasSuffix("\n") { text.removeLast() }
                lines += "\n" + text
            }
            say(lines)
        case .skipped:
            let need = job.cause.flatMap { names[$0] }.map { "'\($0)'" } ?? "a job"
            say("skipped \(entry.name): \(need), which it needs, did not succeed")
        case .cancelled: say("cancelled \(entry.name)")
        case .waiting, .available: break
        }
    }

    private func summarize(_ run: QueueRun) {
        let parts = DurableJobState.allCases.compactMap { state in run.counts[state].map { "\($0) \(state)" } }
        let took = run.endedAt.map { seconds(.milliseconds($0 - run.createdAt)) } ?? ""
        say("run \(run.id) \(run.state.rawValue): \(parts.joined(separator: ", ")) in \(took)")
    }
}
