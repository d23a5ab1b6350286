/// The distinct paths a depfile parse has found, as ranges of one byte buffer: an open
/// addressing hash table (hashed with MurmurHash64A), so that finding whether a path was seen
/// costs no allocation.
struct NinjaDepfilePathSet {
    private(set) var ranges: [Range<Int>] = []
    /// Index into `ranges` plus one; 0 is an empty slot.
    private var slots: [Int32] = Array(repeating: 0, count: 64)
    private var hashes: [UInt64] = []

    /// Whether `storage[range]` is in the set.
    func contains(_ range: Range<Int>, hash: UInt64, in storage: UnsafeBufferPointer<UInt8>) -> Bool {
        find(range, hash: hash, in: storage).found
    }

    /// Adds `storage[range]` unless it is in the set; returns whether it was added.
    mutating func insert(_ range: Range<Int>, hash: UInt64, in storage: UnsafeBufferPointer<UInt8>) -> Bool {
        let (found, slot) = find(range, hash: hash, in: storage)
        if found { return false }
        ranges.append(range)
        hashes.append(hash)
        slots[slot] = Int32(ranges.count)
        if ranges.count * 2 > slots.count { grow() }
        return true
    }

    static func hash(_ range: Range<Int>, in storage: UnsafeBufferPointer<UInt8>) -> UInt64 {
        MurmurHash64A.hash(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: storage[range])), seed: 0)
    }

    private func find(_ range: Range<Int>, hash: UInt64, in storage: UnsafeBufferPointer<UInt8>) -> (found: Bool, slot: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return (false, slot) }
            let candidate = ranges[entry - 1]
            if hashes[entry - 1] == hash, candidate.count == range.count,
                storage[candidate].elementsEqual(storage[range])
            {
                return (true, slot)
            }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
        }
    }
}
