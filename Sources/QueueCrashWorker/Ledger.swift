#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The append-only text file that the crash harness's checks read: one line per event, each
/// written by one `write(2)` on a descriptor opened with `O_APPEND`, so lines of processes that
/// share the file never interleave, and a line written before a `kill -9` is kept (the page
/// cache outlives the process; only a power loss would need an fsync).
///
/// ```
/// ready PID TIME
/// start JOB ATTEMPT PID TIME
/// end JOB ATTEMPT PID ok|failed|cancelled TIME
/// kill PID TIME              (written by the driver, once the process it killed is gone)
/// ```
///
/// TIME is `CLOCK_MONOTONIC` in microseconds, one clock for every process on the machine. The
/// checks order events by their place in the file, which needs no clock at all.
struct Ledger: Sendable {
    let descriptor: Int32

    init(path: String) throws(WorkerError) {
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { throw WorkerError("cannot open the ledger \(path): errno \(errno)") }
    }

    /// Appends `words` and the time, as one line.
    func append(_ words: String...) {
        let line = (words + [String(Self.now())]).joined(separator: " ") + "\n"
        var bytes = Array(line.utf8)
        _ = write(descriptor, &bytes, bytes.count)
    }

    /// Microseconds on the machine's monotonic clock.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }
}

/// A bad command line or an unusable file: printed, and the worker exits 2.
struct WorkerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
