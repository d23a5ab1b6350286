import ArgumentParser
import Foundation
import Sequencer
import SequencerProcess
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
        guard let binary = ProgramLookup.companion("sequencer-otel") else {
            printError("error: --otel needs the sequencer-otel binary beside sequencer or on the PATH (swift build --product sequencer-otel builds it; Scripts/install.sh installs it)")
            throw ExitCode(ExitStatus.invalid)
        }
        let argv = [binary] + CommandLine.arguments.dropFirst()
        let cArguments = argv.map { strdup($0) } + [nil]
        execv(binary, cArguments)
        printError("error: cannot start \(binary): \(String(cString: strerror(errno)))")
        throw ExitCode(ExitStatus.failed)
    }

    /// The name of a workflow's runs in their root spans: its directory's, as a queue names it.
    static func runName(of file: WorkflowFile) -> String {
        URL(fileURLWithPath: file.path).standardizedFileURL.deletingLastPathComponent().lastPathComponent
    }

    /// Reports a local run's spans once it ended (``RunTraces``).
    static func reporter(for file: WorkflowFile) -> @Sendable (RunReport) -> Void {
        let name = runName(of: file)
        return { report in RunTraces.record(report, name: name) }
    }

    /// Runs `body` (a queue's run submitted and followed) in a root span, `run NAME`: the jobs'
    /// enqueueing is its child, and each attempt's span, on any worker, the enqueueing's.
    static func tracing<T>(_ file: WorkflowFile, _ body: () async throws -> T) async throws -> T {
        try await withSpan("run \(runName(of: file))", ofKind: .internal) { _ in try await body() }
    }
}
