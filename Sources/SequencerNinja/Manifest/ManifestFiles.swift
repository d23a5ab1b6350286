#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the manifest parser and the dyndep loader read files: the disk
/// (`DiskManifestFiles`), or memory in tests (`InMemoryManifestFiles`).
///
/// Paths are as the manifest writes them (`include`, `subninja`) or as canonicalised (dyndep
/// files): relative to the directory ninja runs in, not to the including file.
public protocol ManifestFiles {
    /// The file's bytes.
    ///
    /// - Throws: `ManifestFileError` with the reason ninja would print (`strerror`'s text).
    func read(_ path: String) throws(ManifestFileError) -> [UInt8]
}

/// Why a file could not be read, as `strerror` words it (`No such file or directory`).
public struct ManifestFileError: Error, Sendable, Equatable {
    /// The text ninja prints after `loading 'PATH': `.
    public var reason: String

    public init(reason: String) { self.reason = reason }

    /// `ENOENT`'s text.
    public static let noSuchFile = ManifestFileError(reason: "No such file or directory")
}

/// Files in memory, by path: for tests, and for manifests that are not on disk.
public struct InMemoryManifestFiles: ManifestFiles, Sendable {
    /// Each file's bytes, by the path the parser asks for.
    public var files: [String: [UInt8]]

    /// Files from their texts (UTF-8).
    public init(_ files: [String: String] = [:]) {
        self.files = files.mapValues { Array($0.utf8) }
    }

    public func read(_ path: String) throws(ManifestFileError) -> [UInt8] {
        guard let bytes = files[path] else { throw .noSuchFile }
        return bytes
    }
}

/// Files on disk. A relative path is read from `directory` when one is given, else from the
/// process's current directory (as ninja does after `-C`).
public struct DiskManifestFiles: ManifestFiles, Sendable {
    /// The directory relative paths are read from; nil for the current directory.
    public var directory: String?

    public init(directory: String? = nil) { self.directory = directory }

    public func read(_ path: String) throws(ManifestFileError) -> [UInt8] {
        var fullPath = path
        if let directory, !path.isEmpty, !path.hasPrefix("/") {
            fullPath = directory.hasSuffix("/") ? directory + path : directory + "/" + path
        }
        let descriptor = open(fullPath, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { throw Self.lastError() }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) != 0 { throw Self.lastError() }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size) + 1)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.lastError()
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    private static func lastError() -> ManifestFileError {
        let code = errno
        guard let text = strerror(code) else { return ManifestFileError(reason: "error \(code)") }
        return ManifestFileError(reason: String(cString: text))
    }
}

/// `read(2)`, named apart from `ManifestFiles.read`.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
