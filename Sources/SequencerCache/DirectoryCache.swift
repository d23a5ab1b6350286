#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization
internal import Sequencer

/// A cache in a directory: on this machine, or on a mount many machines share. Safe for many
/// processes at once: every blob and record is written to `tmp/` first, synced, then renamed
/// into place, so a reader sees a file whole or not at all, and a writer killed half-way leaves
/// only a file in `tmp/` that nothing serves.
///
/// ```
/// DIR/FORMAT                 "sequencer-cache 1"
/// DIR/cas/ab/abcd…           blobs, by the SHA-256 of their bytes
/// DIR/ac/NAMESPACE/12/1234…  records (JSON), by key
/// DIR/tmp/                   writes in progress
/// ```
public final class DirectoryCache: CacheStore {
    /// The format this version writes and reads.
    public static let format = 1

    /// The cache's directory, absolute.
    public let path: String
    public let isReadOnly: Bool
    /// The claims this process holds (see `claim(_:owner:lease:)`): their locked descriptors.
    let heldClaims = Locked<[String: Int32]>([:])

    /// Opens the cache in `path`, making it first when it is not there (unless read-only).
    /// - Throws: ``CacheError`` when `path` is something else (a file, a directory of other
    ///   files: left untouched), a cache of a newer format, or cannot be made.
    public init(path: String, readOnly: Bool = false) throws {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        isReadOnly = readOnly
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        let formatFile = self.path + "/FORMAT"
        if !manager.fileExists(atPath: self.path, isDirectory: &isDirectory) {
            guard !readOnly else { throw CacheError(.notACache, location: self.path, "there is no cache here (it is opened read-only, so none is made)") }
            try Self.make(self.path)
        } else if !isDirectory.boolValue {
            throw CacheError(.notACache, location: self.path, "not a directory; a cache is a directory (left untouched)")
        } else if !manager.fileExists(atPath: formatFile) {
            // Empty, or holding only what `make` makes before FORMAT: another process is making
            // the cache now, and making it again is harmless (every step of `make` is).
            let contents = Set((try? manager.contentsOfDirectory(atPath: self.path)) ?? [])
            guard contents.isSubset(of: ["cas", "ac", "tmp"]) else {
                throw CacheError(.notACache, location: self.path, "not a Sequencer cache (no FORMAT file, and other files); left untouched")
            }
            guard !readOnly else { throw CacheError(.notACache, location: self.path, "an empty directory, not a cache yet (it is opened read-only)") }
            try Self.make(self.path)
        }
        let text = (try? String(contentsOfFile: formatFile, encoding: .utf8)) ?? ""
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 2, words[0] == "sequencer-cache", let format = Int(words[1]) else {
            throw CacheError(.notACache, location: formatFile, "not a Sequencer cache's FORMAT file ('\(text.prefix(40))'); left untouched")
        }
        guard format <= Self.format else {
            throw CacheError(.newerFormat, location: self.path, "made by a newer Sequencer (format \(format); this one reads \(Self.format)); left untouched")
        }
    }

    private static func make(_ path: String) throws {
        do {
            for directory in ["", "/cas", "/ac", "/tmp"] {
                try FileManager.default.createDirectory(atPath: path + directory, withIntermediateDirectories: true)
            }
            try Files.write(Data("sequencer-cache \(format)\n".utf8), to: path + "/FORMAT", temporaries: path + "/tmp")
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(.io, location: path, "cannot make a cache here: \(error.localizedDescription)")
        }
    }

    // MARK: Records

    public func record(for key: CacheDigest, in namespaces: [String]) async throws -> CacheLookup {
        for namespace in namespaces {
            try Self.check(namespace)
            let file = recordPath(key, namespace)
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            let record: CacheRecord
            do {
                record = try CacheRecord(decoding: data)
            } catch {
                if !isReadOnly { unlink(file) }
                throw CacheError(.damaged, location: file, "a record that cannot be read (\(error)); \(isReadOnly ? "not served" : "removed")")
            }
            if case .result(let result) = record {
                for blob in result.blobs where !FileManager.default.fileExists(atPath: blobPath(blob)) {
                    return .incomplete(missing: blob, namespace: namespace)
                }
            }
            // Its use, for eviction: the least recently used go first.
            if !isReadOnly { Files.touch(file) }
            return .found(record, namespace: namespace)
        }
        return .missing
    }

    public func store(_ record: CacheRecord, for key: CacheDigest, in namespace: String) async throws {
        try checkWritable()
        try Self.check(namespace)
        if case .result(let result) = record {
            for blob in result.blobs where !FileManager.default.fileExists(atPath: blobPath(blob)) {
                throw CacheError(.io, location: blobPath(blob), "a result names a blob that is not stored; the result is not stored")
            }
        }
        let data: Data
        do {
            data = try record.encoded()
        } catch {
            throw CacheError(.io, location: recordPath(key, namespace), "cannot encode the record: \(error)")
        }
        try Files.write(data, to: recordPath(key, namespace), temporaries: temporaries)
    }

    // MARK: Blobs

    public func hasBlob(_ digest: CacheDigest) async throws -> Bool {
        FileManager.default.fileExists(atPath: blobPath(digest))
    }

    public func storeBlob(_ digest: CacheDigest, from source: String) async throws {
        try checkWritable()
        let target = blobPath(digest)
        if FileManager.default.fileExists(atPath: target) {
            Files.touch(target)
            return
        }
        let temporary = Files.temporary(in: temporaries)
        let copied = try Files.copyHashing(from: source, to: temporary)
        guard copied == digest else {
            unlink(temporary)
            throw CacheError(.changed, location: source, "changed while it was stored (its digest is now \(copied.short), not \(digest.short)); not stored")
        }
        try Files.install(temporary, at: target)
    }

    public func fetchBlob(_ digest: CacheDigest, to target: String) async throws {
        let source = blobPath(digest)
        guard FileManager.default.fileExists(atPath: source) else {
            throw CacheError(.io, location: source, "the blob is not there")
        }
        let directory = (target as NSString).deletingLastPathComponent
        let temporary = Files.temporary(in: directory.isEmpty ? "." : directory)
        let copied: CacheDigest
        // Not synced: a restored output is a build's file like any other (a compiler does not
        // sync its object files either); it is renamed into place whole.
        copied = try Files.copyHashing(from: source, to: temporary, synced: false)
        guard copied == digest else {
            unlink(temporary)
            // Never served again: the next look-up finds its result incomplete.
            if !isReadOnly { unlink(source) }
            throw CacheError(.damaged, location: source, "its bytes do not match its digest (\(copied.short)); \(isReadOnly ? "not served" : "removed")")
        }
        try Files.install(temporary, at: target)
        if !isReadOnly { Files.touch(source) }
    }

    // MARK: Paths

    private var temporaries: String { path + "/tmp" }

    func blobPath(_ digest: CacheDigest) -> String {
        "\(path)/cas/\(digest.hex.prefix(2))/\(digest.hex)"
    }

    func recordPath(_ key: CacheDigest, _ namespace: String) -> String {
        "\(path)/ac/\(namespace)/\(key.hex.prefix(2))/\(key.hex)"
    }

    func checkWritable() throws {
        if isReadOnly { throw CacheError(.readOnly, location: path, "the cache is opened read-only; nothing is written") }
    }

    private static func check(_ namespace: String) throws {
        guard CacheNamespace.isValid(namespace) else {
            throw CacheError(.invalidName, location: namespace, "not a namespace: 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or a digit")
        }
    }
}
