import HTTPTypes
import Hummingbird

/// What every response passes: requests for another host are refused (a page elsewhere
/// cannot reach this server through a name that resolves to this machine), and every
/// response says to load nothing from anywhere else and to run no inline script.
struct Guard<Context: RequestContext>: RouterMiddleware {
    let server: Server

    static var policy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard allowed(host: request.head.authority) else {
            return Response(
                status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "sequencer serve answers requests for its own address only\n")))
        }
        var response = try await HTML.$linksQueue.withValue(server.console != nil) { try await next(request, context) }
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[.xContentTypeOptions] = "nosniff"
        if let referrer = HTTPField.Name("Referrer-Policy") { response.headers[referrer] = "no-referrer" }
        return response
    }

    /// Whether `authority` (the Host header) names this server.
    func allowed(host authority: String?) -> Bool {
        guard let authority, let port = server.port.withLock({ $0 }) else { return false }
        let names = Set(["127.0.0.1", "localhost", "[::1]", server.options.host, "[\(server.options.host)]"])
        return names.contains { authority == "\($0):\(port)" || (port == 80 && authority == $0) }
    }
}
