#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import Sequencer

/// One writer at a time: an exclusive `flock` on a file beside the journal, holding the
/// writer's process ID. The kernel drops the lock when its process dies, even by `kill -9`.
///
/// The lock file stays open once opened, and letting go is `LOCK_UN`, not `close`: a process
/// forked at that moment (a command's supervisor, before its first system calls close what it
/// inherited) holds a copy of the descriptor, and a `close` here would leave the lock held by
/// that copy until the child closes it; an unlock lets it go whoever holds copies.
final class JournalLock: Sendable {
    let path: String
    /// The lock file (-1 until first opened), whether it is locked, and the number of the
    /// holder that locked it (0: none).
    private let state = Locked<(descriptor: Int32, holder: UInt64, next: UInt64)>((-1, 0, 1))

    init(path: String) {
        self.path = path
    }

    deinit {
        let descriptor = state.withLock { $0.descriptor }
        if descriptor >= 0 { close(descriptor) }
    }

    /// Takes the lock, or throws ``JournalError/Code/busy`` naming the process that holds it.
    /// Returns the holder's number, for ``release(_:cleanly:)``.
    @discardableResult
    func acquire(journal: String) throws -> UInt64 {
        try acquireNoting(journal: journal).holder
    }

    /// Takes the lock, as ``acquire(journal:)``, and tells whether the last holder ended
    /// without letting it go: its process died while it held the lock (killed, or the machine
    /// stopped), since a holder that lets go empties the file, and one that dies leaves its
    /// process ID there.
    func acquireNoting(journal: String) throws -> (holder: UInt64, endedUncleanly: Bool) {
        try state.withLock { state in
            guard state.holder == 0 else {
                throw JournalError(code: .busy, path: journal, message: "this journal is already recording a run")
            }
            if state.descriptor < 0 {
                let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
                guard fd >= 0 else {
                    throw JournalError(code: .unreadable, path: journal, message: "cannot open its lock file \(path): \(String(cString: strerror(errno)))")
                }
                state.descriptor = fd
            }
            let fd = state.descriptor
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let holder = Self.readHolder(fd)
                let who = holder.map { "process \($0)" } ?? "another process"
                throw JournalError(code: .busy, path: journal, message: "\(who) is recording a run in this journal")
            }
            let endedUncleanly = Self.readHolder(fd) != nil
            let pid = "\(getpid())\n"
            _ = ftruncate(fd, 0)
            _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
            state.holder = state.next
            state.next += 1
            return (state.holder, endedUncleanly)
        }
    }

    /// Names the run `holder` records, on the lock file's second line (`run ID`), so that
    /// readers tell which run is being recorded: a resumed run need not be the newest.
    func name(run id: Int64, holder: UInt64) {
        state.withLock { state in
            guard state.descriptor >= 0, state.holder != 0, state.holder == holder else { return }
            let text = "\(getpid())\nrun \(id)\n"
            _ = ftruncate(state.descriptor, 0)
            _ = text.withCString { pwrite(state.descriptor, $0, strlen($0), 0) }
        }
    }

    /// The process holding the lock, and the run it records, as its lock file tells them.
    struct Holder {
        var process: Int32?
        /// Nil when the lock file names no run: a writer that is not recording a run (one
        /// deleting old runs), or a `sequencer` from before runs were named.
        var run: Int64?
    }

    /// Who holds the lock now, if another process does (nil when none does).
    func heldElsewhere() -> Holder? {
        if state.withLock({ $0.holder != 0 }) { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) != 0 else {
            _ = flock(fd, LOCK_UN)
            return nil
        }
        let lines = Self.readLines(fd)
        let run = lines.dropFirst().lazy.compactMap { line in line.hasPrefix("run ") ? Int64(line.dropFirst(4)) : nil }.first
        return Holder(process: lines.first.flatMap { Int32($0.filter(\.isNumber)) }, run: run)
    }

    /// The lock file's descriptor (-1 until the lock is first taken), for tests.
    var descriptor: Int32 { state.withLock { $0.descriptor } }

    /// Whether another process holds the lock now.
    func isHeldElsewhere() -> Bool {
        if state.withLock({ $0.holder != 0 }) { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return true }
        _ = flock(fd, LOCK_UN)
        return false
    }

    /// The process that holds the lock now, as it wrote itself in the lock file; nil when no
    /// other process holds it.
    func holdingProcess() -> Int32? { heldElsewhere()?.process }

    /// Lets the lock go, if `holder` still holds it (a holder that let it go, and was then
    /// followed by another, does not take it from the next). A clean release empties the file,
    /// so that the next holder knows this one ended well; `cleanly: false` leaves the process
    /// ID, so that the next holder checks the file as after a crash.
    func release(_ holder: UInt64, cleanly: Bool = true) {
        state.withLock { state in
            guard state.descriptor >= 0, state.holder != 0, state.holder == holder else { return }
            if cleanly { _ = ftruncate(state.descriptor, 0) }
            _ = flock(state.descriptor, LOCK_UN)
            state.holder = 0
        }
    }

    /// The process ID on the lock file's first line.
    private static func readHolder(_ fd: Int32) -> Int32? {
        readLines(fd).first.flatMap { Int32($0.filter(\.isNumber)) }
    }

    /// The lock file's lines (it is small: a process ID, and the run being recorded).
    private static func readLines(_ fd: Int32) -> [Substring] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 64, 0) }
        guard count > 0 else { return [] }
        return String(decoding: buffer.prefix(count), as: UTF8.self).split(separator: "\n")
    }
}
