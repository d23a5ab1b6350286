import CoreMetrics
import NIOCore
import Sequencer
import NIOHTTP1
import NIOPosix
public import Prometheus

/// An HTTP endpoint that Prometheus scrapes: `GET /metrics` answers with everything reported
/// to its registry, in Prometheus's text format; any other path is 404, any other method 405.
///
/// ```swift
/// let endpoint = try await MetricsEndpoint.start(host: "127.0.0.1", port: 9464)
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: endpoint.registry))
/// ```
public final class MetricsEndpoint: Sendable {
    /// What it serves.
    public let registry: PrometheusCollectorRegistry
    private let channel: any Channel
    /// The connections open now, closed with the endpoint.
    private let connections: Connections

    /// The port it listens on (the one the system chose, for port 0).
    public var port: Int { channel.localAddress?.port ?? 0 }

    private init(registry: PrometheusCollectorRegistry, channel: any Channel, connections: Connections) {
        self.registry = registry
        self.channel = channel
        self.connections = connections
    }

    /// Listens on `host` and `port` (0: any free port).
    /// - Throws: when the address cannot be bound (in use, not this machine's).
    public static func start(
        host: String, port: Int, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
    ) async throws -> MetricsEndpoint {
        let connections = Connections()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                connections.add(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(ScrapeHandler(registry: registry))
                }
            }
            .bind(host: host, port: port).get()
        return MetricsEndpoint(registry: registry, channel: channel, connections: connections)
    }

    /// Stops listening, and closes the connections open.
    public func close() async {
        try? await channel.close()
        for connection in connections.closeAll() { try? await connection.close() }
    }
}

/// The endpoint's open connections: each added as it is accepted, removed as it closes.
final class Connections: Sendable {
    private let open = Locked<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        open.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [open] _ in _ = open.withLock { $0.removeValue(forKey: key) } }
    }

    /// The connections open, forgotten.
    func closeAll() -> [any Channel] {
        open.withLock { open in
            defer { open = [:] }
            return Array(open.values)
        }
    }
}

/// Answers one connection's requests.
final class ScrapeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let registry: PrometheusCollectorRegistry
    private var head: HTTPRequestHead?
    /// The last scrape's text, kept to reuse its storage.
    private var buffer: [UInt8] = []

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let status: HTTPResponseStatus
        var type = "text/plain; charset=utf-8"
        buffer.removeAll(keepingCapacity: true)
        if head.method != .GET && head.method != .HEAD {
            status = .methodNotAllowed
            buffer.append(contentsOf: "only GET /metrics\n".utf8)
        } else if path == "/metrics" {
            status = .ok
            type = "text/plain; version=0.0.4; charset=utf-8"
            registry.emit(into: &buffer)
        } else {
            status = .notFound
            buffer.append(contentsOf: "not found: the metrics are at /metrics\n".utf8)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(buffer.count)")
        if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: buffer)))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
