import Foundation
import Hummingbird
import Logging
public import SequencerCache

/// `sequencer cache serve`: a directory cache served over HTTP with the protocol of Bazel's
/// HTTP caches (bazel-remote's): `GET`, `HEAD` and `PUT` of `/cas/SHA256` and `/ac/SHA256`.
/// `sequencer run --cache http://HOST:PORT/` and ninja mode use it, and so can Bazel.
///
/// A blob put under `/cas/` is stored only when its bytes hash to its name; an entry put under
/// `/ac/` only when it is a Remote Execution `ActionResult` whose blobs are all there, as
/// bazel-remote checks. With `readOnly`, every `PUT` is refused (403).
public struct CacheServer: Sendable {
    public let cache: DirectoryCache
    public let host: String
    public let port: Int
    /// The largest body a `PUT` may send.
    public static let bodyLimit = 2 * 1024 * 1024 * 1024

    public init(cache: DirectoryCache, host: String, port: Int) {
        (self.cache, self.host, self.port) = (cache, host, port)
    }

    /// Serves until the process is stopped or the task cancelled (then it stops listening, and
    /// answers the connections already accepted, and returns when they are answered; a request
    /// that stops arriving is given up after a minute without a byte); `ready` gets the address
    /// once it listens.
    public func run(ready: @escaping @Sendable (String) -> Void) async throws {
        let router = Router()
        let cache = cache
        router.get("/cas/:hash") { _, context in try Self.blob(cache, context, body: true) }
        router.head("/cas/:hash") { _, context in try Self.blob(cache, context, body: false) }
        router.put("/cas/:hash") { request, context in try await Self.putBlob(cache, request, context) }
        router.get("/ac/:hash") { _, context in try Self.entry(cache, context, body: true) }
        router.head("/ac/:hash") { _, context in try Self.entry(cache, context, body: false) }
        router.put("/ac/:hash") { request, context in try await Self.putEntry(cache, request, context) }
        router.get("/status") { _, _ in Self.text(.ok, "sequencer cache serve: \(cache.path)\n") }
        var logger = Logger(label: "sequencer-cache-serve")
        logger.logLevel = .warning
        let (host, port) = (host, port)
        let app = Application(
            router: router, server: .http1(configuration: .init(idleTimeout: serverIdleTimeout)),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                ready("http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/")
            },
            logger: logger)
        try await serveUntilCancelled(app, logger: logger)
    }

    private static func digest(_ context: BasicRequestContext) throws -> CacheDigest {
        let hash = try context.parameters.require("hash")
        guard let digest = CacheDigest(hex: hash.lowercased()) else {
            throw HTTPError(.badRequest, message: "not a SHA-256 in hex: \(hash)")
        }
        return digest
    }

    private static func blob(_ cache: DirectoryCache, _ context: BasicRequestContext, body: Bool) throws -> Response {
        guard let file = cache.blobFile(try digest(context)), let data = FileManager.default.contents(atPath: file) else {
            return text(.notFound, "no such blob\n")
        }
        return bytes(data, body: body)
    }

    private static func entry(_ cache: DirectoryCache, _ context: BasicRequestContext, body: Bool) throws -> Response {
        guard let data = cache.remoteEntry(try digest(context)) else { return text(.notFound, "no such entry\n") }
        return bytes(data, body: body)
    }

    private static func putBlob(_ cache: DirectoryCache, _ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard !cache.isReadOnly else { return text(.forbidden, "this cache is served read-only\n") }
        let digest = try digest(context)
        let data = Data(try await request.body.collect(upTo: bodyLimit).readableBytesView)
        do {
            try cache.storeBlob(digest, data: data)
        } catch let error as CacheError where error.code == .changed {
            return text(.badRequest, "\(error.message)\n")
        }
        return text(.ok, "")
    }

    private static func putEntry(_ cache: DirectoryCache, _ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard !cache.isReadOnly else { return text(.forbidden, "this cache is served read-only\n") }
        let key = try digest(context)
        let data = Data(try await request.body.collect(upTo: bodyLimit).readableBytesView)
        guard let entry = RemoteActionResult(decoding: Array(data)) else {
            return text(.badRequest, "not an ActionResult message\n")
        }
        if let missing = entry.blobs.first(where: { cache.blobFile($0) == nil }) {
            return text(.badRequest, "the entry names blob \(missing.hex), which is not in /cas/\n")
        }
        try cache.storeRemoteEntry(data, for: key)
        return text(.ok, "")
    }

    private static func bytes(_ data: Data, body: Bool) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/octet-stream", .contentLength: "\(data.count)"],
            body: body ? .init(byteBuffer: ByteBuffer(bytes: data)) : .init())
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: message)))
    }
}
