#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SequencerJournal
import Synchronization

extension UpToDateState {
    /// The files of a state, encoded as they are checked: by directory (each opened once, its
    /// files `fstatat`'ed by name), each stamp as three numbers, in two halves checked on two
    /// threads. Checking allocates nothing per file: at 10,000 files, decoding paths and
    /// stamps into strings and arrays took longer than the `stat`s.
    ///
    /// Each half: the number of bytes it takes, the number of directories, and for each its
    /// path (a length and UTF-8), the number of its files, and for each file its name (a
    /// `UInt16` length and UTF-8) and stamp (a kind, 0 nothing there, 1 something other than
    /// a regular file, 2 a regular file then its size, modification time and inode as `Int64`;
    /// any other kind never matches). Little-endian throughout.
    struct FileSection: Equatable, Sendable {
        private(set) var bytes: [UInt8] = []

        /// A stamp as ``FileHasher/describeStamp(of:)`` describes one, as numbers.
        struct Stamp: Equatable {
            var kind: UInt8
            var size: Int64 = 0
            var modified: Int64 = 0
            var inode: Int64 = 0

            static let none: UInt8 = 0, directory: UInt8 = 1, file: UInt8 = 2, unknown: UInt8 = 255

            /// From the text (`none`, `directory`, or `size:mtime:inode`).
            init(text: [UInt8]) {
                if text.elementsEqual("none".utf8) { self.init(kind: Self.none); return }
                if text.elementsEqual("directory".utf8) { self.init(kind: Self.directory); return }
                let numbers = text.split(separator: UInt8(ascii: ":")).map { Int64(String(decoding: $0, as: UTF8.self)) }
                guard numbers.count == 3, let size = numbers[0], let modified = numbers[1], let inode = numbers[2] else {
                    self.init(kind: Self.unknown)
                    return
                }
                self.init(kind: Self.file, size: size, modified: modified, inode: inode)
            }

            init(kind: UInt8, size: Int64 = 0, modified: Int64 = 0, inode: Int64 = 0) {
                (self.kind, self.size, self.modified, self.inode) = (kind, size, modified, inode)
            }

            /// What `stat` said (nil: nothing there).
            init(_ info: stat?) {
                guard let info else { self.init(kind: Self.none); return }
                guard (info.st_mode & S_IFMT) == S_IFREG else { self.init(kind: Self.directory); return }
                #if canImport(Darwin)
                let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
                #else
                let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
                #endif
                self.init(kind: Self.file, size: Int64(info.st_size), modified: modified, inode: Int64(bitPattern: UInt64(info.st_ino)))
            }

            var text: [UInt8] {
                switch kind {
                case Self.none: Array("none".utf8)
                case Self.directory: Array("directory".utf8)
                case Self.file: Array("\(size):\(modified):\(inode)".utf8)
                default: Array("unknown".utf8)
                }
            }
        }

        init(_ files: [File]) {
            // By directory, in two halves of about as many files each.
            var byDirectory: [String: [(name: Substring, stamp: Stamp)]] = [:]
            for file in files {
                let (directory, name) = Self.split(file.path)
                byDirectory[directory, default: []].append((name, Stamp(text: file.stamp)))
            }
            let directories = byDirectory.sorted { $0.key < $1.key }
            var halves: [[(String, [(name: Substring, stamp: Stamp)])]] = [[], []]
            var counted = 0
            for (directory, entries) in directories {
                // A directory with more than half the files is split between the halves.
                var rest = entries[...]
                while !rest.isEmpty {
                    let half = counted < (files.count + 1) / 2 ? 0 : 1
                    let room = half == 0 ? (files.count + 1) / 2 - counted : rest.count
                    let taken = rest.prefix(room)
                    halves[half].append((directory, Array(taken)))
                    counted += taken.count
                    rest = rest.dropFirst(taken.count)
                }
            }
            for half in halves {
                var part: [UInt8] = []
                Self.put(half.count, into: &part)
                for (directory, entries) in half {
                    Self.put(directory.utf8.count, into: &part)
                    part.append(contentsOf: directory.utf8)
                    Self.put(entries.count, into: &part)
                    for (name, stamp) in entries {
                        let utf8 = Array(name.utf8.prefix(Int(UInt16.max)))
                        withUnsafeBytes(of: UInt16(utf8.count).littleEndian) { part.append(contentsOf: $0) }
                        part.append(contentsOf: utf8)
                        part.append(stamp.kind)
                        guard stamp.kind == Stamp.file else { continue }
                        for number in [stamp.size, stamp.modified, stamp.inode] {
                            withUnsafeBytes(of: number.littleEndian) { part.append(contentsOf: $0) }
                        }
                    }
                }
                Self.put(part.count, into: &bytes)
                bytes.append(contentsOf: part)
            }
        }

        /// Taken as they are; nil when they are not a file section (see ``init(_:)``).
        init?(encoded bytes: [UInt8]) {
            let halves = Self.halves(of: bytes)
            guard halves.count == 2, halves.allSatisfy({ Self.walk($0, directory: { _ in true }, file: { _, _ in true }) }) else {
                return nil
            }
            self.bytes = bytes
        }

        /// The files, with their paths and stamps as text (for tests and errors).
        var files: [File] {
            var files: [File] = []
            for half in Self.halves(of: bytes) {
                var directory = ""
                _ = Self.walk(half, directory: { path in
                    directory = String(decoding: path, as: UTF8.self)
                    return true
                }, file: { name, stamp in
                    let name = String(decoding: name, as: UTF8.self)
                    files.append(File(path: directory == "/" ? "/" + name : directory + "/" + name, stamp: stamp.text))
                    return true
                })
            }
            return files
        }

        /// Whether every file has its stamp still: a half on another thread, a half here.
        func isCurrent() -> Bool {
            let halves = Self.halves(of: bytes)
            guard halves.count == 2 else { return false }
            let other = Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            let first = halves[0]
            let thread = Thread {
                other.store(Self.check(first), ordering: .relaxed)
                done.signal()
            }
            thread.start()
            let here = Self.check(halves[1])
            done.wait()
            return here && other.load(ordering: .relaxed)
        }

        private static func check(_ half: ArraySlice<UInt8>) -> Bool {
            var descriptor: Int32 = -1
            var directoryPath: [UInt8] = []
            var name: [CChar] = []
            defer { if descriptor >= 0 { close(descriptor) } }
            return walk(half, directory: { path in
                if descriptor >= 0 { close(descriptor) }
                directoryPath = Array(path)
                descriptor = directoryPath.withUnsafeBufferPointer { buffer in
                    String(decoding: buffer, as: UTF8.self).withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
                }
                return true
            }, file: { file, stamp in
                name.removeAll(keepingCapacity: true)
                if descriptor < 0 {
                    // A directory that cannot be opened (search permission only, or gone): by path.
                    name.append(contentsOf: directoryPath.map { CChar(bitPattern: $0) })
                    name.append(CChar(bitPattern: UInt8(ascii: "/")))
                }
                name.append(contentsOf: file.map { CChar(bitPattern: $0) })
                name.append(0)
                var info = stat()
                let found = name.withUnsafeBufferPointer { buffer in
                    descriptor >= 0 ? fstatat(descriptor, buffer.baseAddress!, &info, 0) == 0 : stat(buffer.baseAddress!, &info) == 0
                }
                return Stamp(found ? info : nil) == stamp
            })
        }

        // MARK: - Reading

        /// The two halves' bytes; fewer when the section is damaged.
        private static func halves(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
            var halves: [ArraySlice<UInt8>] = []
            var offset = bytes.startIndex
            while halves.count < 2, let count = number(bytes, at: &offset), count <= bytes.endIndex - offset {
                halves.append(bytes[offset..<(offset + count)])
                offset += count
            }
            return offset == bytes.endIndex ? halves : []
        }

        /// Calls `directory` with each directory's path and `file` with each of its files' name
        /// and stamp; false when the bytes are damaged or a call says stop.
        private static func walk(
            _ half: ArraySlice<UInt8>, directory: (ArraySlice<UInt8>) -> Bool, file: (ArraySlice<UInt8>, Stamp) -> Bool
        ) -> Bool {
            var offset = half.startIndex
            guard let directories = number(half, at: &offset) else { return false }
            for _ in 0..<directories {
                guard let length = number(half, at: &offset), length <= half.endIndex - offset else { return false }
                guard directory(half[offset..<(offset + length)]) else { return false }
                offset += length
                guard let files = number(half, at: &offset) else { return false }
                for _ in 0..<files {
                    guard half.endIndex - offset >= 2 else { return false }
                    let length = Int(half[offset]) | Int(half[offset + 1]) << 8
                    offset += 2
                    guard half.endIndex - offset >= length + 1 else { return false }
                    let name = half[offset..<(offset + length)]
                    offset += length
                    var stamp = Stamp(kind: half[offset])
                    offset += 1
                    if stamp.kind == Stamp.file {
                        guard half.endIndex - offset >= 24 else { return false }
                        stamp.size = int64(half, at: offset)
                        stamp.modified = int64(half, at: offset + 8)
                        stamp.inode = int64(half, at: offset + 16)
                        offset += 24
                    }
                    guard file(name, stamp) else { return false }
                }
            }
            return offset == half.endIndex
        }

        private static func number(_ bytes: ArraySlice<UInt8>, at offset: inout Int) -> Int? {
            guard bytes.endIndex - offset >= 4 else { return nil }
            defer { offset += 4 }
            return (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }

        private static func number(_ bytes: [UInt8], at offset: inout Int) -> Int? {
            number(bytes[...], at: &offset)
        }

        private static func int64(_ bytes: ArraySlice<UInt8>, at offset: Int) -> Int64 {
            Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) })
        }

        private static func put(_ number: Int, into bytes: inout [UInt8]) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: number).littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// The directory of an absolute `path` (`/` for the root's files) and its last part.
        private static func split(_ path: String) -> (String, Substring) {
            guard let slash = path.lastIndex(of: "/") else { return (".", path[...]) }
            let directory = String(path[..<slash])
            return (directory.isEmpty ? "/" : directory, path[path.index(after: slash)...])
        }
    }
}
