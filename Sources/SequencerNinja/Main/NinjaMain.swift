import Foundation
public import SequencerCache
import SequencerProcess

/// `sequencer ninja` and `ninja`: ninja's command line, manifest, output and exit codes, with
/// Sequencer deciding what is up to date by content.
public enum NinjaMain {
    /// ninja's exit codes: 0 success, 1 a failure (build, manifest, flags), 2 interrupted.
    ///
    /// - Parameter endsProcess: whether the process exits once this returns: the parsed
    ///   manifest is then left to the exit instead of being freed object by object (as ninja
    ///   does; on a large manifest freeing takes a twentieth of a no-op).
    /// - Parameter openCache: opens the shared output cache `SEQUENCER_CACHE` names, when it is
    ///   not a directory (a `postgres://` URL); nil: directories only.
    public static func run(
        arguments: [String], environment: [String: String]? = nil, endsProcess: Bool = false,
        openCache: (@Sendable (_ location: String, _ readOnly: Bool) async throws -> any CacheStore)? = nil
    ) async -> Int32 {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let console = NinjaConsole()
        var outcome = NinjaOptions.parse(arguments)
        while case .warning(let message, let then) = outcome {
            console.warning(message)
            outcome = then
        }
        guard case .options(let options) = outcome else {
            return console.finish(outcome, parallelism: defaultParallelism(nil))
        }
        if let directory = options.directory {
            if options.tool == nil, options.verbosity != .quiet { console.info("Entering directory `\(directory)'") }
            guard chdir(directory) == 0 else {
                console.fatal("chdir to '\(directory)' - \(String(cString: strerror(errno)))")
                return 1
            }
        }
        let parallelism = defaultParallelism(options.parallelism)
        let format: StatusFormat
        do {
            format = try StatusFormat(environment["NINJA_STATUS"] ?? StatusFormat.standard)
        } catch {
            console.fatal(error.message)
            return 1
        }
        if let tool = options.tool, let code = await NinjaTools.runBeforeLoading(tool, options: options, console: console) {
            return code
        }
        // Nothing changed since a build that found nothing to do: its witness says so.
        let witnessKey = NoOpWitness.applies(to: options) ? NoOpWitness.key(arguments) : nil
        let witnessPath = NoOpWitness.path(manifest: options.manifest)
        if let witnessKey, NoOpWitness.holds(at: witnessPath, key: witnessKey) {
            console.info("no work to do.")
            return 0
        }
        let cache = options.dryRun || options.tool != nil ? nil : await sharedCache(environment, opener: openCache, explains: options.explain)
        var justRebuilt = false
        for _ in 1...maximumManifestRebuilds {
            let session: NinjaSession
            do {
                session = try NinjaSession(options: options, console: console, environment: environment, cache: cache)
            } catch {
                console.error(error.message)
                return 1
            }
            if endsProcess { _ = Unmanaged.passRetained(session) }
            if let tool = options.tool {
                return await NinjaTools.run(tool, session: session)
            }
            defer { session.closeState() }
            let status = session.makeStatus(format: format, parallelism: parallelism)
            switch await session.rebuildManifest(status: status, parallelism: parallelism, justRebuilt: justRebuilt) {
            case .rebuilt:
                if options.dryRun { return 0 }
                justRebuilt = true
                continue
            case .upToDate: break
            case .failed(let message):
                console.error("rebuilding '\(options.manifest)': \(message)")
                return 1
            case .interrupted:
                console.info("build stopped: interrupted by user.")
                return 2
            }
            let code = await session.build(status: status, parallelism: parallelism)
            let state = session.closeState()
            if code == 0, let witnessKey, let paths = session.noOpWitnessPaths(stateChanged: state.changed) {
                NoOpWitness.write(
                    at: witnessPath, key: witnessKey, paths: Set(paths + state.files), appendOnly: state.kept,
                    now: BuildStateStore.now(), racyWindow: BuildStateStore.racyWindow)
            }
            return code
        }
        console.error("manifest '\(options.manifest)' still dirty after \(maximumManifestRebuilds) tries, perhaps system time is not set")
        return 1
    }

    /// The cache `SEQUENCER_CACHE` names, if any; its words go to standard error.
    private static func sharedCache(_ environment: [String: String], opener: NinjaCache.Opener?, explains: Bool) async -> NinjaCache? {
        let say: @Sendable (String) -> Void = { line in writeAll(STDERR_FILENO, Array((line + "\n").utf8)) }
        var explain: (@Sendable (String, String) -> Void)?
        if explains { explain = { name, words in say("ninja explain: \(name): \(words)") } }
        return await NinjaCache.open(
            environment: environment, directory: FileManager.default.currentDirectoryPath, opener: opener, explain: explain, warn: say)
    }

    /// ninja stops reloading a manifest that keeps rebuilding itself after this many times.
    static let maximumManifestRebuilds = 100

    static func defaultParallelism(_ asked: Int?) -> Int {
        asked ?? NinjaOptions.defaultParallelism(processors: ProcessInfo.processInfo.activeProcessorCount)
    }
}

/// ninja's messages: `ninja: …` on stdout for information, `ninja: error: …`, `ninja: warning: …`
/// and `ninja: fatal: …` on stderr.
public struct NinjaConsole: Sendable {
    public init() {}

    public func info(_ message: String) { writeAll(STDOUT_FILENO, Array("ninja: \(message)\n".utf8)) }
    public func error(_ message: String) { writeAll(STDERR_FILENO, Array("ninja: error: \(message)\n".utf8)) }
    public func warning(_ message: String) { writeAll(STDERR_FILENO, Array("ninja: warning: \(message)\n".utf8)) }
    public func fatal(_ message: String) { writeAll(STDERR_FILENO, Array("ninja: fatal: \(message)\n".utf8)) }
    public func out(_ text: String) { writeAll(STDOUT_FILENO, Array(text.utf8)) }

    /// Ends a command line that asked for something other than a build or a tool.
    func finish(_ outcome: NinjaCommandLineOutcome, parallelism: Int) -> Int32 {
        switch outcome {
        case .options: return 0
        case .print(let text, let code):
            out(text)
            return code
        case .usage(let message):
            if let message { writeAll(STDERR_FILENO, Array("ninja: \(message)\n".utf8)) }
            writeAll(STDERR_FILENO, Array(NinjaOptions.usage(parallelism: parallelism).utf8))
            return 1
        case .error(let message, let fatal):
            if fatal { self.fatal(message) } else { error(message) }
            return 1
        case .warning(let message, let then):
            warning(message)
            return finish(then, parallelism: parallelism)
        }
    }
}
