#if os(Linux)
import Glibc
#endif

/// The run's view of its clock: offsets from the run's start, in nanoseconds.
///
/// Wrapping the user's `any Clock<Duration>` once, at start, keeps the clock's generic
/// instant type out of the scheduler and costs one dynamic call per reading.
protocol RunTime: Sendable {
    /// Nanoseconds since the run started.
    func now() -> Int64
    /// Sleeps until `offset` nanoseconds after the run started. Throws when cancelled.
    func sleep(untilOffset offset: Int64) async throws
}

extension RunTime {
    func sleep(for duration: Duration) async throws {
        try await sleep(untilOffset: now() + duration.nanoseconds)
    }
}

struct ClockTime<C: Clock>: RunTime where C.Duration == Duration {
    let clock: C
    let origin: C.Instant

    init(_ clock: C) {
        self.clock = clock
        origin = clock.now
    }

    func now() -> Int64 { origin.duration(to: clock.now).nanoseconds }

    func sleep(untilOffset offset: Int64) async throws {
        try await clock.sleep(until: origin.advanced(by: .nanoseconds(offset)), tolerance: nil)
    }
}

func makeRunTime(_ clock: some Clock<Duration>) -> any RunTime {
    #if os(Linux)
    if clock is ContinuousClock { return ContinuousTime() }
    #endif
    return ClockTime(clock)
}

#if os(Linux)
/// The default clock, read directly: `ContinuousClock` on Linux is `CLOCK_BOOTTIME`, and reading
/// it through `Clock`'s generic instants costs 128-bit arithmetic on every reading, which came to
/// about a tenth of the time of running a no-op job.
struct ContinuousTime: RunTime {
    let origin: Int64

    init() { origin = Self.reading() }

    func now() -> Int64 { Self.reading() - origin }

    func sleep(untilOffset offset: Int64) async throws {
        let clock = ContinuousClock()
        let wait = Duration.nanoseconds(max(0, offset - now()))
        try await clock.sleep(until: clock.now.advanced(by: wait), tolerance: nil)
    }

    private static func reading() -> Int64 {
        var time = timespec()
        _ = clock_gettime(clockid_t(CLOCK_BOOTTIME), &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
#endif

extension Duration {
    /// The duration in whole nanoseconds, saturating.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
