import Foundation
import Logging

/// Diagnostics about sequencer itself (not the jobs' output), on standard error. The level
/// comes from `SEQUENCER_LOG` (`trace`, `debug`, `info`, `notice`, `warning` (the default),
/// `error`, `critical`).
let log: Logger = {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = ProcessInfo.processInfo.environment["SEQUENCER_LOG"]
            .flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .warning
        return handler
    }
    return Logger(label: "sequencer")
}()
