internal import Sequencer

/// Reads the manifest as the command line's `-w` flags ask.
enum ManifestLoading {
    struct Loaded {
        var graph: NinjaGraph
        var warnings: [String]
        /// The manifest's files, as read: the manifest, then its includes and subninjas.
        var files: [String]
    }

    static func load(_ path: String, options: NinjaOptions) throws(ManifestError) -> Loaded {
        var warnings: [String] = []
        let parserOptions = ManifestParser.Options(
            duplicateOutputs: options.duplicateOutputsAreErrors ? .error : .warn,
            phonyCycles: options.phonyCyclesAreErrors ? .error : .warn,
            ninjaVersion: NinjaOptions.version)
        let files = RecordingManifestFiles()
        let graph = try ManifestParser.parse(file: path, files: files, options: parserOptions) { warnings.append($0) }
        return Loaded(graph: graph, warnings: warnings, files: files.read)
    }
}

/// Files on disk, noting which were read.
final class RecordingManifestFiles: ManifestFiles {
    private let disk = DiskManifestFiles()
    private let paths = Locked<[String]>([])

    var read: [String] { paths.withLock { $0 } }

    func read(_ path: String) throws(ManifestFileError) -> [UInt8] {
        paths.withLock { $0.append(path) }
        return try disk.read(path)
    }
}

/// An edge's variables, expanded for running it.
enum EdgeEvaluation {
    /// - Parameter description: whether to expand `description` too (a scan of what is up to
    /// date does not need it; the builder expands it for the edges that run).
    static func facts(of edge: NinjaGraph.EdgeID, in graph: NinjaGraph, description: Bool = true) throws(ManifestError) -> EdgeFacts {
        EdgeFacts(
            command: try graph.command(of: edge),
            description: description ? try graph.description(of: edge) : "",
            depfile: try graph.depfile(of: edge),
            deps: try graph.deps(of: edge),
            msvcDepsPrefix: try graph.msvcDepsPrefix(of: edge),
            responseFile: try graph.rspfile(of: edge),
            responseFileContent: try graph.rspfileContent(of: edge),
            restat: try graph.restat(of: edge),
            generator: try graph.generator(of: edge))
    }
}
