import ArgumentParser
import Foundation
import Sequencer
import SequencerRunner
import SequencerTracing
import SequencerWorkflowFile
import Tracing

/// `--otel`: spans exported over OpenTelemetry (OTLP/HTTP, configured by the standard `OTEL_*`
/// variables) by `sequencer-otel`, a binary of its own that runs these same commands with
/// swift-otel bootstrapped. `sequencer ... --otel` starts it in its place.
public enum Telemetry {
    private static let exporting = Locked(false)

    /// Says that this process exports spans: `sequencer-otel` calls it once its exporter runs.
    public static func startedExporting() { exporting.withLock { $0 = true } }

    static var isExporting: Bool { exporting.withLock { $0 } }

    /// Goes on in this process when it exports spans; else replaces it with `sequencer-otel`,
    /// given the same arguments (nothing has started yet).
    /// - Throws: `ExitCode(2)` when `sequencer-otel` is not beside this binary or on the `PATH`.
    static func handOverUnlessExporting() throws {
        guard !isExporting else { return }
        throw HandOver.exec("sequencer-otel", Array(CommandLine.arguments.dropFirst()), missing: "error: --otel needs the sequencer-otel binary beside sequencer or on the PATH (swift build --product sequencer-otel builds it; Scripts/install.sh installs it)")
    }

    /// Reports a local run's spans once it ended (``RunTraces``), named as a queue names the
    /// workflow: by its file's directory.
    static func reporter(for file: WorkflowFile) -> @Sendable (RunReport) -> Void {
        let name = QueueShellJob.workflowName(of: file)
        return { report in RunTraces.record(report, name: name) }
    }

    /// Runs `body` (a queue's run submitted and followed) in a root span, `run NAME`: the jobs'
    /// enqueueing is its child, and each attempt's span, on any worker, the enqueueing's.
    static func tracing<T>(_ file: WorkflowFile, _ body: () async throws -> T) async throws -> T {
        try await withSpan("run \(QueueShellJob.workflowName(of: file))", ofKind: .internal) { _ in try await body() }
    }
}
