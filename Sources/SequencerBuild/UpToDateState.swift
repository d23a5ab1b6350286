import Foundation
import SequencerJournal
public import SequencerWorkflowFile

/// The files as they were when every job of a workflow file was last found up to date: the
/// file's digest, and the stamp (size, modification time, inode) of every output and input
/// the decision read. While the file and every one of those stamps are unchanged, every
/// fingerprint is too (an input's hash is trusted by its stamp, as ``FileHasher`` trusts
/// it), so the next run is a no-op decided with a `stat` per file and a compare, as ninja
/// decides one, without loading the file or computing a fingerprint.
///
/// The journal keeps it (`up_to_date_states`) until the workflow's fingerprints next change.
/// Only files it can describe get one (``canDescribe(_:pathsUseVariables:)``): no glob
/// inputs (what they match may change without a stamp changing), no environment variables
/// in paths (the environment may change). The file lists templates range over are listed
/// again and compared, as the compiled copy of the file does.
///
/// ```swift
/// if let bytes = try journal.upToDateState(workflow: key), let state = UpToDateState(decoding: bytes),
///    state.sourceIsCurrent(path: "sequencer.yml") /* then, holding the journal's lock: */, state.filesAreCurrent() {
///     // every job is up to date: state.names, needs first
/// }
/// ```
public struct UpToDateState: Equatable, Sendable {
    /// A file the decision read, with its stamp as ``FileHasher/describeStamp(of:)`` writes it.
    public struct File: Equatable, Sendable {
        public var path: String
        public var stamp: [UInt8]

        public init(path: String, stamp: [UInt8]) {
            self.path = path
            self.stamp = stamp
        }
    }

    /// The format: bump it when fingerprints change meaning, so that a state another build
    /// wrote is not trusted.
    static let format: UInt8 = 4
    private static let magic = Array("SQUS".utf8)

    /// The SHA-256 of the workflow file's bytes, as loaded for the decision.
    public var fileDigest: String
    /// The files it includes (absolute), and the SHA-256 of each as the file was read with it.
    public var includes: [String]
    public var includeDigests: [String]
    /// The file lists its templates range over, as the decision's file had them, and the
    /// directory (absolute) their patterns are in: a new source file is a new job.
    public var listings: [WorkflowFile.FileListing] = []
    public var directory = "/"
    /// The warnings the run printed (a template whose files are none, say), printed again.
    public var warnings: [String] = []
    /// The jobs, each after the jobs it needs (the order a run adds them).
    public var names: [String]
    /// Every output and input file the decision read, once each, by absolute path.
    public var files: [File] { fileSection.files }
    private let fileSection: FileSection

    public init(
        fileDigest: String, includes: [String] = [], includeDigests: [String] = [], listings: [WorkflowFile.FileListing] = [],
        directory: String = "/", warnings: [String] = [], names: [String], files: [File]
    ) {
        self.init(fileDigest: fileDigest, includes: includes, includeDigests: includeDigests, names: names, fileSection: FileSection(files))
        self.listings = listings
        self.directory = directory
        self.warnings = warnings
    }

    private init(fileDigest: String, includes: [String], includeDigests: [String], names: [String], fileSection: FileSection) {
        self.fileDigest = fileDigest
        self.includes = includes
        self.includeDigests = includeDigests
        self.names = names
        self.fileSection = fileSection
    }

    /// Whether a state can stand for `file`'s decision: every job declares outputs and reads
    /// no glob, and no path uses a variable (`pathsUseVariables`, asked of the file before its
    /// variables were expanded).
    public static func canDescribe(_ file: WorkflowFile, pathsUseVariables: Bool) -> Bool {
        !pathsUseVariables
            && file.jobs.allSatisfy { job in
                !job.outputEntries.isEmpty && !job.inputEntries.contains { FilePattern.isGlob($0.path) }
            }
    }

    /// Whether the workflow file at `path`, the files it includes, its templates' file lists
    /// and every file of the state are as they were (``sourceIsCurrent(path:)``, then
    /// ``filesAreCurrent()``).
    public func isCurrent(path: String) -> Bool {
        sourceIsCurrent(path: path) && filesAreCurrent()
    }

    /// Whether the workflow file at `path` and the files it includes are as they were: a
    /// digest of each.
    public func sourceIsCurrent(path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path), FileHasher.digest(of: data) == fileDigest else { return false }
        return CompiledWorkflowCache.digests(of: includes) == includeDigests
    }

    /// Whether the templates' file lists and every file of the state are as they were: the
    /// lists listed again, then a `stat` per file (on two threads, see ``FileSection``). Ask
    /// it while holding the journal's lock, so that no run changes a file meanwhile.
    public func filesAreCurrent() -> Bool {
        listings.allSatisfy { $0.isCurrent(in: directory) } && fileSection.isCurrent()
    }

    // MARK: - Encoding

    /// The state as bytes, for the journal.
    public func encoded() -> [UInt8] {
        var bytes = Self.magic + [Self.format]
        func put(_ number: Int) { withUnsafeBytes(of: UInt32(number).littleEndian) { bytes.append(contentsOf: $0) } }
        func put(_ text: some Collection<UInt8>) {
            put(text.count)
            bytes.append(contentsOf: text)
        }
        put(fileDigest.utf8)
        put(includes.count)
        for include in includes { put(include.utf8) }
        put(includeDigests.count)
        for digest in includeDigests { put(digest.utf8) }
        put(directory.utf8)
        put(listings.count)
        for listing in listings {
            for list in [listing.patterns, listing.excluded, listing.files] {
                put(list.count)
                for item in list { put(item.utf8) }
            }
        }
        put(warnings.count)
        for warning in warnings { put(warning.utf8) }
        put(names.count)
        for name in names { put(name.utf8) }
        put(fileSection.bytes)
        return bytes
    }

    /// The state `bytes` encode; nil when they are damaged, or of another format.
    public init?(decoding bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard reader.take(Self.magic.count).map(Array.init) == Self.magic, reader.take(1)?.first == Self.format,
              let fileDigest = reader.text(), let includes = reader.list({ $0.text() }),
              let includeDigests = reader.list({ $0.text() }), let directory = reader.text(),
              let listings = reader.list({ reader -> WorkflowFile.FileListing? in
                  guard let patterns = reader.list({ $0.text() }), let excluded = reader.list({ $0.text() }),
                        let files = reader.list({ $0.text() }) else { return nil }
                  return WorkflowFile.FileListing(patterns: patterns, excluded: excluded, files: files)
              }),
              let warnings = reader.list({ $0.text() }), let names = reader.list({ $0.text() }),
              let files = reader.blob().flatMap(FileSection.init(encoded:)),
              reader.atEnd
        else { return nil }
        self.init(fileDigest: fileDigest, includes: includes, includeDigests: includeDigests, names: names, fileSection: files)
        self.listings = listings
        self.directory = directory
        self.warnings = warnings
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func number() -> Int? {
            guard let four = take(4) else { return nil }
            return Int(four.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }

        mutating func blob() -> [UInt8]? {
            guard let count = number(), let slice = take(count) else { return nil }
            return Array(slice)
        }

        mutating func text() -> String? {
            guard let blob = blob() else { return nil }
            return String(validating: blob, as: UTF8.self)
        }

        /// A count, then that many elements; nil when one cannot be read (or the count is
        /// beyond what is left, from a damaged count).
        mutating func list<Element>(_ element: (inout Reader) -> Element?) -> [Element]? {
            guard let count = number(), count <= bytes.count - offset else { return nil }
            var elements: [Element] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                guard let next = element(&self) else { return nil }
                elements.append(next)
            }
            return elements
        }
    }
}
