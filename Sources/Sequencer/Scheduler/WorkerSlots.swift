/// The run's workers: at most `limit` bodies running at once, each in a numbered slot.
///
/// A slot belongs to one worker task at a time; its generation is bumped each time it gets a
/// new worker (or its worker is abandoned), so a late report from an old worker is recognised
/// and ignored. A parent waiting for its children keeps its slot but is *suspended*: it does
/// not count against the limit. Parked workers wait in ``idle`` for a job.
struct WorkerSlots<Waiter> {
    struct Slot {
        /// The job the slot's worker runs, or nil when it has none.
        var job: Int32?
        /// Set when the worker must exit after its job (its job was cancelled).
        var retiring = false
        /// Set while its job is a parent waiting for its children.
        var suspended = false
        var generation: UInt32 = 0
        /// The jobs it took in one step, in order, while their batch is open (the first is `job`);
        /// empty otherwise. See ``BatchClaim``. Set through ``WorkerSlots/openBatch(_:_:)``.
        fileprivate(set) var batch: [Int32] = []
        /// Jobs of its closed batch whose bodies returned before the one it runs now: they end
        /// with its next report.
        fileprivate(set) var awaiting: [Int32] = []
        /// Where its worker claims each job of a batch.
        let claim = BatchClaim()

        /// How many jobs of its open batch its worker has begun: at least the first, at most all.
        var begunInBatch: Int { min(batch.count, max(1, claim.begun)) }
    }

    let limit: Int
    private(set) var slots: [Slot] = []
    private var free: [Int] = []
    /// Parked workers, by slot, with what wakes them.
    var idle: [(slot: Int, waiter: Waiter)] = []
    /// Workers running a body now (suspended parents excluded).
    private(set) var live = 0
    /// The slots with an open batch or jobs awaiting their worker's report: at most one per
    /// worker, so that finding a batch never walks every slot (a run whose parents wait for
    /// their children has as many slots as waiting parents).
    private(set) var batching: [Int] = []

    init(limit: Int) { self.limit = max(1, limit) }

    var hasRoom: Bool { live < limit }

    subscript(slot: Int) -> Slot {
        get { slots[slot] }
        _modify { yield &slots[slot] }
    }

    /// A slot for a new worker: counted as live, with a new generation.
    mutating func open() -> Int {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
        } else {
            slot = slots.count
            slots.append(Slot())
        }
        slots[slot].job = nil
        slots[slot].retiring = false
        endBatch(slot)
        slots[slot].generation &+= 1
        live += 1
        return slot
    }

    /// Gives back a slot opened for a worker that never started (no job was left for it).
    mutating func unopen(_ slot: Int) {
        live -= 1
        free.append(slot)
    }

    /// The worker in `slot` stops; its slot becomes free.
    mutating func retire(_ slot: Int) {
        slots[slot].job = nil
        slots[slot].retiring = false
        endBatch(slot)
        live -= 1
        free.append(slot)
    }

    /// The worker in `slot` is detached: its job ended without it. Whatever it reports later
    /// is ignored (its generation changed).
    mutating func detach(_ slot: Int) {
        if !slots[slot].suspended { live -= 1 }
        endBatch(slot)
        slots[slot] = Slot(generation: slots[slot].generation &+ 1)
        free.append(slot)
    }

    /// A parent in `slot` waits for its children: its worker no longer counts.
    mutating func suspend(_ slot: Int) {
        slots[slot].suspended = true
        live -= 1
    }

    /// A parent in `slot` resumes: its worker counts again.
    mutating func unsuspend(_ slot: Int) {
        slots[slot].suspended = false
        live += 1
    }

    /// The slot whose worker runs `job`.
    func slot(running job: Int32) -> Int? {
        slots.firstIndex { $0.job == job }
    }

    // MARK: - Batches

    /// The worker in `slot` took `batch` in one step; its first job is begun.
    mutating func openBatch(_ slot: Int, _ batch: [Int32]) {
        slots[slot].batch = batch
        slots[slot].awaiting = []
        slots[slot].claim.open(generation: slots[slot].generation, count: batch.count)
        if !batching.contains(slot) { batching.append(slot) }
    }

    /// The batch of `slot` is closed: `awaiting` are the jobs whose bodies returned and which its
    /// worker has not reported.
    mutating func closeBatch(_ slot: Int, awaiting: [Int32]) {
        slots[slot].batch = []
        slots[slot].awaiting = awaiting
        if awaiting.isEmpty { endBatch(slot) }
    }

    /// The worker in `slot` reported, or left: nothing of a batch is left there.
    mutating func endBatch(_ slot: Int) {
        guard let index = batching.firstIndex(of: slot) else { return }
        slots[slot].batch = []
        slots[slot].awaiting = []
        batching.swapAt(index, batching.count - 1)
        batching.removeLast()
    }

    /// The slot whose worker holds `job` in its open batch, begun or not.
    func slot(batching job: Int32) -> Int? {
        batching.first { slots[$0].batch.contains(job) }
    }

    /// Whether `job`'s body returned in a worker that has not reported it yet (see
    /// ``Slot/awaiting``).
    func isAwaitingReport(_ job: Int32) -> Bool {
        batching.contains { slots[$0].awaiting.contains(job) }
    }

    /// The jobs workers run now (suspended parents included), in slot order. In an open batch,
    /// the jobs its worker began (the last one runs); those it has not begun are not listed.
    var jobs: [Int32] {
        slots.flatMap { slot in
            guard !slot.batch.isEmpty else { return slot.awaiting + (slot.job.map { [$0] } ?? []) }
            return Array(slot.batch.prefix(slot.begunInBatch))
        }
    }
}

extension WorkerSlots: Sendable where Waiter: Sendable {}
