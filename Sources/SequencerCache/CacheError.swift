internal import Sequencer
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
/// run. At the deadline ``CacheError/Code/io`` is thrown at once, naming `location` and what was
/// being done, and `body` is cancelled (and left to end by itself: a request that ignores
/// cancellation is not waited for).
public func withCacheDeadline<T: Sendable>(
    _ limit: Duration, location: String, doing: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = DeadlineOutcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.start(continuation)
            let work = Task {
                do {
                    outcome.finish(.success(try await body()))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                outcome.finish(.failure(CacheError(
                    .io, location: location, "\(doing): no answer within \(limit) (the cache's deadline); the job runs here")))
                work.cancel()
            }
            outcome.tasks(work: work, timer: timer)
        }
    } onCancel: {
        outcome.cancel()
    }
}

/// The one end of a ``withCacheDeadline(_:location:doing:_:)``: the body's, the timer's or a
/// cancellation's, whichever comes first; the others are ignored.
private final class DeadlineOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        /// The end, when it came before the continuation was handed over.
        var early: Result<T, any Error>?
        var done = false
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private let state = Locked(State())

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if state.early == nil { state.continuation = continuation }
            return state.early
        }
        if let early { continuation.resume(with: early) }
    }

    func tasks(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let ended = state.withLock { state in
            (state.work, state.timer) = (work, timer)
            return state.done
        }
        if ended { timer.cancel() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, timer) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?) in
            guard !state.done else { return (nil, nil) }
            state.done = true
            if state.continuation == nil { state.early = result }
            defer { state.continuation = nil }
            return (state.continuation, state.timer)
        }
        timer?.cancel()
        continuation?.resume(with: result)
    }

    func cancel() {
        let work = state.withLock { $0.work }
        work?.cancel()
        finish(.failure(CancellationError()))
    }
}
