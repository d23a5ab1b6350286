/// A result that a callback or delegate delivers later, for a job's body to wait for.
///
/// Bridges callback and delegate APIs (CoreBluetooth, CloudKit, NFC) into an async body:
/// create a source, hand its ``complete(_:)`` or ``fail(_:)`` to the callback, and wait with
/// ``value()``.
///
/// ```swift
/// try workflow.add("connect-sensor") { _ in
///     let source = CompletionSource<Peripheral> { central.stopScan() }
///     central.onDiscover = { peripheral in source.complete(peripheral) }
///     central.onError = { error in source.fail(error) }
///     central.scan()
///     return try await source.value()
/// }
/// ```
///
/// The first call of ``complete(_:)``, ``fail(_:)`` or ``complete(with:)`` wins; later calls
/// are ignored and return `false`, so a delegate that reports twice does no harm. Any number of
/// tasks may wait, before or after completion, and all get the same result.
///
/// When a task waiting in ``value()`` is cancelled (for example because ``Run/cancel(_:)``
/// cancelled its job) before the source completes, the source completes with
/// `CancellationError`: `onCancel` runs once, so the callback API can stop, and then every
/// waiter, present and future, throws `CancellationError`. A result delivered after that is
/// ignored.
public final class CompletionSource<Value: Sendable>: Sendable {
    private let state: Locked<State>

    /// Creates a source that has not completed yet.
    ///
    /// ```swift
    /// let source = CompletionSource<Data>(onCancel: { request.cancel() })
    /// ```
    /// - Parameter onCancel: called once, outside any lock, when a waiting task is cancelled
    ///   before the source completes: tell the callback API to stop. It runs on the thread that
    ///   cancelled the task, before any waiter throws `CancellationError`, so it should return
    ///   promptly. It is released, without being called, when the source completes otherwise.
    public init(onCancel: (@Sendable () -> Void)? = nil) {
        state = Locked(State(onCancel: onCancel))
    }

    /// Completes the source with a value, unless it has already completed.
    ///
    /// ```swift
    /// delegate.onRead = { data in source.complete(data) }
    /// ```
    /// - Parameter value: the value every waiter of ``value()`` returns.
    /// - Returns: `true` when this call completed the source; `false` when it had completed
    ///   (or was being cancelled) already, and `value` is ignored.
    @discardableResult
    public func complete(_ value: Value) -> Bool {
        complete(with: .success(value))
    }

    /// Completes the source with an error, unless it has already completed.
    ///
    /// ```swift
    /// delegate.onFailure = { error in source.fail(error) }
    /// ```
    /// - Parameter error: the error every waiter of ``value()`` throws.
    /// - Returns: `true` when this call completed the source; `false` when it had completed
    ///   (or was being cancelled) already, and `error` is ignored.
    @discardableResult
    public func fail(_ error: any Error) -> Bool {
        complete(with: .failure(error))
    }

    /// Completes the source with a result, unless it has already completed.
    ///
    /// Handy for APIs whose callback already delivers a `Result`:
    ///
    /// ```swift
    /// api.fetch { result in source.complete(with: result.mapError { $0 as any Error }) }
    /// ```
    /// - Parameter result: the value every waiter returns, or the error every waiter throws.
    /// - Returns: `true` when this call completed the source; `false` when it had completed
    ///   (or was being cancelled) already, and `result` is ignored.
    @discardableResult
    public func complete(with result: Result<Value, any Error>) -> Bool {
        guard let completion = state.withLock({ $0.complete(with: result) }) else { return false }
        // The unused `onCancel` is released here, outside the lock, with whatever it captured.
        for waiter in completion.waiters { waiter.resume(with: result) }
        return true
    }

    /// True once the outcome is decided: completed, failed, or cancelled.
    ///
    /// Once true, it stays true, and ``complete(_:)`` and ``fail(_:)`` return `false`.
    public var isCompleted: Bool {
        state.withLock { $0.isCompleted }
    }

    /// Waits for the source to complete, and returns its value.
    ///
    /// ```swift
    /// let peripheral = try await source.value()
    /// ```
    /// Returns at once when the source has already completed. Several tasks may wait at once;
    /// all get the same result.
    ///
    /// If the waiting task is cancelled before the source completes, the source completes with
    /// `CancellationError` (so every other waiter, and every later one, throws it too) and
    /// `onCancel` runs once. A source that has already completed is not affected by cancellation.
    /// - Returns: the value given to ``complete(_:)``.
    /// - Throws: the error given to ``fail(_:)``, or `CancellationError` when a waiting task
    ///   was cancelled first. When `CancellationError` comes from cancellation, `onCancel` has
    ///   returned before it is thrown.
    public func value() async throws -> Value {
        if let result = state.withLock({ $0.result }) { return try result.get() }
        // Cancellation may come before the continuation is stored, even before the operation
        // starts (when the task is already cancelled). That is safe: cancelling decides the
        // outcome for the whole source, so `wait` then finds it decided and either queues the
        // continuation until `onCancel` returns, or resumes it at once.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                wait(continuation)
            }
        } onCancel: {
            cancel()
        }
    }

    /// How many continuations are queued, waiting for the result; for tests.
    var waiterCount: Int {
        state.withLock { $0.waiterCount }
    }

    private func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        if let result = state.withLock({ $0.wait(continuation) }) {
            continuation.resume(with: result)
        }
    }

    /// A waiting task was cancelled: decide the outcome, run `onCancel`, then wake the waiters.
    private func cancel() {
        guard let cancellation = state.withLock({ $0.startCancelling() }) else { return }
        cancellation.onCancel?()
        let waiters = state.withLock { $0.finishCancelling() }
        for waiter in waiters { waiter.resume(throwing: CancellationError()) }
    }
}

extension CompletionSource where Value == Void {
    /// Completes the source, unless it has already completed.
    ///
    /// ```swift
    /// let written = CompletionSource<Void>()
    /// peripheral.onWrite = { written.complete() }
    /// try await written.value()
    /// ```
    /// - Returns: `true` when this call completed the source; `false` when it had completed
    ///   (or was being cancelled) already.
    @discardableResult
    public func complete() -> Bool {
        complete(())
    }
}

extension CompletionSource {
    /// What a source knows, behind its lock. Each `mutating func` changes the state and returns
    /// what the caller must do after releasing the lock: resume continuations, call `onCancel`.
    ///
    /// Waiters have no IDs: a waiter is never removed on its own, because cancelling any
    /// waiter decides the outcome for all of them.
    private struct State: Sendable {
        private enum Phase: Sendable {
            /// Not completed. `onCancel` is kept until the outcome is decided.
            case pending(waiters: [CheckedContinuation<Value, any Error>], onCancel: (@Sendable () -> Void)?)
            /// A waiter was cancelled and `onCancel` is running; waiters are resumed after it.
            case cancelling(waiters: [CheckedContinuation<Value, any Error>])
            case completed(Result<Value, any Error>)
        }

        /// What to do after a result was accepted.
        struct Completion: Sendable {
            /// To resume with the result.
            var waiters: [CheckedContinuation<Value, any Error>]
            /// Not to call: handed out only so that it is released outside the lock.
            var onCancel: (@Sendable () -> Void)?
        }

        /// What to do after a cancellation decided the outcome.
        struct Cancellation: Sendable {
            /// To call before ``finishCancelling()``.
            var onCancel: (@Sendable () -> Void)?
        }

        private var phase: Phase

        init(onCancel: (@Sendable () -> Void)?) {
            phase = .pending(waiters: [], onCancel: onCancel)
        }

        var isCompleted: Bool {
            if case .pending = phase { return false }
            return true
        }

        var waiterCount: Int {
            switch phase {
            case .pending(let waiters, _), .cancelling(let waiters): waiters.count
            case .completed: 0
            }
        }

        /// The result, once waiters may be given it.
        var result: Result<Value, any Error>? {
            if case .completed(let result) = phase { return result }
            return nil
        }

        /// Accepts `result` if nothing was decided yet.
        /// - Returns: the waiters to resume, or nil when the result is ignored.
        mutating func complete(with result: Result<Value, any Error>) -> Completion? {
            guard case .pending(let waiters, let onCancel) = phase else { return nil }
            phase = .completed(result)
            return Completion(waiters: waiters, onCancel: onCancel)
        }

        /// Queues `continuation` until the result is known.
        /// - Returns: the result to resume it with at once, or nil when it was queued.
        mutating func wait(_ continuation: CheckedContinuation<Value, any Error>) -> Result<Value, any Error>? {
            switch phase {
            case .pending(var waiters, let onCancel):
                waiters.append(continuation)
                phase = .pending(waiters: waiters, onCancel: onCancel)
                return nil
            case .cancelling(var waiters):
                waiters.append(continuation)
                phase = .cancelling(waiters: waiters)
                return nil
            case .completed(let result):
                return result
            }
        }

        /// Decides the outcome as cancelled, if nothing was decided yet.
        /// - Returns: what to do when this call decided it (call `onCancel`, then
        ///   ``finishCancelling()``); nil when the outcome was decided already.
        mutating func startCancelling() -> Cancellation? {
            guard case .pending(let waiters, let onCancel) = phase else { return nil }
            phase = .cancelling(waiters: waiters)
            return Cancellation(onCancel: onCancel)
        }

        /// Completes a cancellation begun by ``startCancelling()``.
        /// - Returns: the waiters to resume with `CancellationError`.
        mutating func finishCancelling() -> [CheckedContinuation<Value, any Error>] {
            guard case .cancelling(let waiters) = phase else { return [] }
            phase = .completed(.failure(CancellationError()))
            return waiters
        }
    }
}
