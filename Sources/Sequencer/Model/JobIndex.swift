/// Finds a job's position from its ID: an open-addressing hash table of positions into the
/// workflow's array of IDs.
///
/// Four bytes a slot at a load of at most one half, instead of a `[JobID: Int32]` dictionary's
/// copy of every key: about 8 bytes a job rather than about 40, and one probe where a
/// dictionary needs several cache misses.
struct JobIndex: Sendable {
    private var slots: [Int32] = []
    private var mask = 0
    private(set) var count = 0

    /// Makes room for `capacity` IDs without growing.
    mutating func reserveCapacity(_ capacity: Int, ids: [JobID]) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        if size > slots.count { rehash(size: size, ids: ids) }
    }

    /// The position of `id`, or nil.
    func find(_ id: JobID, in ids: [JobID]) -> Int32? {
        guard !slots.isEmpty else { return nil }
        var slot = Self.hash(id) & mask
        while true {
            let job = slots[slot]
            if job < 0 { return nil }
            if ids[Int(job)] == id { return job }
            slot = (slot + 1) & mask
        }
    }

    /// Records that `ids[job]` is at `job`. Returns the earlier position when the ID is taken,
    /// and then records nothing.
    mutating func insert(_ job: Int32, ids: [JobID]) -> Int32? {
        if (count + 1) * 2 > slots.count { rehash(size: max(16, slots.count * 2), ids: ids) }
        let id = ids[Int(job)]
        var slot = Self.hash(id) & mask
        while true {
            let existing = slots[slot]
            if existing < 0 { break }
            if ids[Int(existing)] == id { return existing }
            slot = (slot + 1) & mask
        }
        slots[slot] = job
        count += 1
        return nil
    }

    private mutating func rehash(size: Int, ids: [JobID]) {
        let old = slots
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
        for job in old where job >= 0 {
            var slot = Self.hash(ids[Int(job)]) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = job
        }
    }

    /// FNV-1a over the ID's UTF-8 bytes, finished with a multiply-shift mix. Job names are not
    /// adversarial input (they come from the workflow's own author), and this is several times
    /// cheaper than a seeded SipHash on short names.
    static func hash(_ id: JobID) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var name = id.rawValue
        name.withUTF8 { bytes in
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 32
        return Int(truncatingIfNeeded: hash)
    }
}
