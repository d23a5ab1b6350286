
/// The outcome of a queue's job, kept for the holders of its handle: a queue forgets finished
/// jobs (see ``JobQueue``), but a caller that holds a job's handle can still read its result,
/// as a `Task` keeps its value while someone holds the task.
///
/// The scheduler fills it, under the run's lock, in the step in which the job ends; it is
/// freed with the last handle.
final class JobTicket: Sendable {
    private let outcome = Locked<Result<any Sendable, any Error>?>(nil)

    var result: Result<any Sendable, any Error>? { outcome.withLock { $0 } }

    func fill(_ result: Result<any Sendable, any Error>) { outcome.withLock { $0 = result } }
}
