#if OpenTelemetry
import Logging
import OTel
import ServiceLifecycle
#endif

extension QueuePeer {
    /// `QUEUE_PEER_METRICS=otel`: metrics and traces through swift-otel, exported over OTLP/HTTP
    /// to `OTEL_EXPORTER_OTLP_ENDPOINT` (`Scripts/otlp-receiver.py --discard` takes them), for
    /// the cost of both against none; `otel-metrics` and `otel-traces` bootstrap one of them.
    /// Returns what flushes and stops the exporter.
    static func startOpenTelemetry(metrics: Bool, traces: Bool) throws -> @Sendable () async -> Void {
        #if OpenTelemetry
        var configuration = OTel.Configuration.default
        configuration.serviceName = "queue-peer"
        configuration.logs.enabled = false
        configuration.metrics.enabled = metrics
        configuration.traces.enabled = traces
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.otlpExporter.protocol = .httpProtobuf
        configuration.diagnosticLogLevel = .error
        let exporter = try OTel.bootstrap(configuration: configuration)
        var logger = Logger(label: "queue-peer")
        logger.logLevel = .error
        let group = ServiceGroup(configuration: .init(services: [.init(service: exporter)], gracefulShutdownSignals: [], logger: logger))
        let running = Task { try await group.run() }
        return {
            await group.triggerGracefulShutdown()
            _ = await running.result
        }
        #else
        throw PeerError("QUEUE_PEER_METRICS=otel: this queue-peer was built without the OpenTelemetry trait")
        #endif
    }
}
