#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The file work of a directory cache: writes that are whole or absent (a temporary file,
/// synced, then renamed), and copies that hash what they copy.
enum Files {
    /// A new name in `directory` for a file being written: the process's and 64 random bits
    /// (from `getrandom`, with no file to open, as a UUID's are on Linux); it is created with
    /// `O_EXCL`, so a name taken fails rather than shares.
    static func temporary(in directory: String) -> String {
        "\(directory)/.sequencer-\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 36))"
    }

    /// Writes `data` to `target` whole: into a temporary file in `temporaries` (on the same
    /// file system), synced, then renamed.
    static func write(_ data: Data, to target: String, temporaries: String) throws {
        let temporary = temporary(in: temporaries)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(temporary, "cannot create") }
        var written = 0
        let ok = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = writeBytes(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return fsync(descriptor) == 0
        }
        guard ok else {
            let error = failure(temporary, "cannot write")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        try install(temporary, at: target)
    }

    /// Copies `source` to a new file `target` (which must not exist), synced unless `synced` is
    /// false; returns the digest of what was copied. When it fails, `target` is gone: a copy cut
    /// short by a full disk must not keep the space it took.
    static func copyHashing(from source: String, to target: String, synced: Bool = true) throws -> CacheDigest {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure(source, "cannot read") }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw failure(target, "cannot create") }
        defer { close(output) }
        do {
            return try copy(input, source: source, to: output, target: target, synced: synced)
        } catch {
            unlink(target)
            throw error
        }
    }

    private static func copy(_ input: Int32, source: String, to output: Int32, target: String, synced: Bool) throws -> CacheDigest {
        var hashing = CacheDigest.Hashing()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(source, "cannot read") }
            if count == 0 { break }
            try buffer.withUnsafeBytes { bytes in
                let chunk = UnsafeRawBufferPointer(rebasing: bytes.prefix(count))
                hashing.update(chunk)
                var done = 0
                while done < count {
                    let wrote = writeBytes(output, chunk.baseAddress.map { $0 + done }, count - done)
                    if wrote < 0, errno == EINTR { continue }
                    guard wrote > 0 else { throw failure(target, "cannot write") }
                    done += wrote
                }
            }
        }
        guard !synced || fsync(output) == 0 else { throw failure(target, "cannot sync") }
        return hashing.finish()
    }

    /// Renames `temporary` to `target`, making `target`'s directory first.
    static func install(_ temporary: String, at target: String) throws {
        let directory = (target as NSString).deletingLastPathComponent
        if rename(temporary, target) == 0 { return }
        if errno == ENOENT {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            if rename(temporary, target) == 0 { return }
        }
        let error = failure(target, "cannot put in place")
        unlink(temporary)
        throw error
    }

    /// Sets the file's times to now: its last use, for eviction.
    static func touch(_ path: String) {
        _ = utimensat(AT_FDCWD, path, nil, 0)
    }

    /// The error for the last system call, about `path`.
    static func failure(_ path: String, _ doing: String) -> CacheError {
        CacheError(.io, location: path, "\(doing): \(String(cString: strerror(errno)))")
    }
}

/// `write(2)`, named apart from ``Files/write(_:to:temporaries:)``.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}

/// File work every store shares.
public enum CacheFiles {
    /// A new name beside `target` (in its directory, so on its file system) for a file written
    /// whole before it is renamed onto `target`.
    public static func temporary(beside target: String) -> String {
        let directory = (target as NSString).deletingLastPathComponent
        return Files.temporary(in: directory.isEmpty ? "." : directory)
    }
}
