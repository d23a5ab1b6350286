import ArgumentParser
import Foundation
import Sequencer
import SequencerRunner
import SequencerCache
import SequencerServe

/// `sequencer serve` (which starts this binary): the local web page of a journal's runs, or
/// of a durable queue's.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sequencer serve",
        abstract: "Serve a local web page of the journal's runs (or a durable queue's): live progress, graphs, timelines, jobs' output.",
        discussion: """
            It listens on 127.0.0.1 unless --host says otherwise, reads the journal (or the queue) without writing to it \
            but for the page's cancel and resume buttons, and loads nothing from the network. Ctrl-C stops it.
            """,
        version: "sequencer-serve \(SequencerVersion.current)"
    )

    @Option(name: [.customShort("f"), .customLong("file")], help: ArgumentHelp("The workflow file whose journal to show.", valueName: "file"))
    var file = "sequencer.yml"

    @Option(help: ArgumentHelp("The journal (default: .sequencer/journal.sqlite beside the workflow file).", valueName: "path"))
    var journal: String?

    @Option(help: ArgumentHelp(
        "Show the runs of this durable queue instead of a journal: an SQLite file, sqlite:PATH, or postgres://user:password@host/database (default: $SEQUENCER_QUEUE when set and no --journal).",
        valueName: "location"))
    var queue: String?

    @Option(help: "The port to listen on (0: any free one).")
    var port = 8080

    @Option(help: "The address to listen on. Anything but 127.0.0.1 lets other machines read your runs.")
    var host = "127.0.0.1"

    @Flag(help: "Open the page in the default browser.")
    var open = false

    @Flag(help: "Lay graphs out without Graphviz, even when it is installed.")
    var noGraphviz = false

    @Option(help: ArgumentHelp(
        "Serve this directory cache over HTTP, with the protocol of Bazel's HTTP caches, instead of a page (what `sequencer cache serve` runs).",
        valueName: "directory"))
    var cache: String?

    @Flag(help: "With --cache, refuse every PUT.")
    var readOnly = false

    /// Bad arguments exit with 2, as `sequencer`'s do (argument-parser's own is 64).
    static func main() async {
        do {
            var command = try parseAsRoot(nil)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            printError(fullMessage(for: error))
            Foundation.exit(2)
        }
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
        if queue != nil, journal != nil { throw ValidationError("--queue and --journal name two sources: give one") }
        if cache != nil, queue != nil || journal != nil { throw ValidationError("--cache serves a cache, not runs: give it without --queue or --journal") }
        if readOnly, cache == nil { throw ValidationError("--read-only needs --cache") }
    }

    /// `--queue`, else `SEQUENCER_QUEUE` when no journal is named.
    var queueLocation: String? {
        if let queue, !queue.isEmpty { return queue }
        guard journal == nil, let text = ProcessInfo.processInfo.environment["SEQUENCER_QUEUE"], !text.isEmpty else { return nil }
        return text
    }

    func run() async throws {
        if let cache { return try await serveCache(cache) }
        let workflowPath = URL(fileURLWithPath: file).standardizedFileURL.path
        let journalPath = journal ?? ((workflowPath as NSString).deletingLastPathComponent + "/.sequencer/journal.sqlite")
        if !["127.0.0.1", "localhost", "::1"].contains(host) {
            printError("warning: serving on \(host): anyone who can reach it can read your runs' output and cancel or resume runs with the page's token")
        }
        let options = ServeOptions(
            journalPath: journalPath, workflowPath: FileManager.default.fileExists(atPath: workflowPath) ? workflowPath : nil, host: host, port: port, graphviz: noGraphviz ? nil : ServeOptions.findGraphviz())
        let server: Server
        do {
            if let location = queueLocation {
                server = Server(options: options, history: try await HistoryLocation.queue(location).openHistory())
            } else {
                server = try Server(options: options)
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        let shouldOpen = open
        Self.stopOnSignals()
        do {
            try await server.run { url in
                let line = "sequencer serve: \(url) (\(server.history.name)\(options.graphviz == nil ? ", graphs without Graphviz" : ""))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
                if shouldOpen { Self.openInBrowser(url) }
            }
        } catch {
            printError("error: cannot serve on \(host):\(port): \(error)")
            throw ExitCode(1)
        }
    }

    /// `--cache`: the directory cache over HTTP, until the process is stopped.
    private func serveCache(_ path: String) async throws {
        let directory: DirectoryCache
        do {
            directory = try DirectoryCache(path: path, readOnly: readOnly)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        if !["127.0.0.1", "localhost", "::1"].contains(host) {
            printError("warning: serving on \(host): anyone who can reach it can read the cache" + (readOnly ? "" : " and write to it"))
        }
        Self.stopOnSignals()
        do {
            try await CacheServer(cache: directory, host: host, port: port).run { url in
                let line = "sequencer cache serve: \(url) (\(directory.path)\(readOnly ? ", read-only" : ""))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch {
            printError("error: cannot serve on \(host):\(port): \(error)")
            throw ExitCode(1)
        }
    }

    /// Nothing to save (the journal is only read): Ctrl-C ends the process at once, open
    /// event streams and all, with the status of an interrupted command.
    private static func stopOnSignals() {
        signal(SIGINT) { _ in _exit(130) }
        signal(SIGTERM) { _ in _exit(130) }
    }

    private static func openInBrowser(_ url: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        #if os(macOS)
        process.arguments = ["open", url]
        #else
        process.arguments = ["xdg-open", url]
        #endif
        do {
            try process.run()
        } catch {
            printError("warning: cannot open a browser (\(error.localizedDescription)); open \(url)")
        }
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
