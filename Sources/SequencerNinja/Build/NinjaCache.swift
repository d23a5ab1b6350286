import Foundation
import SequencerCache

/// Ninja mode's edges through a shared output cache, when `SEQUENCER_CACHE` names one (ninja's
/// command line stays ninja's, so the cache is set by the environment):
///
/// - `SEQUENCER_CACHE`: the cache (a directory);
/// - `SEQUENCER_CACHE_NAMESPACE`, `SEQUENCER_CACHE_TRUST` (names separated by commas) and
///   `SEQUENCER_CACHE_READ_ONLY=1`, as `sequencer run`'s options;
/// - `SEQUENCER_CACHE_ROOT`: the directory paths are written relative to, so that checkouts at
///   other paths share (default: the nearest directory above the build's with a `.git`, else
///   the build's own);
/// - `SEQUENCER_CACHE_ENV`: variables a cached command sees besides the base set, by name,
///   separated by commas (they go into the key by value).
///
/// An edge is cached when it has outputs and a command, and is not a generator (CMake's
/// re-run) or in the console pool. Its key: its command and response file (written relative to
/// the root), the build's directory, its tools by content, the variables named, its explicit and
/// implicit inputs by content, the inputs its depfile found (in two steps), its outputs' paths.
/// A cached edge's command runs with the base set of variables (`PATH`, `HOME`, `TMPDIR`, `USER`,
/// `LOGNAME`, `LANG`, `TERM`) and those named, as a cached workflow job does.
final class NinjaCache: Sendable {
    static let baseVariables = ["PATH", "HOME", "TMPDIR", "USER", "LOGNAME", "LANG", "TERM"]

    let cache: ActionCache
    /// What a cached command runs with.
    let environment: [String: String]
    /// The variables named in `SEQUENCER_CACHE_ENV`, with their values.
    private let keyed: [String: String]
    private let tools: ToolIdentity
    /// The build's directory, absolute.
    private let directory: String
    private let workflow: String

    private init(cache: ActionCache, environment: [String: String], keyed: [String: String], directory: String) {
        (self.cache, self.environment, self.keyed, self.directory) = (cache, environment, keyed, directory)
        tools = ToolIdentity(digests: cache.digests)
        workflow = cache.root.relative(directory + "/build.ninja")
    }

    /// Opens a cache's store at a location (a directory, or a URL its opener knows).
    typealias Opener = @Sendable (_ location: String, _ readOnly: Bool) async throws -> any CacheStore

    /// The cache `environment` names, or nil; one that cannot be opened is said (`warn`), and
    /// the build goes on without it.
    static func open(
        environment: [String: String], directory: String, opener: Opener?, explain: (@Sendable (String, String) -> Void)?,
        warn: @escaping @Sendable (String) -> Void
    ) async -> NinjaCache? {
        guard let location = environment["SEQUENCER_CACHE"], !location.isEmpty else { return nil }
        func names(_ variable: String) -> [String]? {
            environment[variable].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        let namespaces = CacheNamespaces(
            write: environment["SEQUENCER_CACHE_NAMESPACE"].flatMap { $0.isEmpty ? nil : $0 } ?? CacheNamespace.standard,
            trusted: names("SEQUENCER_CACHE_TRUST").flatMap { $0.isEmpty ? nil : $0 })
        for name in [namespaces.write] + namespaces.trusted where !CacheNamespace.isValid(name) {
            warn("sequencer: '\(name)' is not a cache namespace; the build goes on without the cache")
            return nil
        }
        let store: any CacheStore
        let readOnly = ["1", "true", "yes"].contains(environment["SEQUENCER_CACHE_READ_ONLY"] ?? "")
        do {
            store = try await opener?(location, readOnly) ?? CacheLocation.open(location, readOnly: readOnly)
        } catch {
            warn("sequencer: the cache cannot be opened (\(error)); the build goes on without it")
            return nil
        }
        let root = environment["SEQUENCER_CACHE_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.repository(containing: directory) ?? directory
        let named = names("SEQUENCER_CACHE_ENV") ?? []
        var closed: [String: String] = [:]
        for name in baseVariables + named { closed[name] = environment[name] }
        let keyed = Dictionary(named.map { ($0, environment[$0] ?? "") }) { _, last in last }
        let cache = ActionCache(store: store, root: ProjectRoot(root), namespaces: namespaces, explain: explain, warn: warn)
        return NinjaCache(cache: cache, environment: closed, keyed: keyed, directory: directory)
    }

    /// The nearest directory from `directory` up that holds a `.git`.
    private static func repository(containing directory: String) -> String? {
        var current = ProjectRoot(directory).path
        while true {
            if FileManager.default.fileExists(atPath: current + "/.git") { return current }
            guard current != "/" else { return nil }
            current = (current as NSString).deletingLastPathComponent
        }
    }

    /// Whether an edge is cached.
    static func caches(_ edge: NinjaGraph.Edge, facts: EdgeFacts) -> Bool {
        !edge.isPhony && !facts.generator && edge.pool != "console" && !edge.outputs.isEmpty && !facts.command.isEmpty
    }

    /// The edge as the cache sees it, its inputs hashed now: each read once in a build while it
    /// stays as it was (``FileDigests``), or read again, every one, when `rereading` (the check
    /// after the edge ran, that none changed while it ran).
    func action(_ edge: NinjaGraph.Edge, graph: NinjaGraph, facts: EdgeFacts, outputs: [String], rereading: Bool = false) -> CacheAction {
        let root = cache.root
        var entries: [KeyPreimage.Entry] = [
            .init(.format, KeyPreimage.format),
            .init(.command, root.relativeText(facts.command)),
            .init(.workingDirectory, root.relative(directory)),
        ]
        if !facts.responseFile.isEmpty { entries.append(.init(.command, "rspfile", root.relativeText(facts.responseFileContent))) }
        for tool in tools.identify(command: facts.command, path: environment["PATH"], directory: directory) {
            entries.append(.init(.tool, tool.name, tool.digest ?? "not found"))
        }
        for (name, value) in keyed { entries.append(.init(.environment, name, root.relativeText(value))) }
        // File names may hold the checkout's path (CMake names the objects of sources outside
        // its tree after their absolute paths): written relative wherever it appears.
        for input in edge.dirtyingInputs {
            let path = absolute(graph.nodes[Int(input)].path)
            let digest = rereading ? FileDigests.read(path)?.digest : cache.digests.digest(of: path)?.digest
            entries.append(.init(.input, root.relativeText(root.relative(path)), digest?.hex ?? "missing"))
        }
        for output in outputs { entries.append(.init(.output, root.relativeText(root.relative(absolute(output))), "")) }
        let discovers = !facts.deps.isEmpty || !facts.depfile.isEmpty
        return CacheAction(
            name: outputs[0], workflow: workflow, job: root.relativeText(outputs[0]), declared: KeyPreimage(entries), discovers: discovers,
            outputs: storedFiles(facts, outputs: outputs))
    }

    /// The files a cached edge leaves, absolute: its outputs, and its depfile when ninja reads it
    /// again on the next build (no `deps`).
    func storedFiles(_ facts: EdgeFacts, outputs: [String]) -> [String] {
        outputs.map(absolute) + (facts.deps.isEmpty && !facts.depfile.isEmpty ? [absolute(facts.depfile)] : [])
    }

    /// The inputs a restored result's depfile found, as the build names them: relative to the
    /// build's directory when under the root, else absolute.
    func discovered(in result: ActionResult) -> [String] {
        result.preimage.entries.filter { $0.kind == .discovered }.map { entry in
            guard !entry.name.hasPrefix("/") else { return entry.name }
            return Self.relative(cache.resolve(entry.name), from: directory)
        }
    }

    /// The SHA-256 of the file the build names `path`, as the cache's keys read it: a file is
    /// read once for its key and the build's own content hash.
    func contentDigest(_ path: String) -> Digest? {
        cache.digests.digest(of: absolute(path)).flatMap { Digest(hex: $0.digest.hex) }
    }

    /// `path` as the build names it, absolute.
    func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }

    /// `path` (absolute) relative to `directory` (absolute), with `..` as needed.
    static func relative(_ path: String, from directory: String) -> String {
        let target = path.split(separator: "/"), base = directory.split(separator: "/")
        var common = 0
        while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
        let parts = Array(repeating: "..", count: base.count - common) + target[common...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}
