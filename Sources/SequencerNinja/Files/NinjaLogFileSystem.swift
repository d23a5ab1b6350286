#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the ninja logs need, with errors as `NinjaLogFileError`.
/// Descriptors are opened close-on-exec, as ninja opens its logs, so that the commands a build
/// runs do not inherit them.
enum NinjaLogFileSystem {
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// The whole content of the file at `path`, or nil when there is none.
    static func readFile(_ path: String) throws(NinjaLogFileError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw NinjaLogFileError(code: errno)
        }
        defer { _ = close(descriptor) }
        var status = stat()
        var expected = 0
        if fstat(descriptor, &status) == 0, status.st_size > 0 { expected = Int(status.st_size) }
        var content: [UInt8] = []
        content.reserveCapacity(expected + 1)
        var chunk = [UInt8](repeating: 0, count: min(max(expected + 1, 4096), 1 << 22))
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw NinjaLogFileError(code: errno)
            }
            if count == 0 { return content }
            content.append(contentsOf: chunk[0..<count])
        }
    }

    /// Creates or replaces the file at `path` with `bytes`.
    static func createFile(_ path: String, containing bytes: [UInt8]) throws(NinjaLogFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        if descriptor < 0 { throw NinjaLogFileError(code: errno) }
        do {
            try writeFully(bytes, to: descriptor)
        } catch {
            _ = close(descriptor)
            throw error
        }
        try closeFile(descriptor)
    }

    /// Opens the file at `path` for appending, creating it when it does not exist; returns the
    /// descriptor and the file's size.
    static func openAppending(_ path: String) throws(NinjaLogFileError) -> (descriptor: Int32, size: Int) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o666)
        if descriptor < 0 { throw NinjaLogFileError(code: errno) }
        let size = lseek(descriptor, 0, SEEK_END)
        if size < 0 {
            let code = errno
            _ = close(descriptor)
            throw NinjaLogFileError(code: code)
        }
        return (descriptor, Int(size))
    }

    /// Writes all of `bytes` (in one `write` call unless the system writes less).
    static func writeFully(_ bytes: [UInt8], to descriptor: Int32) throws(NinjaLogFileError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(descriptor, base + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw NinjaLogFileError(code: errno)
            }
            written += count
        }
    }

    static func closeFile(_ descriptor: Int32) throws(NinjaLogFileError) {
        if close(descriptor) != 0 { throw NinjaLogFileError(code: errno) }
    }

    /// Cuts the file at `path` to `size` bytes.
    static func truncateFile(_ path: String, toByteCount size: Int) throws(NinjaLogFileError) {
        if truncate(path, off_t(size)) != 0 { throw NinjaLogFileError(code: errno) }
    }

    /// Deletes the file at `path`; a missing file is not an error.
    static func removeFile(_ path: String) throws(NinjaLogFileError) {
        if unlink(path) != 0, errno != ENOENT { throw NinjaLogFileError(code: errno) }
    }

    /// Moves the file at `source` to `destination`, replacing what was there.
    static func renameFile(_ source: String, to destination: String) throws(NinjaLogFileError) {
        if rename(source, destination) != 0 { throw NinjaLogFileError(code: errno) }
    }
}
