import Foundation
import Hummingbird
import ServiceLifecycle

/// A running run's events (server-sent): its whole document first, then what changed
/// whenever the history changes, until the run is no longer running. The history is asked for
/// its version at its poll interval (a journal: five times a second); the run is read again
/// only when that moved, or at each look when the history cannot tell (a queue).
extension Server {
    static let heartbeatInterval = Duration.seconds(10)

    func events(id: Int64) async throws -> Response {
        let (history, views) = (self.history, self.views)
        guard let first = try await read({ try await views.view(id) }) else {
            throw HTTPError(.notFound, message: "There is no run #\(id).")
        }
        let body = ResponseBody { writer in
            var last = RunDocument(first)
            try await writer.write(Self.event("full", RunDocument.json(last)))
            var version = try await history.version()
            // A comment now and then when nothing was sent: a closed page then ends the stream.
            var quiet = Duration.zero
            while last.state == "running" {
                // A server shutting down waits for every connection to close (see
                // `serveUntilCancelled`), and an open page would keep this one.
                if Task.isShuttingDownGracefully { return try await writer.finish(nil) }
                try await Task.sleep(for: history.pollInterval)
                quiet += history.pollInterval
                if quiet >= Self.heartbeatInterval {
                    try await writer.write(ByteBuffer(string: ": still running\n\n"))
                    quiet = .zero
                }
                let now = try await history.version()
                if let now, now == version { continue }
                version = now
                guard let view = try await views.view(id) else { break }
                let document = RunDocument(view)
                if let update = document.update(since: last) {
                    try await writer.write(Self.event("update", RunDocument.json(update)))
                    quiet = .zero
                }
                last = document
            }
            try await writer.write(Self.event("end", "{}"))
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }

    private static func event(_ name: String, _ data: String) -> ByteBuffer {
        ByteBuffer(string: "event: \(name)\ndata: \(data)\n\n")
    }
}
