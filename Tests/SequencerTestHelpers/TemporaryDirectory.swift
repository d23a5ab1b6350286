public import Foundation

/// A fresh directory under the system's temporary directory, for one test's files: removed
/// when the last reference to it goes (or by ``remove()``), unless told to stay or the
/// environment sets `SEQUENCER_KEEP_TEST_FILES` (to read a failed test's files).
///
/// ```swift
/// let directory = try TemporaryDirectory(prefix: "sequencer-journal")
/// try directory.write("a.txt", "one\n")
/// #expect(directory.read("a.txt") == "one\n")
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory's path, without symbolic links (so that `pwd` in it prints it as is).
    public let path: String
    private let removedAtEnd: Bool

    /// Makes the directory.
    ///
    /// - Parameters:
    ///   - prefix: The start of its name; a UUID follows.
    ///   - removedAtEnd: Whether to remove it, with its contents, when this object goes.
    /// - Throws: The file system's error when it cannot be made.
    public init(prefix: String = "sequencer-test", removedAtEnd: Bool = true) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.resolvingSymlinksInPath().path
        self.removedAtEnd = removedAtEnd && ProcessInfo.processInfo.environment["SEQUENCER_KEEP_TEST_FILES"] == nil
    }

    deinit {
        if removedAtEnd { remove() }
    }

    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` (making the folders on its way), with the given permissions.
    ///
    /// - Returns: The file's path.
    /// - Throws: The file system's error when it cannot be written.
    @discardableResult
    public func write(_ name: String, _ text: String, permissions: Int = 0o644) throws -> String {
        let path = file(name)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        return path
    }

    /// Makes the directory `name` inside this one.
    public func makeDirectory(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: file(name), withIntermediateDirectories: true)
    }

    /// The text of `name`, or `nil` if there is no such file.
    public func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: file(name)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `name` exists.
    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    /// Removes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
