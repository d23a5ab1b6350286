#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening `.ninja_log` and `.ninja_deps` as ninja does before the tools that read them
/// (`deps`, `missingdeps`, `query`, `cleandead`) and for `recompact`.
extension ToolInvocation {
    /// Creates the build directory unless this is a dry run (ninja's `EnsureBuildDirExists`).
    ///
    /// - Returns: false after printing the error.
    func ensureBuildDirectory() -> Bool {
        guard !buildDirectory.isEmpty, !options.dryRun else { return true }
        if let code = ToolDisk.makeDirectories(buildDirectory, in: directory) {
            printer.error("creating build directory \(buildDirectory): \(ToolDisk.describe(code))")
            return false
        }
        return true
    }

    /// Creates the build directory, then reads the build log and the deps log, rewriting each
    /// when ninja would (`recompactOnly`: always, as `-t recompact`; else when it has grown
    /// mostly outdated, unless this is a dry run). The deps log's paths become nodes of the
    /// graph, as in ninja's state.
    ///
    /// - Returns: false after printing the error.
    mutating func openLogs(recompactOnly: Bool = false) -> Bool {
        guard ensureBuildDirectory() else { return false }
        return openBuildLog(recompactOnly: recompactOnly) && openDepsLog(recompactOnly: recompactOnly)
    }

    /// Reads `.ninja_log` (ninja's `OpenBuildLog`); false after printing the error.
    private mutating func openBuildLog(recompactOnly: Bool) -> Bool {
        let path = inBuildDirectory(NinjaBuildLog.fileName)
        let loaded: NinjaLogLoad<NinjaBuildLog>
        do {
            loaded = try NinjaBuildLog.load(from: onDisk(path))
        } catch {
            printer.error("loading build log \(path): \(error.message)")
            return false
        }
        if let warning = loaded.warning { printer.warning(warning) }
        buildLog = loaded.log
        let version = NinjaBuildLog.ninja111Version
        let (graph, printer, directory) = (self.graph, self.printer, self.directory)
        let isDead = { (output: String) in Self.isDeadOutput(output, in: graph, directory: directory, printer: printer) }
        if recompactOnly {
            guard loaded.fileExists || loaded.warning != nil else { return true }
            // A log deleted for its version is empty: ninja writes an empty log beside it, then
            // fails to remove the old one.
            do {
                try buildLog.recompactAsNinja(at: onDisk(path), version: version, isDead: isDead)
            } catch {
                printer.error("failed recompaction: \(error.message)")
                return false
            }
            return true
        }
        if !options.dryRun && loaded.fileExists && buildLog.needsRecompaction(writingVersion: version) {
            do {
                try buildLog.recompactAsNinja(at: onDisk(path), version: version, isDead: isDead)
            } catch {
                printer.error("opening build log: \(error.message)")
                return false
            }
        }
        return true
    }

    /// Reads `.ninja_deps` (ninja's `OpenDepsLog`); false after printing the error.
    private mutating func openDepsLog(recompactOnly: Bool) -> Bool {
        let path = inBuildDirectory(NinjaDepsLog.fileName)
        let loaded: NinjaLogLoad<NinjaDepsLog>
        do {
            loaded = try NinjaDepsLog.load(from: onDisk(path))
        } catch {
            printer.error("loading deps log \(path): \(error.message)")
            return false
        }
        if let warning = loaded.warning { printer.warning(warning) }
        depsLog = loaded.log
        for path in depsLog.paths { _ = graph.addNode(path) }
        let recompacting =
            recompactOnly
            ? loaded.fileExists || loaded.warning != nil
            : !options.dryRun && loaded.fileExists && depsLog.needsRecompaction
        guard recompacting else {
            return true
        }
        let (graph, file) = (self.graph, onDisk(path))
        do {
            if loaded.fileExists {
                try depsLog.recompact(at: file) { Self.hasLiveDeps(path: $0, in: graph) }
            } else {
                // Deleted for its signature or version: as for the build log.
                try Self.replaceFile(file, with: NinjaDepsLog.header, temporarySuffix: ".recompact")
            }
        } catch {
            printer.error(recompactOnly ? "failed recompaction: \(error.message)" : "opening deps log: \(error.message)")
            return false
        }
        return true
    }

    /// Replaces the file at `path` as ninja replaces its logs: writes `PATH` + `temporarySuffix`,
    /// removes `path` (failing when it is not there), and renames the new file.
    static func replaceFile(_ path: String, with bytes: [UInt8], temporarySuffix: String) throws(NinjaLogFileError) {
        let temporary = path + temporarySuffix
        try NinjaLogFileSystem.createFile(temporary, containing: bytes)
        if unlink(path) != 0 { throw NinjaLogFileError(code: errno) }
        try NinjaLogFileSystem.renameFile(temporary, to: path)
    }

    /// Whether a build log entry is dead (ninja's `IsPathDead`): no edge writes it and it is
    /// not on disk.
    static func isDeadOutput(_ path: String, in graph: NinjaGraph, directory: String?, printer: ToolPrinter) -> Bool {
        if let node = graph.node(at: path), graph.nodes[Int(node)].inEdge != nil { return false }
        let stamp = ToolDisk.stamp(path, in: directory)
        if case .failed(let message) = stamp { printer.error(message) }
        return stamp == .missing
    }

    /// Whether a deps log entry is still wanted (ninja's `IsDepsEntryLiveFor`): an edge writes
    /// the path and has `deps`.
    static func hasLiveDeps(path: String, in graph: NinjaGraph) -> Bool {
        guard let node = graph.node(at: path), let edge = graph.nodes[Int(node)].inEdge else { return false }
        return !((try? graph.deps(of: edge)) ?? "").isEmpty
    }
}
