import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request per connection, over TCP or TLS: all a Bazel HTTP cache needs (GET,
/// HEAD and PUT of whole bodies).
struct HTTPClient: Sendable {
    let secure: Bool
    let host: String
    let port: Int
    /// The URL's path, without a trailing slash: requests go under it.
    let base: String
    /// `Authorization`, from the URL's user and password.
    let authorization: String?

    struct Response: Sendable {
        var status: Int
        var body: ByteBuffer
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(url: String) throws(Failure) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            throw Failure(description: "not an http:// or https:// URL")
        }
        secure = scheme == "https"
        self.host = host
        port = components.port ?? (secure ? 443 : 80)
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        base = path
        if let user = components.user {
            authorization = "Basic " + Data("\(user):\(components.password ?? "")".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
    }

    /// Sends `method path` with `body`, and returns the response's status and whole body.
    func send(_ method: HTTPMethod, _ path: String, body: ByteBuffer? = nil) async throws -> Response {
        let host = host
        let context = secure ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: host))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: base + path)
        head.headers.add(name: "Host", value: port == 80 || port == 443 ? host : "\(host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "Content-Length", value: "\(body?.readableBytes ?? 0)")
        if let authorization { head.headers.add(name: "Authorization", value: authorization) }
        let request = head
        return try await channel.executeThenClose { inbound, outbound in
            // A server may answer, and close the connection, as soon as it has the request's
            // head (a request without a body needs no more), before the last part is written:
            // a write that fails leaves the answer to be read all the same.
            var unwritten: (any Error)?
            do {
                try await outbound.write(.head(request))
                if let body, body.readableBytes > 0 { try await outbound.write(.body(.byteBuffer(body))) }
                try await outbound.write(.end(nil))
            } catch {
                unwritten = error
            }
            var status = 0
            var collected = ByteBuffer()
            do {
                for try await part in inbound {
                    switch part {
                    case .head(let response): status = Int(response.status.code)
                    case .body(var chunk): collected.writeBuffer(&chunk)
                    case .end: return Response(status: status, body: collected)
                    }
                }
            } catch {
                throw unwritten ?? error
            }
            throw unwritten ?? Failure(description: "the server closed the connection before its answer ended")
        }
    }
}
