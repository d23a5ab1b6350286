import Foundation
import Sequencer
import SequencerWorkflowFile

/// Follows a run's events and tells the console: a line per finished job (failures with their
/// command and output, successes with their output if they printed any), and on a terminal a
/// status line of the jobs running.
final class Progress: Sendable {
    private struct State: Sendable {
        var finished = 0
        var running: [JobID: ContinuousClock.Instant] = [:]
        var runningOrder: [JobID] = []
    }

    private let console: Console
    private let file: WorkflowFile
    private let jobs: [String: WorkflowFile.Job]
    private let verbose: Bool
    private let showsSuccessOutput: Bool
    private let started = ContinuousClock.now
    private let state = Locked(State())

    /// - Parameters:
    ///   - verbose: print a line for every job, skipped and successful ones too.
    ///   - showsSuccessOutput: print the output of a job that succeeded, if it printed any.
    init(console: Console, file: WorkflowFile, verbose: Bool, showsSuccessOutput: Bool) {
        self.console = console
        self.file = file
        self.verbose = verbose
        self.showsSuccessOutput = showsSuccessOutput
        jobs = Dictionary(file.jobs.map { ($0.name, $0) }) { first, _ in first }
    }

    private var total: Int { file.jobs.count }

    /// Hears of an attempt as it ends, and says so when a failed attempt will be retried.
    func attemptEnded(_ record: AttemptRecord) {
        let finished = state.withLock { $0.finished }
        let failed = record.exit.map { !$0.succeeded } ?? true
        guard failed, !Task.isCancelled, let job = jobs[record.job], record.attempt < job.retry.maxAttempts else { return }
        console.line("[\(finished)/\(total)] \(record.job): attempt \(record.attempt) of \(job.retry.maxAttempts) failed "
                     + "(\(record.exitSummary)); retrying")
    }

    /// Reads events until the run finishes, redrawing the status line at most 20 times a second.
    /// - Parameter shell: the run's jobs, for their attempts and commands.
    func follow(_ events: AsyncStream<RunEvent>, shell: ShellWorkflow) async {
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
                finished(id, status, shell: shell)
            case .runFinished:
                break
            }
        }
        ticker.cancel()
        console.setStatus(nil)
    }

    private func finished(_ id: JobID, _ status: JobStatus, shell: ShellWorkflow) {
        let (count, began) = state.withLock { state in
            state.finished += 1
            let began = state.running.removeValue(forKey: id)
            if began != nil, let index = state.runningOrder.firstIndex(of: id) { state.runningOrder.remove(at: index) }
            return (state.finished, began)
        }
        let name = id.rawValue
        // Most jobs print nothing on a terminal, and skipped ones nothing unless verbose: the
        // line is made only when it is printed. A success costs a stat of its output file.
        var output: String?
        switch status {
        case .skipped, .upToDate:
            guard verbose else { return }
        case .succeeded:
            if showsSuccessOutput, let last = shell.log.attempts(of: name).last {
                output = outputText(of: last, limit: verbose ? 64 * 1024 : 16 * 1024)
            }
            guard verbose || !console.isLive || output != nil else { return }
        case .failed, .timedOut, .cancelled:
            break
        }
        let elapsed = began.map { seconds(.now - $0) }
        let prefix = "[\(count)/\(total)]"
        let attempts = shell.log.attempts(of: name)
        var lines: [String]
        switch status {
        case .succeeded:
            let retried = attempts.count > 1 ? ", \(attempts.count) attempts" : ""
            if let key = attempts.last?.restored {
                lines = ["\(prefix) restored \(name) from the cache (key \(key)" + (elapsed.map { ", \($0)" } ?? "") + ")"]
            } else {
                lines = ["\(prefix) done \(name)" + (elapsed.map { " (\($0)\(retried))" } ?? "")]
            }
        case .failed:
            let reason = attempts.last?.exitSummary ?? "failed"
            lines = ["\(prefix) FAILED \(name) (\(reason)" + (elapsed.map { ", \($0)" } ?? "") + ")"]
            lines += details(of: name, attempts: attempts, shell: shell)
        case .timedOut:
            let limit = jobs[name]?.timeout.map { " after \(seconds($0))" } ?? ""
            lines = ["\(prefix) TIMED OUT \(name)\(limit)"]
            lines += details(of: name, attempts: attempts, shell: shell)
        case .cancelled:
            lines = ["\(prefix) cancelled \(name)" + (elapsed.map { " (after \($0))" } ?? "")]
        case .skipped:
            lines = ["\(prefix) skipped \(name)"]
        case .upToDate:
            lines = ["\(prefix) up to date \(name)"]
        }
        if let output { lines.append(output) }
        // One write, so another job's lines never come between these.
        console.line(lines.joined(separator: "\n"))
    }

    /// The command as it ran, how each failed attempt ended, and the last attempt's output.
    private func details(of name: String, attempts: [AttemptRecord], shell: ShellWorkflow) -> [String] {
        var lines: [String] = []
        if let command = shell.command(of: name, attempt: attempts.last?.attempt ?? 1) {
            lines.append("$ " + command.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  "))
        }
        if attempts.count > 1 {
            lines.append("  \(attempts.count) attempts: " + attempts.map(\.exitSummary).joined(separator: ", "))
        }
        if let output = attempts.last.flatMap({ outputText(of: $0, limit: 16 * 1024) }) { lines.append(output) }
        return lines
    }

    /// The end of an attempt's output (at most `limit` bytes), after a note of where the rest
    /// is; nil if there is none. An empty output costs one `stat`.
    private func outputText(of attempt: AttemptRecord, limit: Int) -> String? {
        var status = stat()
        guard stat(attempt.outputPath, &status) == 0, status.st_size > 0,
              let handle = FileHandle(forReadingAtPath: attempt.outputPath) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        guard size > 0 else { return nil }
        let start = size > UInt64(limit) ? size - UInt64(limit) : 0
        try? handle.seek(toOffset: start)
        guard let data = try? handle.readToEnd() else { return nil }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        if start > 0 { text = "  … (\(start) bytes cut; all of it is in \(attempt.outputPath))\n" + text }
        return text
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
