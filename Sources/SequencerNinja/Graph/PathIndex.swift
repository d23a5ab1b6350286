#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The graph's nodes by canonical path: an open-addressing table of node numbers, keyed by a
/// rapidhash of the path's bytes, each node's hash kept beside it.
///
/// A manifest names every path many times (a header is read by every compile), so finding a
/// node is the parser's most frequent step. Against a `[String: NodeID]` this saves a
/// `String` per lookup of a known path (paths arrive as bytes), the SipHash of every lookup,
/// and the rehash of every key each time the table grows (the hashes are kept).
///
/// - Complexity: O(1) on average per lookup and insertion; the table is kept at most half full.
struct PathIndex: Sendable {
    typealias NodeID = NinjaGraph.NodeID

    /// Node numbers by hash, -1 where empty; the count is a power of two.
    private var slots: [NodeID] = Array(repeating: -1, count: 1024)
    /// Each node's hash, by node number.
    private var hashes: [UInt64] = []

    /// How many paths it holds.
    var count: Int { hashes.count }

    /// The node whose path is `bytes`, given the nodes' paths.
    func find(_ bytes: UnsafeRawBufferPointer, hash: UInt64, in nodes: [NinjaGraph.Node]) -> NodeID? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let id = slots[slot]
            if id < 0 { return nil }
            if hashes[Int(id)] == hash, Self.equal(nodes[Int(id)].path, bytes) { return id }
            slot = (slot + 1) & mask
        }
    }

    /// Files node `id`, the next number, under `hash`; the table grows when half full.
    mutating func insert(_ id: NodeID, hash: UInt64) {
        hashes.append(hash)
        if hashes.count * 2 > slots.count { grow() } else { place(id, hash: hash) }
    }

    private mutating func place(_ id: NodeID, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = id
    }

    /// Doubles the table and files every node again, from the kept hashes.
    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        for (id, hash) in hashes.enumerated() { place(NodeID(id), hash: hash) }
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 { RapidHash.hash(bytes, seed: 0) }

    private static func equal(_ path: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var path = path
        return path.withUTF8 { equal(path: $0, bytes) }
    }

    /// Whether a path's UTF-8 is `bytes`.
    static func equal(path utf8: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard utf8.count == bytes.count else { return false }
        guard let left = utf8.baseAddress, let right = bytes.baseAddress else { return true }
        return memcmp(left, right, bytes.count) == 0
    }
}
