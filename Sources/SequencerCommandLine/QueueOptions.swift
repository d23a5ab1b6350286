import ArgumentParser
import Foundation
import SequencerQueue
import SequencerRunner

/// `--queue LOCATION` (or `SEQUENCER_QUEUE`): a durable queue that workers on any process or
/// machine work, instead of running jobs here.
struct QueueOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Submit the run to this durable queue (an SQLite file, sqlite:PATH, or postgres://user:password@host/database) for `sequencer worker` processes, and follow it (default: $SEQUENCER_QUEUE).",
        valueName: "location"))
    var queue: String?

    @Option(help: ArgumentHelp(
        "Follow run RUN of the --queue, submitted before (by a `sequencer run --queue` that ended or was killed), instead of submitting a new one.",
        valueName: "run"))
    var attach: Int64?

    func validate() throws {
        if attach != nil, location == nil { throw ValidationError("--attach needs --queue (or SEQUENCER_QUEUE)") }
    }

    /// The location given by `--queue`, else by `SEQUENCER_QUEUE`; nil for neither.
    var location: String? { Self.location(queue) }

    /// `option` when given, else `SEQUENCER_QUEUE`; nil for neither.
    static func location(_ option: String?) -> String? {
        if let option, !option.isEmpty { return option }
        guard let text = ProcessInfo.processInfo.environment["SEQUENCER_QUEUE"], !text.isEmpty else { return nil }
        return text
    }
}

/// Opening the store a `--queue` location names (see ``HistoryLocation``), for the commands:
/// a location that cannot be opened is a usage error (exit status 2) that says why.
enum QueueLocation {
    /// Whether `location` names a PostgreSQL database rather than an SQLite file.
    static func isPostgres(_ location: String) -> Bool { HistoryLocation.queue(location).isPostgres }

    /// The SQLite file `location` names (`sqlite:PATH`, or the path itself).
    static func path(_ location: String) -> String { HistoryLocation.queue(location).path ?? location }

    /// The store at `location`: an SQLite file path, `sqlite:PATH`, or a PostgreSQL URL
    /// (`postgres://user:password@host:port/database`).
    /// - Throws: a usage error (exit status 2) for a location it cannot open, saying why.
    /// - Parameter create: whether a missing file becomes a new queue (to submit or work); to
    ///   read runs, a missing file is an error.
    static func open(_ location: String, create: Bool = true) async throws -> any RunStore {
        let place = HistoryLocation.queue(location)
        if !create, let path = place.path, !FileManager.default.fileExists(atPath: path) {
            printError("error: --queue \(location): there is no queue file at \(path)")
            throw ExitCode(ExitStatus.invalid)
        }
        do {
            return try await place.openQueue(create: create)
        } catch {
            printError("error: --queue \(place.shown): \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
    }

    /// A run of workflow files through the queue at `location`, opened as ``open(_:create:)``
    /// opens it.
    static func session(_ location: String, create: Bool = true, json: Bool, output: RunnerOutput) async throws -> QueueRunSession {
        QueueRunSession(location: shown(location), store: try await open(location, create: create), json: json, output: output)
    }

    /// The location as it may be printed: a URL's password masked
    /// (`postgres://ci:***@db.internal/builds`).
    static func shown(_ location: String) -> String { HistoryLocation.queue(location).shown }
}
