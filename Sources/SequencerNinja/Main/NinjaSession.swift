import Foundation
import Sequencer
import SequencerProcess

/// One load of the manifest and of the build directory's state: what a build, a manifest
/// rebuild or a tool works on.
final class NinjaSession: Sendable {
    let options: NinjaOptions
    let console: NinjaConsole
    let environment: [String: String]
    let graph: NinjaGraph
    /// `builddir`, where ninja keeps `.ninja_log` and `.ninja_deps` ("" for the current directory).
    let buildDirectory: String
    /// The manifest's files, as read.
    let manifestFiles: [String]
    /// Whether loading the manifest printed a warning (a no-op then leaves no witness: the
    /// next would not print it).
    let warned: Bool
    /// What a build that found nothing to do read, for its witness (``NoOpWitness``); nil
    /// once a build had work, or changed the state.
    private let witnessed = Locked<Set<String>?>([])
    /// The shared output cache `SEQUENCER_CACHE` names, if any (opened once for the session).
    let cache: NinjaCache?
    /// The state and ninja's files, once read (``openState()``).
    private let opened = Locked<(hashes: BuildStateStore, records: any BuildRecords)?>(nil)

    struct Failure: Error {
        var message: String
    }

    init(options: NinjaOptions, console: NinjaConsole, environment: [String: String], cache: NinjaCache? = nil) throws(Failure) {
        self.options = options
        self.cache = cache
        self.console = console
        self.environment = environment
        do {
            let loaded = try ManifestLoading.load(options.manifest, options: options)
            for warning in loaded.warnings { console.warning(warning) }
            graph = loaded.graph
            manifestFiles = loaded.files
            warned = !loaded.warnings.isEmpty
        } catch {
            throw Failure(message: error.message)
        }
        buildDirectory = graph.scopes.first?.bindings["builddir"] ?? ""
        if !buildDirectory.isEmpty, !options.dryRun, options.tool == nil || options.tool == "recompact" {
            do {
                try FileManager.default.createDirectory(atPath: buildDirectory, withIntermediateDirectories: true)
            } catch {
                throw Failure(message: "creating build directory \(buildDirectory): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// A path in the build directory.
    func inBuildDirectory(_ name: String) -> String {
        buildDirectory.isEmpty ? name : buildDirectory + "/" + name
    }

    func makeStatus(format: StatusFormat, parallelism: Int) -> BuildStatus {
        let verbosity: BuildStatus.Verbosity =
            switch options.verbosity {
            case .normal: .normal
            case .verbose: .verbose
            case .quiet: .noStatusUpdate
            }
        return BuildStatus(printer: .standardOutput(environment: environment), format: format, verbosity: verbosity, parallelism: parallelism)
    }

    enum RebuildOutcome: Equatable {
        case rebuilt, upToDate, failed(String), interrupted
    }

    /// Builds the manifest first when an edge writes it, as ninja does.
    ///
    /// - Parameter justRebuilt: the manifest was rebuilt just before this load: its edge, as
    ///   the new manifest writes it (CMake lists other inputs once it has configured), is taken
    ///   for up to date as it is now.
    func rebuildManifest(status: BuildStatus, parallelism: Int, justRebuilt: Bool = false) async -> RebuildOutcome {
        guard let node = graph.node(at: (try? CanonicalPath.canonicalize(options.manifest)) ?? options.manifest),
            let edge = graph.nodes[Int(node)].inEdge
        else {
            return .upToDate
        }
        if justRebuilt, !options.dryRun, !isForced(edge), let facts = try? EdgeEvaluation.facts(of: edge, in: graph) {
            let (hashes, records) = openState()
            defer {
                hashes.flush()
                records.flush()
            }
            let outputs = graph.edges[Int(edge)].outputs.map { graph.nodes[Int($0)].path }
            let fingerprint = EdgeFingerprint(graph: graph, hashes: hashes)
                .current(edge, facts: facts, discovered: records.discoveredInputs(outputs: outputs, facts: facts))
            if let fingerprint {
                hashes.record(outputs[0], fingerprint: fingerprint)
                return .upToDate
            }
        }
        switch await runBuild(targets: [node], status: status, parallelism: parallelism) {
        case .noWork: return .upToDate
        case .succeeded: return .rebuilt
        case .failed(let message), .error(let message): return .failed(message)
        case .interrupted: return .interrupted
        }
    }

    /// Builds the command line's targets, or the defaults, or every root: ninja's exit code.
    func build(status: BuildStatus, parallelism: Int) async -> Int32 {
        let targets: [NinjaGraph.NodeID]
        do {
            targets = try TargetSelection.resolve(options.arguments, in: graph)
        } catch {
            console.error(error.message)
            return 1
        }
        let outcome = await runBuild(targets: targets, status: status, parallelism: parallelism)
        // What the cache did, on standard error: standard output stays ninja's.
        if let figures = cache?.cache.statistics.current, !figures.isEmpty {
            writeAll(STDERR_FILENO, Array("sequencer: \(figures.line)\n".utf8))
        }
        switch outcome {
        case .noWork:
            console.info("no work to do.")
            return 0
        case .succeeded: return 0
        case .failed(let message):
            console.info("build stopped: \(message).")
            return 1
        case .interrupted:
            console.info("build stopped: interrupted by user.")
            return 2
        case .error(let message):
            console.error(message)
            return 1
        }
    }

    enum BuildOutcome {
        case noWork, succeeded, failed(String), interrupted, error(String)
    }

    /// Builds `targets`. Edges whose dyndep file must be built first wait for a later round:
    /// the first builds the dyndep files, which are then loaded into the graph, and the next
    /// plans again with what they added (ninja updates its plan in place; the rounds give the
    /// same order).
    func runBuild(targets: [NinjaGraph.NodeID], status: BuildStatus, parallelism: Int) async -> BuildOutcome {
        let (hashes, records) = openState()
        defer {
            hashes.flush()
            records.flush()
        }
        let history = options.dryRun ? nil : NinjaHistory(manifest: options.manifest, warn: { [console] in console.warning($0) })
        var graph = self.graph
        var ranAny = false
        while true {
            let round: BuildRound
            do {
                round = try BuildRound(graph: &graph, targets: targets, hashes: hashes, records: records)
            } catch {
                return .error(error.message)
            }
            if options.explain {
                round.explainDirty(hashes: hashes, records: records) { history?.storedParts(of: $0, fingerprint: $1) }
            }
            guard round.hasWork else {
                if round.pendingDyndeps.isEmpty, !ranAny {
                    witness(round)
                    return .noWork
                }
                if round.pendingDyndeps.isEmpty { return .succeeded }
                return .error("dyndep files \(round.pendingDyndeps.map { graph.nodes[Int($0)].path }) are not ready [this is a bug]")
            }
            ranAny = true
            witnessed.withLock { $0 = nil }
            let outcome = await execute(
                round, status: status, parallelism: parallelism, hashes: hashes, records: records, history: history?.nextSession())
            guard case .succeeded = outcome, !round.pendingDyndeps.isEmpty else { return outcome }
            // The dyndep files are built: load them, and plan again.
            if options.dryRun { return outcome }
            for node in round.pendingDyndeps where graph.nodes[Int(node)].dyndepPending {
                do {
                    _ = try graph.load(dyndep: node)
                } catch {
                    return .error(error.message)
                }
            }
        }
    }

    /// Notes every file of the round's edges for the witness.
    private func witness(_ round: BuildRound) {
        witnessed.withLock { paths in
            guard paths != nil else { return }
            for edgeID in round.plan.order {
                let edge = round.graph.edges[Int(edgeID)]
                for node in edge.inputs + edge.outputs + edge.validations { paths?.insert(round.graph.nodes[Int(node)].path) }
            }
        }
    }

    /// After a build that found nothing to do, printed no warning and changed nothing: the
    /// files its verdict read, for a ``NoOpWitness``; nil otherwise. Call it after
    /// ``closeState()``.
    func noOpWitnessPaths(stateChanged: Bool) -> [String]? {
        guard !warned, !stateChanged, let paths = witnessed.withLock({ $0 }), !paths.isEmpty else { return nil }
        return manifestFiles + Array(paths)
    }

    /// Whether an input of `edge` is the missing output of a phony edge without inputs: it then
    /// always runs (a manifest that rebuilds itself so is rebuilt until ninja's limit).
    private func isForced(_ edge: NinjaGraph.EdgeID) -> Bool {
        graph.edges[Int(edge)].dirtyingInputs.contains { input in
            guard let producer = graph.nodes[Int(input)].inEdge else { return false }
            let phony = graph.edges[Int(producer)]
            return phony.isPhony && phony.inputs.isEmpty && !FileStamp.of(graph.nodes[Int(input)].path).exists
        }
    }

    /// The build directory's state and ninja's files, read once for the session (the
    /// manifest's rebuild, then the build) and kept until ``closeState()``.
    private func openState() -> (BuildStateStore, any BuildRecords) {
        opened.withLock { opened in
            if let opened { return opened }
            let state = loadState()
            opened = state
            return state
        }
    }

    /// Writes what the state holds and lets it go: the session is over.
    /// - Returns: the files the build read (every file hashed, the depfiles), those it keeps
    ///   (the state file, ninja's logs), and whether it recorded a fingerprint.
    @discardableResult
    func closeState() -> (files: [String], kept: [String], changed: Bool) {
        opened.withLock { opened in
            defer { opened = nil }
            guard let (hashes, records) = opened else { return ([], [], false) }
            hashes.close()
            records.flush()
            return (hashes.touchedPaths + records.depfilesRead, [inBuildDirectory(".sequencer/ninja-state")] + records.logFiles, hashes.changed)
        }
    }

    private func loadState() -> (hashes: BuildStateStore, records: any BuildRecords) {
        let directory = inBuildDirectory(".sequencer")
        if !options.dryRun { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let stateFile = BuildStateFile(path: directory + "/ninja-state")
        let loaded = stateFile.load()
        if let problem = loaded.problem { console.warning("\(stateFile.path): \(problem); it is a cache: starting it anew") }
        let rewrite = loaded.problem != nil || !loaded.existed || loaded.records > 3 * (loaded.state.files.count + loaded.state.edges.count) + 1_000
        let writer = options.dryRun ? nil : BuildStateWriter(path: stateFile.path, state: loaded.state, appendingTo: rewrite ? nil : loaded)
        let records: any BuildRecords = options.dryRun ? NoRecords() : NinjaFileRecords.open(session: self)
        var shared: (@Sendable (String) -> Digest?)?
        if let cache { shared = { path in cache.contentDigest(path) } }
        return (BuildStateStore(state: loaded.state, writer: writer, shared: shared), records)
    }

    private func execute(
        _ round: BuildRound, status: BuildStatus, parallelism: Int, hashes: BuildStateStore, records: any BuildRecords,
        history: NinjaHistory.Session?
    ) async -> BuildOutcome {
        // Commands print into scratch files; a recorded build keeps what they printed with the
        // run (an empty directory goes).
        let scratchDirectory = NSTemporaryDirectory() + "sequencer-ninja-\(getpid())"
        try? FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
        let outputDirectory = history?.outputDirectory ?? scratchDirectory
        defer {
            try? FileManager.default.removeItem(atPath: scratchDirectory)
            if history != nil { rmdir(outputDirectory) }
        }
        let runner = ProcessRunner()
        let builder = NinjaBuilder(
            graph: round.graph, plan: round.plan, scan: round.scan, facts: round.facts,
            discoveredProducers: round.discoveredProducers, hashes: hashes, records: records,
            status: status, options: options, parallelism: parallelism,
            explain: { writeAll(STDERR_FILENO, Array("ninja explain: \($0)\n".utf8)) },
            scratchDirectory: scratchDirectory, outputDirectory: outputDirectory, environment: environment,
            commandsToRun: round.commandsToRun, history: history, cache: cache)
        let interrupted = Interrupted()
        let interrupts = Interrupts(first: { interrupted.cancel() }, again: { runner.signalAll(SIGKILL) })
        defer { interrupts.stop() }
        switch await builder.run(runner: runner, interrupted: interrupted) {
        case .succeeded: return .succeeded
        case .failed(let message): return .failed(message)
        case .interrupted: return .interrupted
        }
    }
}
