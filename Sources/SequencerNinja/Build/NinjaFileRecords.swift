internal import Sequencer

/// ``BuildRecords`` kept in ninja's own files, `.ninja_log` (in the version `--version` reports)
/// and `.ninja_deps`, in the build directory, so that ninja can take the directory back.
final class NinjaFileRecords: BuildRecords {
    private struct Logs {
        var deps: NinjaDepsLog
        /// Read at its first use: a build with nothing to run and every edge's fingerprint
        /// known (a no-op) never needs it.
        var build: NinjaBuildLog?
    }

    private let logs: Locked<Logs>
    private let depsFile: NinjaLogAppender
    private let buildFile: NinjaLogAppender
    private let console: NinjaConsole
    private let buildPath: String
    private let depsPath: String
    /// The depfiles read (without `deps`, ninja reads them at each build).
    private let depfiles = Locked<Set<String>>([])
    /// Whether a recorded output path is one that may go from the build log when it is
    /// recompacted (gone from disk and from the manifest).
    private let isDead: @Sendable (String) -> Bool

    init(deps: NinjaDepsLog, depsPath: String, buildPath: String, console: NinjaConsole, isDead: @escaping @Sendable (String) -> Bool) {
        logs = Locked(Logs(deps: deps, build: nil))
        depsFile = NinjaLogAppender.depsLog(at: depsPath)
        buildFile = NinjaLogAppender.buildLog(at: buildPath, version: NinjaBuildLog.ninja111Version)
        self.console = console
        self.buildPath = buildPath
        self.depsPath = depsPath
        self.isDead = isDead
    }

    /// Reads the deps log now (a damaged one is cut back or started anew, with ninja's
    /// warning), and the build log when it is first needed.
    static func open(session: NinjaSession) -> NinjaFileRecords {
        let depsPath = session.inBuildDirectory(NinjaDepsLog.fileName)
        let buildPath = session.inBuildDirectory(NinjaBuildLog.fileName)
        var deps = NinjaDepsLog()
        do {
            let loaded = try NinjaDepsLog.load(from: depsPath)
            if let warning = loaded.warning { session.console.warning(warning) }
            deps = loaded.log
            if deps.needsRecompaction {
                try deps.recompact(at: depsPath) { FileStamp.of($0).exists || session.graph.node(at: $0) != nil }
            }
        } catch {
            session.console.warning("loading deps log \(depsPath): \(error); starting over")
        }
        let graph = session.graph
        return NinjaFileRecords(
            deps: deps, depsPath: depsPath, buildPath: buildPath, console: session.console,
            isDead: { !FileStamp.of($0).exists && graph.node(at: $0) == nil })
    }

    /// The build log, read at the first call (with the lock held).
    private func buildLog(_ logs: inout Logs) -> NinjaBuildLog {
        if let build = logs.build { return build }
        var build = NinjaBuildLog()
        do {
            let loaded = try NinjaBuildLog.load(from: buildPath)
            if let warning = loaded.warning { console.warning(warning) }
            build = loaded.log
            // Written in the version this ninja reports (its lines are appended to it).
            if loaded.fileExists, build.needsRecompaction(writingVersion: NinjaBuildLog.ninja111Version) {
                try build.recompact(at: buildPath, version: NinjaBuildLog.ninja111Version, isDead: isDead)
            }
        } catch {
            console.warning("loading build log \(buildPath): \(error); starting over")
        }
        logs.build = build
        return build
    }

    func discoveredInputs(outputs: [String], facts: EdgeFacts) -> [String] {
        guard let first = outputs.first else { return [] }
        if !facts.deps.isEmpty {
            return logs.withLock { $0.deps.deps(of: first)?.inputs } ?? []
        }
        guard !facts.depfile.isEmpty else { return [] }
        // Without `deps`, ninja reads the depfile each time; one that cannot be read or parsed
        // lists nothing (the edge's outputs then decide).
        depfiles.withLock { _ = $0.insert(facts.depfile) }
        return (try? DiscoveredInputs.readDepfile(facts.depfile)) ?? []
    }

    func recordDiscovered(outputs: [String], inputs: [String]) {
        for output in outputs {
            let mtime = FileStamp.of(output).modified
            // Written with the lock held: a path record's id is its place among the file's path
            // records, so records must reach the file in the order they were numbered.
            let failure = logs.withLock { logs -> NinjaLogFileError? in
                do throws(NinjaLogFileError) {
                    let bytes = try logs.deps.record(output: output, mtime: mtime, inputs: inputs)
                    if !bytes.isEmpty { try depsFile.append(bytes) }
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { console.error("Error writing to deps log: \(failure)") }
        }
    }

    func recordCommand(outputs: [String], facts: EdgeFacts, start: Int64, end: Int64) {
        let hash = MurmurHash64A.hash(facts.commandForHash)
        let mtime = outputs.map { FileStamp.of($0).modified }.max() ?? 0
        var bytes: [UInt8] = []
        logs.withLock { logs in
            _ = buildLog(&logs)
            for output in outputs {
                let entry = NinjaBuildLogEntry(
                    output: output, commandHash: hash, startTime: Int32(clamping: start), endTime: Int32(clamping: end), mtime: mtime)
                logs.build?.record(entry)  // in place: loaded above
                bytes += NinjaBuildLog.line(for: entry)
            }
        }
        do {
            try buildFile.append(bytes)
        } catch {
            console.error("Error writing to build log: \(error)")
        }
    }

    func ninjaConsidersUpToDate(outputs: [String], facts: EdgeFacts, inputs: [String]) -> Bool {
        let newestInput = inputs.map { FileStamp.of($0).modified }.max() ?? 0
        return logs.withLock { logs in
            let build = buildLog(&logs)
            // As the log's version hashes (ninja 1.13's logs use another function).
            let hash = build.commandHashFunction.hash(facts.commandForHash)
            if !facts.deps.isEmpty, let first = outputs.first {
                guard let deps = logs.deps.deps(of: first), deps.mtime >= FileStamp.of(first).modified else { return false }
            }
            for output in outputs {
                let found = FileStamp.of(output)
                guard found.exists else { return false }
                let entry = build[output: output]
                // A generator's command may change freely, and it needs no log entry.
                if !facts.generator {
                    guard let entry, entry.commandHash == hash else { return false }
                }
                let mtime = facts.restat ? (entry?.mtime ?? found.modified) : found.modified
                if mtime < newestInput { return false }
                if let entry, entry.mtime < newestInput { return false }
            }
            return true
        }
    }

    var logFiles: [String] { [depsPath, buildPath] }
    var depfilesRead: [String] { depfiles.withLock { Array($0) } }

    func flush() {
        try? depsFile.close()
        try? buildFile.close()
    }
}
