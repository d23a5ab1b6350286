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
    /// Each slot is 0 (empty), or a position with 31 bits of its name's hash above it and the top
    /// bit set. The stored hash bits let a probe skip other names, and a rehash or a removal
    /// place entries, without reading the names themselves: one cache miss to insert a new name.
    private var slots: [UInt64] = []
    private var mask = 0
    private(set) var count = 0
    /// The sum of the slots ``touch(_:)`` read: stored, so that the reads are done (a value only
    /// computed was optimised away, reads and all).
    private(set) var touched: UInt64 = 0

    /// Makes room for `capacity` names without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        if size > slots.count { rehash(size: size) }
    }

    /// The position of `id`, or nil.
    func find(_ id: Name, in ids: [Name]) -> Int32? {
        find(id) { ids[Int($0)] }
    }

    /// The position of `id`, or nil; `name` gives the name at a recorded position.
    func find(_ id: Name, name: (Int32) -> Name) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let hash = Self.hash(id)
        return slot(of: id, hash: hash, name: name).map { Self.job(slots[$0]) }
    }

    /// Records that `ids[job]` is at `job`. Returns the earlier position when the name is taken,
    /// and then records nothing.
    mutating func insert(_ job: Int32, ids: [Name]) -> Int32? {
        insert(job, named: ids[Int(job)]) { ids[Int($0)] }
    }

    /// Records that `id` is at `job`. Returns the earlier position when the name is taken, and
    /// then records nothing. `name` gives the name at a recorded position.
    mutating func insert(_ job: Int32, named id: Name, name: (Int32) -> Name) -> Int32? {
        if (count + 1) * 2 > slots.count { rehash(size: max(16, slots.count * 2)) }
        return insert(job, hash: Self.hash(id), named: id, name: name)
    }

    /// Inserts with a known hash; the table must have room (see ``reserveCapacity(_:)``).
    mutating func insert(_ job: Int32, hash: Int, ids: [Name]) -> Int32? {
        insert(job, hash: hash, named: ids[Int(job)]) { ids[Int($0)] }
    }

    private mutating func insert(_ job: Int32, hash: Int, named id: Name, name: (Int32) -> Name) -> Int32? {
        var slot = hash & mask
        while slots[slot] != 0 {
            let entry = slots[slot]
            if Self.hashBits(entry) == Self.hashBits(hash: hash), name(Self.job(entry)) == id { return Self.job(entry) }
            slot = (slot + 1) & mask
        }
        slots[slot] = Self.entry(job, hash: hash)
        count += 1
        return nil
    }

    /// Records that `id` is at `job` now, in place of any earlier position.
    mutating func update(_ job: Int32, named id: Name, name: (Int32) -> Name) {
        if (count + 1) * 2 > slots.count { rehash(size: max(16, slots.count * 2)) }
        let hash = Self.hash(id)
        if let slot = slot(of: id, hash: hash, name: name) {
            slots[slot] = Self.entry(job, hash: hash)
        } else {
            _ = insert(job, hash: hash, named: id, name: name)
        }
    }

    /// Forgets that `id` is at `job`, where `id` is the name at position `job`: does nothing when
    /// the name is recorded at another position (a newer job took it).
    mutating func remove(_ id: Name, at job: Int32) {
        guard !slots.isEmpty else { return }
        let hash = Self.hash(id)
        let expected = Self.entry(job, hash: hash)
        var hole = hash & mask
        while slots[hole] != 0, slots[hole] != expected { hole = (hole + 1) & mask }
        guard slots[hole] != 0 else { return }
        // Moves back each entry that follows, up to the first empty slot, whose probe started at
        // or before the hole: a later probe must not meet an empty slot before its entry.
        var next = (hole + 1) & mask
        while slots[next] != 0 {
            let home = Int(Self.hashBits(slots[next])) & mask
            if (next &- hole) & mask <= (next &- home) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = 0
        count -= 1
    }

    /// The slot that records `id`, or nil.
    private func slot(of id: Name, hash: Int, name: (Int32) -> Name) -> Int? {
        var slot = hash & mask
        while slots[slot] != 0 {
            let entry = slots[slot]
            if Self.hashBits(entry) == Self.hashBits(hash: hash), name(Self.job(entry)) == id { return slot }
            slot = (slot + 1) & mask
        }
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
            if Self.hashBits(entry) == Self.hashBits(hash: hash) { return Self.job(entry) }
            slot = (slot + 1) & mask
        }
    }

    /// Reads the first slot of each hash, so that the lookups that follow find them in cache.
    /// The reads are independent, so the processor overlaps their cache misses.
    mutating func touch(_ hashes: [Int]) {
        guard !slots.isEmpty else { return }
        var sum: UInt64 = 0
        for hash in hashes { sum &+= slots[hash & mask] }
        touched &+= sum
    }

    private static func hashBits(_ entry: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: entry >> 32) & 0x7fff_ffff }
    private static func hashBits(hash: Int) -> UInt32 { UInt32(truncatingIfNeeded: hash) & 0x7fff_ffff }
    private static func job(_ entry: UInt64) -> Int32 { Int32(truncatingIfNeeded: entry) }
    private static func entry(_ job: Int32, hash: Int) -> UInt64 {
        1 << 63 | UInt64(hashBits(hash: hash)) << 32 | UInt64(UInt32(bitPattern: job))
    }

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

    /// FNV-1a over the name's UTF-8 bytes, from a start chosen at random for each process, finished
    /// with a multiply-shift mix. Several times cheaper than a seeded SipHash on short names. Job
    /// names and keys come from the program's own code; the random start keeps names chosen
    /// outside it from being worked out in advance to collide, though the hash is not keyed
    /// against an attacker who can time it. Tables up to 2^31 slots use its low 31 bits.
    static func hash(_ id: Name) -> Int {
        var hash: UInt64 = nameHashStart
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

/// The start of every ``NameIndex`` hash in this process: FNV-1a's offset basis, mixed with a
/// random number.
private let nameHashStart: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64.random(in: 0...UInt64.max)
