#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a run is carried out.
///
/// ```swift
/// let run = try workflow.start(RunOptions(maxConcurrency: 8, deadline: .seconds(30)))
/// ```
public struct RunOptions: Sendable {
    /// The most jobs running at once.
    public var maxConcurrency: Int
    /// How long the run may take; when it passes, running jobs are cancelled (and reported
    /// timed out), jobs not started never start, and the report keeps what finished.
    public var deadline: Duration?
    /// Keep starting jobs that do not depend on a failure. When false (the default), the first
    /// failure stops new jobs from starting; running jobs finish.
    public var keepGoing: Bool
    /// The clock for timestamps, timeouts, retry delays, the deadline and snapshot intervals.
    /// Tests pass a manual clock.
    public var clock: any Clock<Duration>
    /// Where to send ``RunEvent``s, in order, as jobs start and finish; finished when the run ends.
    public var events: AsyncStream<RunEvent>.Continuation?
    /// How long a running job's body may take to return after it was cancelled (by
    /// ``Run/cancel()``, ``Run/cancel(_:)``, its timeout or the deadline), on the run's clock.
    /// A body still running then is *abandoned*: the job ends without it (timed out as of its
    /// time limit, or cancelled), its worker and lane slots are freed, and whatever the body
    /// returns later is discarded. Its task keeps running until it returns: Swift cannot stop
    /// a task that ignores cancellation. So a run always ends, at most this long after it was
    /// cancelled or its deadline passed.
    public var gracePeriod: Duration
    /// Which of the jobs ready to start (of one priority) starts first: the one that became
    /// ready first (the default), or the one added first, as ninja starts the lowest of its
    /// ready edges, so that a run at width 1 follows the order the jobs were added in. With the
    /// default, children (jobs added by running jobs) start before the other ready jobs of their
    /// priority; with `firstAdded`, they are ordered by when they were added, as any job.
    public var readyOrder: ReadyOrder = .firstReady

    public enum ReadyOrder: Sendable, Equatable {
        case firstReady
        case firstAdded
    }

    /// Where the run is recorded as it goes (a journal, such as `SequencerJournal`'s), and
    /// where a resumed run's finished results come from; nil (the default) records nothing.
    public var recorder: (any RunRecorder)?

    public init(
        maxConcurrency: Int = RunOptions.activeProcessorCount,
        deadline: Duration? = nil,
        keepGoing: Bool = false,
        clock: any Clock<Duration> = ContinuousClock(),
        events: AsyncStream<RunEvent>.Continuation? = nil,
        gracePeriod: Duration = .seconds(2),
        recorder: (any RunRecorder)? = nil
    ) {
        self.recorder = recorder
        self.maxConcurrency = maxConcurrency
        self.deadline = deadline
        self.keepGoing = keepGoing
        self.clock = clock
        self.events = events
        self.gracePeriod = gracePeriod
    }

    /// The number of processors available to this process.
    public static var activeProcessorCount: Int {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        return 1
        #endif
    }
}
