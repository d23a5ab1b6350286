#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says of a file, enough to tell that it has not changed since it was hashed.
public struct FileStamp: Sendable, Hashable {
    public var size: Int64
    /// Nanoseconds since 1970.
    public var modified: Int64
    public var inode: UInt64

    public init(size: Int64, modified: Int64, inode: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }

    /// A stamp no file has: a hash kept with it is always checked again.
    public static let never = FileStamp(size: -1, modified: 0, inode: 0)

    /// What is at `path`: a file's stamp, `.directory`, or `.missing`.
    public enum Found: Sendable, Equatable {
        case file(FileStamp)
        case directory(modified: Int64)
        case missing

        public var exists: Bool { self != .missing }

        /// The modification time in nanoseconds, 0 when missing (ninja's mtime).
        public var modified: Int64 {
            switch self {
            case .file(let stamp): stamp.modified
            case .directory(let modified): modified
            case .missing: 0
            }
        }
    }

    public static func of(_ path: String) -> Found {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        if (info.st_mode & S_IFMT) == S_IFDIR { return .directory(modified: modified) }
        return .file(FileStamp(size: Int64(info.st_size), modified: modified, inode: UInt64(info.st_ino)))
    }
}
