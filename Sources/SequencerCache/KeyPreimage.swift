import Foundation

/// What went into a job's cache key, entry by entry. The key is the SHA-256 of these entries;
/// the entries themselves are kept with the result, so that a miss can be explained by the
/// first entry that differs from the nearest result (`--explain`), and two keys compared.
///
/// Entries are kept sorted by kind, then name: the same entries give the same key in any order.
/// Each is hashed with its length, so that no two lists of entries give the same bytes.
public struct KeyPreimage: Sendable, Hashable, Codable {
    /// What an entry stands for, in the order a difference is explained.
    public enum Kind: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
        /// The key's own format: a new format makes every key new.
        case format
        case command
        case workingDirectory
        /// The executable the command starts, by content.
        case tool
        case environment
        /// A declared input, by content.
        case input
        /// An input found by the job's depfile, by content.
        case discovered
        /// An input declared volatile (a build stamp): by name only, its content left out.
        case volatile
        case output
        case timeout

        public static func < (lhs: Kind, rhs: Kind) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }
    }

    public struct Entry: Sendable, Hashable, Codable {
        public var kind: Kind
        /// The path, variable or tool it is about; empty for the command, the working directory,
        /// the format and the timeout.
        public var name: String
        public var value: String

        /// An entry about `name` (a path, a variable, a tool).
        public init(_ kind: Kind, _ name: String, _ value: String) {
            (self.kind, self.name, self.value) = (kind, name, value)
        }

        /// An entry of a kind the job has once (its command, its timeout).
        public init(_ kind: Kind, _ value: String) {
            self.init(kind, "", value)
        }
    }

    /// The format every key of this version starts with.
    public static let format = "sequencer-cache 1"

    /// The entries, sorted by kind and name; of two with the same kind and name, the last given.
    public let entries: [Entry]

    public init(_ entries: [Entry]) {
        var unique: [String: Entry] = [:]
        for entry in entries { unique[entry.kind.rawValue + "\u{0}" + entry.name] = entry }
        self.entries = unique.values.sorted { ($0.kind, $0.name) < ($1.kind, $1.name) }
    }

    /// The key: the SHA-256 of the entries, each field written with its length.
    public var digest: CacheDigest {
        var bytes: [UInt8] = []
        for entry in entries {
            for field in [entry.kind.rawValue, entry.name, entry.value] {
                let utf8 = Array(field.utf8)
                withUnsafeBytes(of: UInt64(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
                bytes.append(contentsOf: utf8)
            }
        }
        return CacheDigest.of(bytes)
    }

    /// The value of the entry of `kind` named `name`, if there is one.
    public func value(_ kind: Kind, _ name: String = "") -> String? {
        entries.first { $0.kind == kind && $0.name == name }?.value
    }

    /// Why a job with these entries missed a result made with `other`'s, in words: the first
    /// entry that differs, by kind in the order of ``Kind``, then by name. Nil when they are the
    /// same.
    public func firstDifference(from other: KeyPreimage) -> String? {
        let mine = Dictionary(entries.map { ($0.kind.rawValue + "\u{0}" + $0.name, $0) }) { _, last in last }
        let theirs = Dictionary(other.entries.map { ($0.kind.rawValue + "\u{0}" + $0.name, $0) }) { _, last in last }
        let names = Set(mine.keys).union(theirs.keys).compactMap { mine[$0] ?? theirs[$0] }
            .sorted { ($0.kind, $0.name) < ($1.kind, $1.name) }
        for entry in names {
            let id = entry.kind.rawValue + "\u{0}" + entry.name
            let (here, there) = (mine[id]?.value, theirs[id]?.value)
            guard here != there else { continue }
            return Self.explain(entry.kind, entry.name, here: here, there: there)
        }
        return nil
    }

    private static func explain(_ kind: Kind, _ name: String, here: String?, there: String?) -> String {
        switch kind {
        case .format: return "the entry was made with another key format (\(there ?? "none"); this one is \(here ?? "none"))"
        case .command: return "its command differs"
        case .workingDirectory: return "its working directory differs"
        case .tool: return "the tool '\(name)' differs (\(there.map { short($0) } ?? "none") there, \(here.map { short($0) } ?? "none") here)"
        case .environment:
            guard let here else { return "environment variable \(name) is not set here" }
            guard there != nil else { return "environment variable \(name) is set here, not there" }
            return "environment variable \(name) differs" + (here.count < 60 ? " (\(here) here)" : "")
        case .input, .discovered:
            let found = kind == .discovered ? " (found by its depfile)" : ""
            guard here != nil else { return "\(name)\(found) is not an input here" }
            guard there != nil else { return "\(name)\(found) is a new input" }
            return "input \(name)\(found) differs"
        case .volatile: return here == nil ? "\(name) is not a volatile input here" : "\(name) is a new volatile input"
        case .output: return here == nil ? "\(name) is not an output here" : there == nil ? "\(name) is a new output" : "its outputs differ"
        case .timeout: return "its timeout differs"
        }
    }

    private static func short(_ value: String) -> String {
        CacheDigest(hex: value)?.short ?? value
    }
}

extension KeyPreimage {
    /// The key under which a job's latest result is named (``CacheRecord/latest(_:)``): by the
    /// workflow's path relative to the project's root and the job's name, so that a miss can be
    /// explained against the job's nearest entry.
    public static func latestKey(workflow: String, job: String) -> CacheDigest {
        KeyPreimage([Entry(.format, "lookup", "latest"), Entry(.command, workflow, job)]).digest
    }

    /// These entries and `more` (which replace any of the same kind and name).
    public func adding(_ more: [Entry]) -> KeyPreimage {
        KeyPreimage(entries + more)
    }

    /// These entries but those of `kind`.
    public func removing(_ kind: Kind) -> KeyPreimage {
        KeyPreimage(entries.filter { $0.kind != kind })
    }
}
