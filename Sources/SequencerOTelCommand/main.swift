import Foundation
import SequencerCommandLine

#if OpenTelemetry
import Logging
import OTel
import ServiceLifecycle

// `sequencer-otel`: the `sequencer` command line with swift-otel's tracing bootstrapped, so that
// `run --otel` and `worker --otel` export their spans over OTLP/HTTP. The standard OTEL_*
// variables configure it (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, ...). Once the command
// ends, the spans held are sent (for at most OTEL_BSP_EXPORT_TIMEOUT, 30 s by default) before
// the process exits with the command's status.
var configuration = OTel.Configuration.default
configuration.serviceName = "sequencer"
configuration.logs.enabled = false
configuration.metrics.enabled = false
configuration.traces.exporter = .otlp
configuration.traces.otlpExporter.protocol = .httpProtobuf
configuration.diagnosticLogLevel = .error

let exporter: any Service
do {
    exporter = try OTel.bootstrap(configuration: configuration)
} catch {
    FileHandle.standardError.write(Data("error: --otel: the OpenTelemetry exporter cannot start: \(error)\n".utf8))
    exit(2)
}
var logger = Logger(label: "sequencer-otel")
logger.logLevel = .error
let group = ServiceGroup(configuration: .init(services: [.init(service: exporter)], gracefulShutdownSignals: [], logger: logger))
let exporting = Task { try await group.run() }
Telemetry.startedExporting()
let status = await CommandLineProgram.status()
await group.triggerGracefulShutdown()
_ = await exporting.result
exit(status)
#else
FileHandle.standardError.write(Data("error: this sequencer-otel was built without OpenTelemetry (the package's OpenTelemetry trait)\n".utf8))
exit(2)
#endif
