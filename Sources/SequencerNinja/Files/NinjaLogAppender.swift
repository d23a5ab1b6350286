internal import Sequencer

/// Appends records to a ninja log file as a build runs: the file is opened on the first append
/// (or on `close()`, which creates it even when nothing was appended, as ninja does), and a
/// header is written first when the file is empty. Each `append` is one `write`, so records are
/// whole on disk unless the system fails mid-way, which the readers tolerate.
///
/// One appender per file; appends from several tasks are serialised.
public final class NinjaLogAppender: Sendable {
    private struct State {
        var descriptor: Int32?
    }

    /// The file's path.
    public let path: String
    private let header: [UInt8]
    // Sequencer's lock: a pthread mutex in sanitized builds, which ThreadSanitizer can see.
    private let state = Locked(State())

    /// An appender to `path` whose empty file starts with `header`
    /// (`NinjaBuildLog.header(version:)`, `NinjaDepsLog.header`).
    public init(path: String, header: [UInt8]) {
        self.path = path
        self.header = header
    }

    /// An appender of build log lines of `version` (`NinjaBuildLog.line(for:)`).
    public static func buildLog(at path: String, version: Int = NinjaBuildLog.ninja111Version) -> NinjaLogAppender {
        NinjaLogAppender(path: path, header: NinjaBuildLog.header(version: version))
    }

    /// An appender of deps log records (`NinjaDepsLog.record(output:mtime:inputs:)`).
    public static func depsLog(at path: String) -> NinjaLogAppender {
        NinjaLogAppender(path: path, header: NinjaDepsLog.header)
    }

    /// Appends `bytes`, opening the file first when needed.
    ///
    /// - Throws: when the file cannot be opened or written (ninja: "opening build log: …",
    ///   "Error writing to build log: …", "Error writing to deps log: …").
    public func append(_ bytes: [UInt8]) throws(NinjaLogFileError) {
        let failure = state.withLock { state -> NinjaLogFileError? in
            do throws(NinjaLogFileError) {
                let descriptor = try openIfNeeded(&state)
                if !bytes.isEmpty { try NinjaLogFileSystem.writeFully(bytes, to: descriptor) }
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Closes the file, creating it (with its header) if nothing was appended. Later appends
    /// reopen it.
    public func close() throws(NinjaLogFileError) {
        let failure = state.withLock { state -> NinjaLogFileError? in
            do throws(NinjaLogFileError) {
                let descriptor = try openIfNeeded(&state)
                state.descriptor = nil
                try NinjaLogFileSystem.closeFile(descriptor)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    private func openIfNeeded(_ state: inout State) throws(NinjaLogFileError) -> Int32 {
        if let descriptor = state.descriptor { return descriptor }
        let (descriptor, size) = try NinjaLogFileSystem.openAppending(path)
        if size == 0 {
            do {
                try NinjaLogFileSystem.writeFully(header, to: descriptor)
            } catch {
                try? NinjaLogFileSystem.closeFile(descriptor)
                throw error
            }
        }
        state.descriptor = descriptor
        return descriptor
    }

    deinit {
        state.withLock { state in
            if let descriptor = state.descriptor { try? NinjaLogFileSystem.closeFile(descriptor) }
        }
    }
}
