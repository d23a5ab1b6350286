import SequencerJournal

/// The parts a job's fingerprint is made of, each a key and a short hash: `command`, `env`,
/// `cwd`, `outputs`, `input:PATH` (or `input:PATTERN` when a glob matched no file), and
/// `need:JOB`. The fingerprint is the SHA-256 of the parts sorted by key, a
/// `KEY<TAB>VALUE` line each: the text the journal keeps in its `parts` column.
///
/// Built by appending, as a dictionary would be (setting a key again replaces its value), but
/// without hashing keys: a job has a few parts, and a no-op run computes one set per job.
///
/// ```swift
/// var parts = FingerprintParts()
/// parts["command"] = FileHasher.quickDigest(of: "cc -c a.c")
/// parts["input:a.c"] = hasher.hash("/src/a.c") ?? "missing"
/// let fingerprint = parts.fingerprint   // 64 hex digits
/// ```
public struct FingerprintParts: Sendable, Equatable {
    /// The parts in the order they were set; a key set twice appears twice, the later wins.
    private var entries: [(key: String, value: String)] = []

    public init() {}

    /// Parts with these keys and values.
    public init(_ parts: [String: String]) {
        entries = parts.map { ($0.key, $0.value) }
    }

    /// The value of a part, or nil; setting one replaces an earlier value of the same key.
    ///
    /// - Complexity: get O(parts); set O(1), amortised.
    public subscript(key: String) -> String? {
        get { entries.last { $0.key == key }?.value }
        set {
            if let newValue {
                entries.append((key, newValue))
            } else {
                entries.removeAll { $0.key == key }
            }
        }
    }

    /// The parts sorted by key, each key once (its last value).
    ///
    /// - Complexity: O(p log p) for p parts.
    public var sorted: [(key: String, value: String)] { order.map { entries[$0] } }

    /// The positions in ``entries`` of the parts sorted by key, each key once (its last value).
    private var order: [Int] {
        var order = Array(entries.indices)
        // Parts set in key order, each key once (as `UpToDate` sets them), need no sort.
        if entries.indices.dropFirst().allSatisfy({ entries[$0 - 1].key < entries[$0].key }) { return order }
        // By key, then by position, so that of a key set twice the later value comes last.
        order.sort { a, b in entries[a].key != entries[b].key ? entries[a].key < entries[b].key : a < b }
        var kept = 0
        for (index, position) in order.enumerated() {
            if index + 1 < order.count, entries[order[index + 1]].key == entries[position].key { continue }
            order[kept] = position
            kept += 1
        }
        order.removeSubrange(kept...)
        return order
    }

    /// The parts as a dictionary, by key.
    public var dictionary: [String: String] {
        Dictionary(entries.map { ($0.key, $0.value) }) { _, later in later }
    }

    /// The SHA-256 (hex) of the parts sorted by key, a `KEY<TAB>VALUE` line each, without a
    /// final newline: the same text, and so the same fingerprint, as the journal's earlier
    /// versions computed from a dictionary.
    public var fingerprint: String {
        var text: [UInt8] = []
        return fingerprint(scratch: &text)
    }

    /// ``fingerprint``, its text written in `scratch` (emptied first), so that a pass over many
    /// jobs reuses one buffer.
    public func fingerprint(scratch text: inout [UInt8]) -> String {
        text.removeAll(keepingCapacity: true)
        for (index, position) in order.enumerated() {
            if index > 0 { text.append(UInt8(ascii: "\n")) }
            Self.append(entries[position].key, to: &text)
            text.append(UInt8(ascii: "\t"))
            Self.append(entries[position].value, to: &text)
        }
        return FileHasher.digest(of: text)
    }

    private static func append(_ string: String, to text: inout [UInt8]) {
        var string = string
        string.withUTF8 { text.append(contentsOf: $0) }
    }

    public static func == (left: FingerprintParts, right: FingerprintParts) -> Bool {
        left.sorted.elementsEqual(right.sorted) { $0.key == $1.key && $0.value == $1.value }
    }
}
