#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import Sequencer
internal import Crypto

/// The state of a build directory while a build runs: content hashes of files, trusted while a
/// file's stamp is the one they were taken at, and the edges' fingerprints; what changes is
/// appended to the state file as it happens.
public final class BuildStateStore: Sendable {
    private struct Inner {
        var state: BuildState
        var writer: BuildStateWriter?
        /// Hashes taken during this build, by path: a file hashed once is not hashed again
        /// until an edge that writes it ends (``forget(_:)``).
        var current: [String: Digest] = [:]
        /// Whether this build recorded a fingerprint (a file's hash, refreshed with its new
        /// stamp, changes no verdict).
        var changed = false
    }

    private let inner: Locked<Inner>
    /// Another reader of the same files' SHA-256 (the shared cache's, when the build has one),
    /// asked first; nil when it cannot read the file.
    private let shared: (@Sendable (String) -> Digest?)?
    /// A hash taken of a file modified this recently (nanoseconds) is kept without its stamp:
    /// the file could change again within the same clock tick, unseen by its stamp.
    static let racyWindow: Int64 = 2_000_000_000

    /// - Parameters:
    ///   - state: what the state file held.
    ///   - writer: where changes go; nil for a dry run.
    ///   - shared: another reader of files' SHA-256, asked first (the shared cache's).
    init(state: BuildState, writer: BuildStateWriter?, shared: (@Sendable (String) -> Digest?)? = nil) {
        inner = Locked(Inner(state: state, writer: writer))
        self.shared = shared
    }

    /// The fingerprint the edge whose first output is `output` had when it last succeeded.
    public func fingerprint(of output: String) -> Digest? {
        inner.withLock { $0.state.edges[output] }
    }

    /// Records an edge's fingerprint after it succeeded (nil: it must run next time).
    public func record(_ output: String, fingerprint: Digest?) {
        inner.withLock { inner in
            inner.state.edges[output] = fingerprint
            inner.changed = true
            if let fingerprint { inner.writer?.appendEdge(output, fingerprint) } else { inner.writer?.forgetEdge(output) }
        }
    }

    /// Writes what was recorded to the file.
    public func flush() {
        inner.withLock { _ = $0.writer?.flush() }
    }

    public func close() {
        inner.withLock { $0.writer?.close() }
    }

    /// The files this build took the content of (a no-op's witness stamps them).
    var touchedPaths: [String] { inner.withLock { Array($0.current.keys) } }

    /// Whether this build recorded a fingerprint.
    var changed: Bool { inner.withLock { $0.changed } }

    /// Forgets this build's hash of `path`: an edge has just written it.
    public func forget(_ path: String) {
        _ = inner.withLock { $0.current.removeValue(forKey: path) }
    }

    /// The content hash of the file at `path` (relative to the build directory), `.missing` when
    /// there is no file; directories hash as their path, as their content is not theirs.
    public func digest(_ path: String) -> Digest {
        if let known = inner.withLock({ $0.current[path] }) { return known }
        let found = FileStamp.of(path)
        let digest: Digest
        switch found {
        case .missing: digest = .missing
        case .directory: digest = Digest.of(Array("directory:".utf8) + Array(path.utf8))
        case .file(let stamp):
            // The common case in one trip: the stamp is the one hashed before.
            let trusted = inner.withLock { inner -> Digest? in
                guard let entry = inner.state.files[path], entry.stamp == stamp else { return nil }
                inner.current[path] = entry.digest
                return entry.digest
            }
            if let trusted { return trusted }
            if let read = hashContents(path) {
                digest = read
                let now = Self.now()
                // Kept with its stamp only when the file did not change while it was read and
                // is not so new that a change within the same tick could hide.
                let stable = FileStamp.of(path) == found && now - stamp.modified > Self.racyWindow
                let entry = BuildState.FileEntry(stamp: stable ? stamp : .never, digest: digest)
                inner.withLock { inner in
                    if inner.state.files[path] != entry {
                        inner.state.files[path] = entry
                        inner.writer?.appendFile(path, entry)
                    }
                }
            } else {
                digest = .missing
            }
        }
        inner.withLock { $0.current[path] = digest }
        return digest
    }

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The SHA-256 of a file's bytes, or nil when it cannot be read; for a thin archive, of
    /// its bytes and its members' (``ThinArchive``). A file the shared cache's keys read too is
    /// read once for both (`shared`).
    func hashContents(_ path: String) -> Digest? {
        if let shared, !Self.isThinArchive(path), let digest = shared(path) { return digest }
        guard let (digest, thin) = Self.hashBytes(path) else { return nil }
        guard thin, let bytes = readWhole(path), let members = ThinArchive.members(of: bytes) else { return digest }
        let directory = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[...$0]) } ?? ""
        var builder = DigestBuilder()
        builder.add(digest)
        for member in members {
            let memberPath = member.hasPrefix("/") ? member : directory + member
            builder.add(memberPath)
            builder.add(Self.hashBytes(memberPath)?.digest ?? .missing)
        }
        return builder.finish()
    }

    private static func isThinArchive(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { closeDescriptor(descriptor) }
        var head = [UInt8](repeating: 0, count: ThinArchive.magic.count)
        let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count == head.count && head == ThinArchive.magic
    }

    /// The SHA-256 of a file's bytes, and whether they start as a thin archive's.
    private static func hashBytes(_ path: String) -> (digest: Digest, thin: Bool)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { closeDescriptor(descriptor) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var head: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            if head.count < ThinArchive.magic.count { head += buffer[..<min(count, ThinArchive.magic.count - head.count)] }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return (Digest(hasher.finalize()), head == ThinArchive.magic)
    }
}
