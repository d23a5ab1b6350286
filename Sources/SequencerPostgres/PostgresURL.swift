import Foundation
package import PostgresNIO
import SequencerQueue

/// A `postgres://user:password@host:port/database?sslmode=...` URL, read into a client
/// configuration; shown with its password masked.
package struct PostgresURL: Sendable, CustomStringConvertible {
    /// The pool's configuration.
    package let configuration: PostgresClient.Configuration
    /// One connection's, for the first one: it fails at once, where the pool would retry.
    package let connection: PostgresConnection.Configuration
    /// The URL with its password as `***`: what errors and descriptions show.
    package let description: String

    package init(_ text: String) throws {
        let masked = Self.mask(text)
        func refuse(_ why: String) -> QueueError {
            QueueError(code: .invalidOption, location: masked, message: "not a PostgreSQL URL: \(why) (expected postgres://user:password@host:port/database)")
        }
        guard let components = URLComponents(string: text) else { throw refuse("it does not parse as a URL") }
        guard let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme.lowercased()) else {
            throw refuse("its scheme is not postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw refuse("it names no host") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw refuse("port \(port) is out of range") }
        guard let user = components.user, !user.isEmpty else { throw refuse("it names no user") }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let tls: PostgresClient.Configuration.TLS
        let connectionTLS: PostgresConnection.Configuration.TLS
        do {
            switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
            case "disable":
                (tls, connectionTLS) = (.disable, .disable)
            case "prefer", "allow":
                (tls, connectionTLS) = (.prefer(.makeClientConfiguration()), .prefer(try NIOSSLContext(configuration: .makeClientConfiguration())))
            case "require", "verify-ca", "verify-full":
                (tls, connectionTLS) = (.require(.makeClientConfiguration()), .require(try NIOSSLContext(configuration: .makeClientConfiguration())))
            case let other:
                throw refuse("sslmode '\(other)' is not one of disable, prefer, require")
            }
        } catch let error as QueueError {
            throw error
        } catch {
            throw QueueError(code: .database, location: masked, message: "cannot set up TLS: \(error)")
        }
        let name = database.isEmpty ? nil : database
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: components.password, database: name, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        self.configuration = configuration
        var connection = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: components.password, database: name, tls: connectionTLS)
        connection.options.connectTimeout = .seconds(10)
        self.connection = connection
        description = masked
    }

    /// The URL with the password between `:` and `@` replaced by `***`.
    package static func mask(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@"),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return text[..<text.index(after: colon)] + "***" + text[at...]
    }
}
