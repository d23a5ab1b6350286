#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import PostgresTestSupport
import Testing

/// A network namespace joined to this one by a veth pair, with a /30 of its own (10.213.X.0):
/// this side `10.213.X.1`, the namespace's side `10.213.X.2`. Nothing is routed beyond the pair.
/// Needs root and iproute2 (`ip netns`, `ip link`).
struct NetworkNamespace {
    static let ip = "/usr/sbin/ip"
    /// Whether this process may try: root, with `ip` installed.
    static let possible = getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip)
    static let skipReason: Comment = "network namespaces need root and iproute2's /usr/sbin/ip"

    let name: String
    /// This side's interface.
    let link: String
    /// This side's address, which a server can listen on.
    let hostAddress: String

    /// Creates the namespace and the pair, and brings both sides up.
    static func create() async throws -> NetworkNamespace {
        let tag = "\(getpid() % 100_000)x\(Int.random(in: 0..<100))"
        let subnet = "10.213.\(Int.random(in: 0...254))"
        let space = NetworkNamespace(name: "seq\(tag)", link: "sq\(tag)h", hostAddress: "\(subnet).1")
        let inner = "sq\(tag)n"
        let steps = [
            ["netns", "add", space.name],
            ["link", "add", space.link, "type", "veth", "peer", "name", inner],
            ["link", "set", inner, "netns", space.name],
            ["addr", "add", "\(space.hostAddress)/30", "dev", space.link],
            ["link", "set", space.link, "up"],
            ["netns", "exec", space.name, ip, "addr", "add", "\(subnet).2/30", "dev", inner],
            ["netns", "exec", space.name, ip, "link", "set", inner, "up"],
            ["netns", "exec", space.name, ip, "link", "set", "lo", "up"],
        ]
        do {
            for step in steps { _ = try await runCommand([ip] + step) }
        } catch {
            await space.remove()
            throw error
        }
        return space
    }

    /// The command that runs a program inside the namespace (it `exec`s the program).
    var exec: [String] { [Self.ip, "netns", "exec", name] }

    /// Brings this side of the pair up or down: down parts the namespace from this one.
    func set(up: Bool) async throws {
        _ = try await runCommand([Self.ip, "link", "set", link, up ? "up" : "down"])
    }

    /// Deletes the pair and the namespace.
    func remove() async {
        _ = try? await runCommand([Self.ip, "link", "del", link])
        _ = try? await runCommand([Self.ip, "netns", "del", name])
    }
}
