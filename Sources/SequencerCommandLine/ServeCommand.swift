import ArgumentParser
import Foundation
import SequencerProcess

/// `sequencer serve`: starts `sequencer-serve`, the web page's own binary (so that this one
/// does not carry an HTTP server), found beside this executable or on the `PATH`.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a local web page of the journal's runs, or a durable queue's (127.0.0.1 only by default).",
        discussion: "Options: -f FILE, --journal PATH, --queue LOCATION, --port N (default 8080), --host ADDRESS, --open, --no-graphviz. `sequencer serve --help` lists them once sequencer-serve is installed."
    )

    @Argument(parsing: .captureForPassthrough, help: "The options of sequencer-serve.")
    var arguments: [String] = []

    func run() throws {
        throw HandOver.exec("sequencer-serve", arguments, missing: "error: `sequencer serve` needs the sequencer-serve binary beside sequencer or on the PATH (swift build --product sequencer-serve builds it)")
    }
}
