/// A name a ``NameIndex`` can find: a job's ID, or a coalescing key.
protocol IndexedName: Equatable, Sendable {
    /// The text that is hashed.
    var indexedText: String { get }
}

extension JobID: IndexedName {
    var indexedText: String { rawValue }
}

extension String: IndexedName {
    var indexedText: String { self }
}

/// Finds a job's position from its ID.
typealias JobIndex = NameIndex<JobID>

/// Finds a name's position in an array of names (the workflow's job IDs, or its coalescing
/// keys): an open-addressing hash table of positions into that array.
///
/// Eight bytes a slot at a load of at most one half, instead of a `[JobID: Int32]` dictionary's
/// copy of every key: about 16 bytes a name rather than about 40, and one probe where a
/// dictionary needs several cache misses.
struct NameIndex<Name: IndexedName>: Sendable {
    /// Each slot is 0 (empty) or the low 32 bits of the ID's hash above the job's position + 1.
    /// The stored hash bits let a probe skip other IDs, and a rehash place entries, without
    /// reading the IDs themselves: one cache miss to insert a new ID.
    private var slots: [UInt64] = []
    private var mask = 0
    private(set) var count = 0

    /// Makes room for `capacity` IDs without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        if size > slots.count { rehash(size: size) }
    }

    /// The position of `id`, or nil.
    func find(_ id: Name, in ids: [Name]) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let hash = Self.hash(id)
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if Self.hashBits(entry) == UInt32(truncatingIfNeeded: hash) {
                let job = Self.job(entry)
                if ids[Int(job)] == id { return job }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Records that `ids[job]` is at `job`. Returns the earlier position when the ID is taken,
    /// and then records nothing.
    mutating func insert(_ job: Int32, ids: [Name]) -> Int32? {
        if (count + 1) * 2 > slots.count { rehash(size: max(16, slots.count * 2)) }
        return insert(job, hash: Self.hash(ids[Int(job)]), ids: ids)
    }

    /// Inserts with a known hash; the table must have room (see ``reserveCapacity(_:)``).
    mutating func insert(_ job: Int32, hash: Int, ids: [Name]) -> Int32? {
        let id = ids[Int(job)]
        let bits = UInt32(truncatingIfNeeded: hash)
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if Self.hashBits(entry) == bits, ids[Int(Self.job(entry))] == id { return Self.job(entry) }
            slot = (slot + 1) & mask
        }
        slots[slot] = UInt64(bits) << 32 | UInt64(UInt32(job) + 1)
        count += 1
        return nil
    }

    /// The first job whose stored hash bits match `hash`, or -1: a likely answer to `find`,
    /// to be confirmed by comparing IDs.
    func candidate(hash: Int) -> Int32 {
        guard !slots.isEmpty else { return -1 }
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return -1 }
            if Self.hashBits(entry) == UInt32(truncatingIfNeeded: hash) { return Self.job(entry) }
            slot = (slot + 1) & mask
        }
    }

    /// Reads the first slot of each hash, so that the lookups that follow find them in cache.
    /// The reads are independent, so the processor overlaps their cache misses.
    /// - Returns: a value that depends on every read, so they are not optimised away.
    func touch(_ hashes: [Int]) -> UInt64 {
        guard !slots.isEmpty else { return 0 }
        var sum: UInt64 = 0
        for hash in hashes { sum &+= slots[hash & mask] }
        return sum
    }

    private static func hashBits(_ entry: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: entry >> 32) }
    private static func job(_ entry: UInt64) -> Int32 { Int32(truncatingIfNeeded: entry & 0xffff_ffff) - 1 }

    private mutating func rehash(size: Int) {
        let old = slots
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        for entry in old where entry != 0 {
            var slot = Int(Self.hashBits(entry)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }

    /// FNV-1a over the name's UTF-8 bytes, finished with a multiply-shift mix. Job names and keys are
    /// not adversarial input (they come from the workflow's own author), and this is several times
    /// cheaper than a seeded SipHash on short names. Tables up to 2^32 slots use its low 32 bits.
    static func hash(_ id: Name) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var name = id.indexedText
        name.withUTF8 { bytes in
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 32
        return Int(truncatingIfNeeded: hash & 0xffff_ffff)
    }
}
