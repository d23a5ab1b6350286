import Hummingbird
import NIOCore

/// A request's context on the page's server: Hummingbird's, and where the request came from
/// (what the queue's actions record).
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's address, as `127.0.0.1:54012`; `unknown` when the channel has none.
    let remoteAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress.map(Self.describe) ?? "unknown"
    }

    static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress else { return "\(address)" }
        let host = ip.contains(":") ? "[\(ip)]" : ip
        return address.port.map { "\(host):\($0)" } ?? host
    }
}
