/// A job as the `add` overloads take it (``Workflow``, ``JobContext`` and ``JobQueue``), with its
/// options checked for defaults and its body wrapped once: every overload builds one and
/// forwards it.
///
/// Two initializers, as the overloads come in two: the generic one wraps a body returning a
/// value in a ``TypedJobBody``; the `Void` one keeps the closure as it is (a ``VoidJobBody``),
/// where the generic one would make Swift wrap it in a thunk, one allocation for every job.
struct JobRequest {
    var needs: [JobID]
    var lane: String?
    var priority: Priority
    /// Nil when every option is at its default (most jobs).
    var options: JobOptions?
    var body: any JobBody
    /// Whether the body returns a value other than `Void`.
    var hasValue: Bool

    init<T: Sendable>(
        needs: [JobID] = [], lane: String? = nil, priority: Priority = .utility, timeout: Duration? = nil,
        retry: RetryPolicy = .none, coalesce: String? = nil, _ body: @escaping @Sendable (JobContext) async throws -> T
    ) {
        self.init(
            needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce,
            type: T.self, body: TypedJobBody(body: body))
    }

    init(
        needs: [JobID] = [], lane: String? = nil, priority: Priority = .utility, timeout: Duration? = nil,
        retry: RetryPolicy = .none, coalesce: String? = nil, _ body: @escaping @Sendable (JobContext) async throws -> Void
    ) {
        self.init(
            needs: needs, lane: lane, priority: priority, timeout: timeout, retry: retry, coalesce: coalesce,
            type: Void.self, body: VoidJobBody(body: body))
    }

    /// `type` is the body's result type.
    private init(
        needs: [JobID], lane: String?, priority: Priority, timeout: Duration?, retry: RetryPolicy, coalesce: String?,
        type: any Sendable.Type, body: any JobBody
    ) {
        self.needs = needs
        self.lane = lane
        self.priority = priority
        options = JobOptions.unlessDefault(timeout: timeout, retry: retry, coalesce: coalesce, valueType: ObjectIdentifier(type))
        self.body = body
        hasValue = type != Void.self
    }
}
