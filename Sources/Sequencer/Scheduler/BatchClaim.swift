import Synchronization

/// Who begins each job of a worker's batch: the worker, or the scheduler taking them back.
///
/// A worker that found the ready queue deep takes several jobs under one acquisition of the
/// run's lock (``SchedulerState/takeBatch(slot:)``). It begins the first at once; before each of
/// the others it claims it here, without the lock. The scheduler, under the lock, may close the
/// batch at any time (to cancel one of its jobs, to give them to a worker with nothing to do, or
/// because the run stops): from then on the worker begins no more of them, and the scheduler
/// knows exactly which it began. One word holds the slot's generation, the next job's position
/// and the batch's limit, changed only by compare-and-swap, so a job is begun by its worker or
/// taken back by the scheduler, never both; the generation makes a worker detached from the slot
/// fail every claim on a later batch.
final class BatchClaim: Sendable {
    private let word = Atomic<UInt64>(0)

    private static func pack(generation: UInt32, next: Int, limit: Int) -> UInt64 {
        UInt64(generation) << 32 | UInt64(next & 0xFFFF) << 16 | UInt64(limit & 0xFFFF)
    }

    /// A new batch of `count` jobs for the worker of `generation`, whose first job is begun.
    /// Called under the run's lock, by the step in which that worker takes the batch.
    func open(generation: UInt32, count: Int) {
        word.store(Self.pack(generation: generation, next: 1, limit: count), ordering: .releasing)
    }

    /// The worker of `generation` begins the job at `position`: true unless the batch was closed
    /// before it, or belongs to another worker now.
    func begin(_ position: Int, generation: UInt32) -> Bool {
        var current = word.load(ordering: .acquiring)
        while true {
            let next = Int(current >> 16 & 0xFFFF)
            guard UInt32(truncatingIfNeeded: current >> 32) == generation, next == position,
                position < Int(current & 0xFFFF)
            else { return false }
            let (exchanged, original) = word.compareExchange(
                expected: current, desired: current &+ (1 << 16), ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Closes the batch: its worker begins no more of its jobs. Returns how many it began.
    func close() -> Int {
        var current = word.load(ordering: .acquiring)
        while true {
            let next = current >> 16 & 0xFFFF
            let (exchanged, original) = word.compareExchange(
                expected: current, desired: current & ~0xFFFF | next, ordering: .acquiringAndReleasing)
            if exchanged { return Int(next) }
            current = original
        }
    }

    /// How many jobs of the batch its worker has begun so far.
    var begun: Int { Int(word.load(ordering: .acquiring) >> 16 & 0xFFFF) }

    /// How many jobs of the batch its worker may still begin.
    var unbegun: Int {
        let current = word.load(ordering: .acquiring)
        return max(0, Int(current & 0xFFFF) - Int(current >> 16 & 0xFFFF))
    }
}
