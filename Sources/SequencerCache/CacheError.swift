import Foundation

/// Why the cache could not do what was asked, with where. A job whose cache fails runs
/// here, with nothing lost: the caller says so and goes on.
public struct CacheError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The location is not a cache of this program's (it is left untouched).
        case notACache
        /// Made by a newer Sequencer: its format is not one this version reads.
        case newerFormat
        /// Opened read-only: nothing is written.
        case readOnly
        /// A blob or a record whose bytes do not match its digest, or cannot be decoded: it
        /// is removed, and never served again.
        case damaged
        /// A file changed while it was stored: it was not stored.
        case changed
        /// A namespace name that is not one (see ``CacheNamespace``).
        case invalidName
        /// Reading or writing failed (a full disk, a permission).
        case io
    }

    public var code: Code
    /// The cache, the blob or the file it is about.
    public var location: String
    public var message: String

    public init(_ code: Code, location: String, _ message: String) {
        (self.code, self.location, self.message) = (code, location, message)
    }

    public var description: String { "\(location): \(message)" }
}

/// Where results are written, and which a reader trusts: `main` for what a protected branch's
/// CI stores, another name (a branch, a person) for the rest. A reader lists the namespaces it
/// trusts, in order; a writer writes to one. So a writer that can only write to its own
/// namespace never changes what readers of `main` get (Nx's CVE-2025-36852).
public enum CacheNamespace {
    /// The namespace of a cache used without naming one.
    public static let standard = "main"

    /// Whether `name` can be a namespace: 1 to 100 letters, digits, `.`, `_` or `-`, starting
    /// with a letter or a digit.
    public static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 100 else { return false }
        func allowed(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
        }
        return first.isASCII && CharacterSet.alphanumerics.contains(first) && name.unicodeScalars.allSatisfy(allowed)
    }
}

/// Runs `body`, or gives up on it after `limit`: a cache server that hangs must not hang a
/// run. The body is cancelled, and ``CacheError/Code/io`` thrown, naming `location` and what
/// was being done.
public func withCacheDeadline<T: Sendable>(
    _ limit: Duration, location: String, doing: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw CacheError(.io, location: location, "\(doing): no answer within \(limit) (the cache's deadline); the job runs here")
        }
        return value
    }
}
