import Foundation
import Sequencer
import SequencerWorkflowFile

/// Follows a run's events and tells the console: a line per finished job (failures with their
/// command and output), and on a terminal a status line of the jobs running.
final class Progress: Sendable {
    private struct State: Sendable {
        var finished = 0
        var running: [JobID: ContinuousClock.Instant] = [:]
        var runningOrder: [JobID] = []
        var attempts: [String: [AttemptRecord]] = [:]
    }

    private let console: Console
    private let file: WorkflowFile
    private let jobs: [String: WorkflowFile.Job]
    private let verbose: Bool
    private let started = ContinuousClock.now
    private let state = Locked(State())

    init(console: Console, file: WorkflowFile, verbose: Bool) {
        self.console = console
        self.file = file
        self.verbose = verbose
        jobs = Dictionary(file.jobs.map { ($0.name, $0) }) { first, _ in first }
    }

    private var total: Int { file.jobs.count }

    /// Records an attempt as it ends, and says so when a failed attempt will be retried.
    func attemptEnded(_ record: AttemptRecord) {
        let finished = state.withLock { state in
            state.attempts[record.job, default: []].append(record)
            return state.finished
        }
        let failed = record.exit.map { !$0.succeeded } ?? true
        guard failed, !Task.isCancelled, let job = jobs[record.job], record.attempt < job.retry.maxAttempts else { return }
        console.line("[\(finished)/\(total)] \(record.job): attempt \(record.attempt) of \(job.retry.maxAttempts) failed "
                     + "(\(record.exitSummary)); retrying")
    }

    /// Reads events until the run finishes, redrawing the status line at most 20 times a second.
    func follow(_ events: AsyncStream<RunEvent>) async {
        let ticker = Task { [self] in
            while !Task.isCancelled {
                console.setStatus(statusLine())
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        for await event in events {
            switch event {
            case .started(let id):
                state.withLock {
                    $0.running[id] = .now
                    $0.runningOrder.append(id)
                }
            case .finished(let id, let status):
                finished(id, status)
            case .runFinished:
                break
            }
        }
        ticker.cancel()
        console.setStatus(nil)
    }

    private func finished(_ id: JobID, _ status: JobStatus) {
        let (count, began) = state.withLock { state in
            state.finished += 1
            let began = state.running.removeValue(forKey: id)
            if began != nil, let index = state.runningOrder.firstIndex(of: id) { state.runningOrder.remove(at: index) }
            return (state.finished, began)
        }
        // Most jobs print nothing on a terminal, and skipped ones nothing unless verbose: the
        // line is made only when it is printed.
        if (status == .skipped || status == .upToDate) && !verbose || status == .succeeded && console.isLive && !verbose { return }
        let elapsed = began.map { seconds(.now - $0) }
        let prefix = "[\(count)/\(total)]"
        let name = id.rawValue
        let attempts = state.withLock { $0.attempts[name] ?? [] }
        switch status {
        case .succeeded:
            guard verbose || !console.isLive else { return }
            let retried = attempts.count > 1 ? ", \(attempts.count) attempts" : ""
            console.line("\(prefix) done \(name)" + (elapsed.map { " (\($0)\(retried))" } ?? ""))
            if verbose, let last = attempts.last { printOutput(of: last, limit: 64 * 1024) }
        case .failed:
            let reason = attempts.last?.exitSummary ?? "failed"
            console.line("\(prefix) FAILED \(name) (\(reason)" + (elapsed.map { ", \($0)" } ?? "") + ")")
            printDetails(of: name, attempts: attempts)
        case .timedOut:
            let limit = jobs[name]?.timeout.map { " after \(seconds($0))" } ?? ""
            console.line("\(prefix) TIMED OUT \(name)\(limit)")
            printDetails(of: name, attempts: attempts)
        case .cancelled:
            console.line("\(prefix) cancelled \(name)" + (elapsed.map { " (after \($0))" } ?? ""))
        case .skipped:
            if verbose { console.line("\(prefix) skipped \(name)") }
        case .upToDate:
            if verbose { console.line("\(prefix) up to date \(name)") }
        }
    }

    /// The command, how each failed attempt ended, and the last attempt's output.
    private func printDetails(of name: String, attempts: [AttemptRecord]) {
        if let command = jobs[name]?.run {
            console.line("$ " + command.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  "))
        }
        if attempts.count > 1 {
            console.line("  \(attempts.count) attempts: " + attempts.map(\.exitSummary).joined(separator: ", "))
        }
        if let last = attempts.last { printOutput(of: last, limit: 16 * 1024) }
    }

    /// The end of an attempt's output (at most `limit` bytes), and where the rest is.
    private func printOutput(of attempt: AttemptRecord, limit: Int) {
        guard let handle = FileHandle(forReadingAtPath: attempt.outputPath) else { return }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        guard size > 0 else { return }
        let start = size > UInt64(limit) ? size - UInt64(limit) : 0
        try? handle.seek(toOffset: start)
        guard let data = try? handle.readToEnd() else { return }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        if start > 0 { console.line("  … (\(start) bytes cut; all of it is in \(attempt.outputPath))") }
        console.line(text)
    }


    /// `[12/40] 3.2s running: fetch-config, compile-main.c, +3 more`
    private func statusLine() -> String {
        let (count, running) = state.withLock { ($0.finished, $0.runningOrder) }
        var line = "[\(count)/\(total)] \(seconds(.now - started))"
        if !running.isEmpty {
            line += " running: " + running.prefix(4).map(\.rawValue).joined(separator: ", ")
            if running.count > 4 { line += ", +\(running.count - 4) more" }
        }
        return line
    }
}
