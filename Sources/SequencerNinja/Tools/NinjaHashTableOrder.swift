/// The order in which ninja (built with GCC's libstdc++, as Linux distributions build it) walks
/// its hash tables of paths: the nodes of its state (whose first "did you mean" suggestion
/// wins a tie) and the entries of `.ninja_log` (which `cleandead` removes, and `recompact` and
/// `restat` write, in that order).
///
/// Those tables are `std::unordered_map`s keyed by path with ninja's `MurmurHash2`. libstdc++
/// keeps all entries in one singly linked list, each bucket's entries together; an entry
/// whose bucket is empty goes to the front of the list, any other to the front of its
/// bucket's run; and a rehash (when the table holds as many entries as buckets) rebuilds the
/// list by taking the entries in order and applying the same rule. This replays that.
enum NinjaHashTableOrder {
    /// The bucket counts of a table that grows one insertion at a time, from its first
    /// insertion on: libstdc++ starts at 13 and then takes, each time the entries outnumber the
    /// buckets, the first prime of its table at least twice the count.
    static let bucketCounts: [Int] = [
        13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229, 172933, 351061, 712697, 1_447_153,
        2_938_679, 5_967_347, 12_117_689, 24_607_243, 49_969_847, 101_473_717, 206_062_531, 418_451_333, 849_749_479, 1_725_587_117,
        3_504_151_727,
    ]

    /// The positions of `keys` (distinct, inserted in this order into an empty table) in the
    /// order the table's iteration visits them.
    static func iterationOrder(ofInsertedKeys keys: [String]) -> [Int] {
        let hashes = keys.map { Int(murmurHash2(Array($0.utf8))) }
        var table = LinkedTable(count: keys.count)
        var sizeIndex = -1
        for key in keys.indices {
            if sizeIndex < 0 || key + 1 > bucketCounts[sizeIndex] {
                sizeIndex = min(sizeIndex + 1, bucketCounts.count - 1)
                table.rehash(bucketCount: bucketCounts[sizeIndex], hashes: hashes)
            }
            table.insert(key, hashes: hashes)
        }
        return table.order
    }

    /// `paths` in the order ninja's table of them walks them, when it inserted them in this
    /// order.
    static func ordered(_ paths: [String]) -> [String] {
        iterationOrder(ofInsertedKeys: paths).map { paths[$0] }
    }

    /// ninja's `MurmurHash2` of a path (seed `0xDECAFBAD`), as `std::hash<StringPiece>`.
    static func murmurHash2(_ bytes: [UInt8]) -> UInt32 {
        let multiplier: UInt32 = 0x5bd1_e995
        var hash: UInt32 = 0xDECA_FBAD ^ UInt32(truncatingIfNeeded: bytes.count)
        var index = 0
        while bytes.count - index >= 4 {
            var word =
                UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
            word &*= multiplier
            word ^= word >> 24
            word &*= multiplier
            hash &*= multiplier
            hash ^= word
            index += 4
        }
        let rest = bytes.count - index
        if rest >= 3 { hash ^= UInt32(bytes[index + 2]) << 16 }
        if rest >= 2 { hash ^= UInt32(bytes[index + 1]) << 8 }
        if rest >= 1 {
            hash ^= UInt32(bytes[index])
            hash &*= multiplier
        }
        hash ^= hash >> 13
        hash &*= multiplier
        hash ^= hash >> 15
        return hash
    }

    /// libstdc++'s list of entries and its buckets.
    private struct LinkedTable {
        /// Stands for the list's head ("before begin") where a bucket refers to it.
        static let head = -1
        static let none = -2
        /// The entry after each entry, or `none`.
        var next: [Int]
        /// The first entry, or `none`.
        var first = none
        /// For each bucket, the entry before its first one (`head` when it starts the list),
        /// or `none` when it is empty.
        var buckets: [Int] = []

        init(count: Int) { next = Array(repeating: Self.none, count: count) }

        /// The entries from the first.
        var order: [Int] {
            var result: [Int] = []
            var entry = first
            while entry != Self.none {
                result.append(entry)
                entry = next[entry]
            }
            return result
        }

        func after(_ entry: Int) -> Int { entry == Self.head ? first : next[entry] }

        mutating func setAfter(_ entry: Int, _ value: Int) {
            if entry == Self.head { first = value } else { next[entry] = value }
        }

        /// Inserts `entry` at the start of its bucket's run, or of the list.
        mutating func insert(_ entry: Int, hashes: [Int]) {
            let bucket = hashes[entry] % buckets.count
            let before = buckets[bucket]
            if before != Self.none {
                next[entry] = after(before)
                setAfter(before, entry)
                return
            }
            next[entry] = first
            first = entry
            if next[entry] != Self.none { buckets[hashes[next[entry]] % buckets.count] = entry }
            buckets[bucket] = Self.head
        }

        /// Rebuilds the list for `bucketCount` buckets, as libstdc++'s `_M_rehash_aux`.
        mutating func rehash(bucketCount: Int, hashes: [Int]) {
            var fresh = Array(repeating: Self.none, count: bucketCount)
            var entry = first
            first = Self.none
            var firstBucket = 0
            while entry != Self.none {
                let following = next[entry]
                let bucket = hashes[entry] % bucketCount
                if fresh[bucket] == Self.none {
                    next[entry] = first
                    first = entry
                    fresh[bucket] = Self.head
                    if next[entry] != Self.none { fresh[firstBucket] = entry }
                    firstBucket = bucket
                } else {
                    next[entry] = after(fresh[bucket])
                    setAfter(fresh[bucket], entry)
                }
                entry = following
            }
            buckets = fresh
        }
    }
}
