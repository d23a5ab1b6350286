#if canImport(Glibc)
import Glibc
import Sequencer

/// Linux inotify, through its system calls: watches on directories, and what changes in them.
/// It owns its descriptor and its watches; ``next()`` blocks (on a thread of its own) until
/// something changes or ``close()`` is called.
///
/// ```swift
/// let inotify = try Inotify()
/// inotify.watch("/src/app/src")
/// while let events = inotify.next() { for event in events { print(event.path) } }
/// ```
package final class Inotify: Sendable {
    /// A change in a watched directory.
    package struct Event: Sendable, Equatable {
        /// The path that changed: an entry of a watched directory, or the directory itself.
        package var path: String
        /// Whether a directory was made (or moved) there: its own entries are not watched yet.
        package var isNewDirectory: Bool
        /// Whether the kernel dropped events (its queue overflowed): anything may have changed.
        package var overflowed: Bool
    }

    /// What a watch reports: written files, created, deleted and moved entries, the directory
    /// itself deleted or moved. Not opening, reading or `touch` (a file's content is unchanged).
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    private let descriptor: Int32
    /// A pipe whose read end ``next()`` also waits on: ``close()`` writes to it.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The watched directories by watch descriptor, and back.
    private let watches = Locked<(byDescriptor: [Int32: String], byPath: [String: Int32])>(([:], [:]))

    /// - Throws: ``WatchError`` when inotify cannot be used (the per-user instance limit).
    package init() throws(WatchError) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { throw WatchError("inotify_init1: \(String(cString: strerror(errno)))") }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            Glibc.close(descriptor)
            throw WatchError("pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
    }

    deinit {
        Glibc.close(descriptor)
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    /// How many directories are watched.
    package var count: Int { watches.withLock { $0.byPath.count } }

    /// Watches the entries of `directory` (absolute); watching one twice is one watch.
    /// - Returns: nil when it is watched, else `errno`: `ENOENT` or `ENOTDIR` when it is
    ///   missing or not a directory, `ENOSPC` when the per-user watch limit is reached.
    @discardableResult
    package func watch(_ directory: String) -> Int32? {
        let number = inotify_add_watch(descriptor, directory, Self.mask)
        guard number >= 0 else { return errno }
        watches.withLock { watches in
            if let old = watches.byDescriptor[number], old != directory { watches.byPath[old] = nil }
            watches.byDescriptor[number] = directory
            watches.byPath[directory] = number
        }
        return nil
    }

    /// Waits for changes and returns them; nil once ``close()`` was called.
    package func next() -> [Event]? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0, errno == EINTR { continue }
            if ready < 0 || descriptors[1].revents != 0 { return nil }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return nil }
            let events = parse(buffer.prefix(count))
            if !events.isEmpty { return events }
        }
    }

    /// Makes ``next()`` return nil, now or at its next call.
    package func close() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    /// The events in what `read` returned: `struct inotify_event` records, each followed by its
    /// name (padded with NULs).
    private func parse(_ bytes: ArraySlice<UInt8>) -> [Event] {
        var events: [Event] = []
        bytes.withUnsafeBytes { raw in
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= raw.count {
                let number = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = raw[(offset + header)..<min(raw.count, offset + header + length)]
                offset += header + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    events.append(Event(path: "", isNewDirectory: false, overflowed: true))
                    continue
                }
                let directory = watches.withLock { watches -> String? in
                    let directory = watches.byDescriptor[number]
                    if mask & UInt32(IN_IGNORED) != 0, let directory {  // the watch is gone
                        watches.byDescriptor[number] = nil
                        if watches.byPath[directory] == number { watches.byPath[directory] = nil }
                    }
                    return directory
                }
                guard let directory, mask & UInt32(IN_IGNORED) == 0 else { continue }
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                let path = name.isEmpty ? directory : (directory == "/" ? "/" : directory + "/") + name
                let isNewDirectory = mask & UInt32(IN_ISDIR) != 0 && mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0
                events.append(Event(path: path, isNewDirectory: isNewDirectory, overflowed: false))
            }
        }
        return events
    }
}
#endif

/// Why a watch cannot go on.
package struct WatchError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
