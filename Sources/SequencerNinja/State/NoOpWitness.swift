#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a build that found nothing to do read, so that the next invocation with the same
/// arguments can say "no work to do" from the files' stamps alone, without loading the
/// manifest, the state or ninja's logs.
///
/// A no-op's verdict is a function of the manifest's files, the files its edges read and
/// write (and the inputs their depfiles list), the state file and ninja's logs, and the command
/// line: the witness keeps the stamp (size, modification time, inode; or missing; or a
/// directory) of every one of those files, and the command line. It holds while every stamp is
/// the same. It is written only after a build found nothing to do, printed no warning and
/// changed nothing, and only when no file was modified within the racy window (a change in the
/// same clock tick could hide behind an equal stamp): the first no-op after a build pays for the
/// full check and writes it, the next ones read it.
///
/// The file is `.sequencer/ninja-noop` beside the manifest: a line of version and arguments,
/// then a line per file, `f SIZE MTIME INODE PATH`, `d PATH` or `m PATH`.
struct NoOpWitness {
    static let header = "sequencer-ninja-noop 1"

    /// The witness's path for a manifest.
    static func path(manifest: String) -> String {
        guard let slash = manifest.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ".sequencer/ninja-noop" }
        return String(manifest[..<slash]) + "/.sequencer/ninja-noop"
    }

    /// Whether a command line may take the shortcut: a build (not a tool or a dry run) that
    /// prints nothing more for a no-op than "no work to do" (no `-d explain` or `-d stats`).
    static func applies(to options: NinjaOptions) -> Bool {
        options.tool == nil && !options.dryRun && !options.explain && !options.stats
    }

    /// The key of a command line: the arguments, or nil when one holds a newline (no witness).
    static func key(_ arguments: [String]) -> String? {
        arguments.contains { $0.utf8.contains(UInt8(ascii: "\n")) } ? nil : arguments.joined(separator: "\u{1F}")
    }

    /// Whether the witness at `path` was written for `key` and every file is as it was.
    static func holds(at path: String, key: String) -> Bool {
        guard let bytes = readWhole(path), !bytes.isEmpty else { return false }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // A witness cut short (no final newline) holds nothing.
        guard lines.last?.isEmpty == true else { return false }
        lines.removeLast()
        guard lines.count >= 2, String(decoding: lines[0], as: UTF8.self) == header,
            String(decoding: lines[1], as: UTF8.self) == key
        else { return false }
        for line in lines.dropFirst(2) {
            guard let entry = Entry(line) else { return false }
            switch (entry.found, FileStamp.of(entry.path)) {
            case (.directory, .directory): continue  // a directory's digest is its path
            case (let then, let now): guard then == now else { return false }
            }
        }
        return true
    }

    /// Writes the witness of `paths` and `appendOnly` for `key`, or removes the old one and
    /// writes nothing when one of `paths` was modified within `racyWindow` of `now`
    /// (nanoseconds). Files in `appendOnly` (the state file, ninja's logs) only grow, so any
    /// change changes their size: they may be as new as they like.
    @discardableResult
    static func write(
        at path: String, key: String, paths: some Sequence<String>, appendOnly: [String], now: Int64, racyWindow: Int64
    ) -> Bool {
        let appended = Set(appendOnly)
        unlink(path)
        var text = header + "\n" + key + "\n"
        for file in appended.union(paths) {
            guard !file.utf8.contains(UInt8(ascii: "\n")) else { return false }
            let found = FileStamp.of(file)
            switch found {
            case .missing: text += "m \(file)\n"
            case .directory: text += "d \(file)\n"
            case .file(let stamp):
                guard appended.contains(file) || now - stamp.modified > racyWindow else { return false }
                text += "f \(stamp.size) \(stamp.modified) \(stamp.inode) \(file)\n"
            }
        }
        // Written whole beside it, then renamed: a reader never sees half a witness.
        if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) { mkdir(String(path[..<slash]), 0o755) }
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        let written = writeAll(descriptor, Array(text.utf8))
        closeDescriptor(descriptor)
        guard written, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// One line: a path and what was there.
    struct Entry {
        var path: String
        var found: FileStamp.Found

        init?(_ line: ArraySlice<UInt8>) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: line.first == UInt8(ascii: "f") ? 4 : 1, omittingEmptySubsequences: false)
            switch (fields.first.map { String(decoding: $0, as: UTF8.self) }, fields.count) {
            case ("m"?, 2):
                path = String(decoding: fields[1], as: UTF8.self)
                found = .missing
            case ("d"?, 2):
                path = String(decoding: fields[1], as: UTF8.self)
                found = .directory(modified: 0)
            case ("f"?, 5):
                guard let size = Int64(String(decoding: fields[1], as: UTF8.self)),
                    let modified = Int64(String(decoding: fields[2], as: UTF8.self)),
                    let inode = UInt64(String(decoding: fields[3], as: UTF8.self))
                else { return nil }
                path = String(decoding: fields[4], as: UTF8.self)
                found = .file(FileStamp(size: size, modified: modified, inode: inode))
            default:
                return nil
            }
        }
    }
}
