#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file operations ninja's tools make, with ninja's results and messages (its
/// `RealDiskInterface` on POSIX). Paths are as ninja names them; a relative one is taken
/// relative to `directory` when one is given, else to the current directory.
enum ToolDisk {
    /// `path` under `directory` when it is relative and there is one.
    static func resolve(_ path: String, in directory: String?) -> String {
        guard let directory, !path.hasPrefix("/") else { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// What `stat` found: ninja's `TimeStamp`.
    enum Stamp: Equatable {
        /// The modification time in nanoseconds since the epoch (1 for a file dated 0).
        case modified(Int64)
        /// No such file (`ENOENT`, `ENOTDIR`): ninja's 0.
        case missing
        /// `stat` failed otherwise: `stat(PATH): REASON`, ninja's -1.
        case failed(String)

        /// ninja's number: the time, 0 when missing, -1 on failure.
        var timeStamp: Int64 {
            switch self {
            case .modified(let time): time
            case .missing: 0
            case .failed: -1
            }
        }
    }

    /// The modification time of `path`, as ninja's `Stat`.
    static func stamp(_ path: String, in directory: String? = nil) -> Stamp {
        var status = stat()
        if stat(resolve(path, in: directory), &status) < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .missing }
            return .failed("stat(\(path)): \(describe(code))")
        }
        #if canImport(Darwin)
            let seconds = Int64(status.st_mtimespec.tv_sec)
            let nanoseconds = Int64(status.st_mtimespec.tv_nsec)
        #else
            let seconds = Int64(status.st_mtim.tv_sec)
            let nanoseconds = Int64(status.st_mtim.tv_nsec)
        #endif
        // ninja: a file dated 0 still exists.
        if seconds == 0 { return .modified(1) }
        return .modified(seconds &* 1_000_000_000 &+ nanoseconds)
    }

    /// What removing a file came to.
    enum Removal: Equatable {
        case removed
        /// There was nothing to remove.
        case missing
        /// `remove(PATH): REASON`.
        case failed(String)
    }

    /// Removes the file (or empty directory) at `path`, as C's `remove`.
    static func remove(_ path: String, in directory: String? = nil) -> Removal {
        let systemPath = resolve(path, in: directory)
        if unlink(systemPath) == 0 { return .removed }
        var code = errno
        if code == EISDIR || code == EPERM {
            // `remove` takes empty directories too.
            var status = stat()
            if stat(systemPath, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                if rmdir(systemPath) == 0 { return .removed }
                code = errno
            }
        }
        if code == ENOENT { return .missing }
        return .failed("remove(\(path)): \(describe(code))")
    }

    /// Creates `path` and its missing parents (ninja's `MakeDirs` for the build directory).
    ///
    /// - Returns: nil, or the `errno` of the `mkdir` that failed.
    static func makeDirectories(_ path: String, in directory: String? = nil) -> Int32? {
        var prefix = path.hasPrefix("/") ? "" : directory.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        for (position, component) in components.enumerated() {
            prefix += (position == 0 && prefix.isEmpty ? "" : "/") + component
            if component.isEmpty || component == "." { continue }
            if mkdir(prefix, 0o777) != 0 {
                let code = errno
                if code == EEXIST { continue }
                return code
            }
        }
        return nil
    }

    /// The current directory (`getcwd`), or the `errno` that kept it from being known.
    static func currentDirectory() -> Result<String, ToolSystemError> {
        var size = 1024
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            if getcwd(&buffer, size) != nil {
                let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
                return .success(String(decoding: bytes, as: UTF8.self))
            }
            let code = errno
            if code != ERANGE { return .failure(ToolSystemError(code: code)) }
            size += 1024
        }
    }

    /// The content of the file at `path`; nil when there is none (`ENOENT`).
    static func read(_ path: String, in directory: String? = nil) -> Result<[UInt8]?, ToolSystemError> {
        do {
            return .success(try DiskManifestFiles(directory: directory).read(path))
        } catch {
            if error == .noSuchFile { return .success(nil) }
            return .failure(ToolSystemError(reason: error.reason))
        }
    }

    /// `strerror(code)`.
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// A system call's failure, as `strerror` words it.
struct ToolSystemError: Error, Equatable {
    /// `strerror`'s words.
    var reason: String

    init(reason: String) { self.reason = reason }
    init(code: Int32) { reason = ToolDisk.describe(code) }
}
