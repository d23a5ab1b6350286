import Foundation
import Hummingbird

/// A running run's events (server-sent): its whole document first, then what changed
/// whenever the journal changes, until the run is no longer running. The journal is asked
/// for its data version five times a second; it is read again only when that moved.
extension Server {
    static let pollInterval = Duration.milliseconds(200)
    static let heartbeatInterval = Duration.seconds(10)

    func events(id: Int64) throws -> Response {
        let history = self.history
        guard let first = try read({ try history.run(id) }) else {
            throw HTTPError(.notFound, message: "There is no run #\(id).")
        }
        let body = ResponseBody { writer in
            var last = RunDocument(first)
            try await writer.write(Self.event("full", RunDocument.json(last)))
            var version = try history.journal.dataVersion()
            var quiet = Duration.zero
            while last.state == "running" {
                try await Task.sleep(for: Self.pollInterval)
                let now = try history.journal.dataVersion()
                // The recorder may also stop without a write (killed): its lock tells.
                if now == version, history.journal.isRecordingElsewhere {
                    quiet += Self.pollInterval
                    if quiet >= Self.heartbeatInterval {
                        try await writer.write(ByteBuffer(string: ": still running\n\n"))
                        quiet = .zero
                    }
                    continue
                }
                version = now
                quiet = .zero
                guard let view = try history.run(id) else { break }
                let document = RunDocument(view)
                if let update = document.update(since: last) {
                    try await writer.write(Self.event("update", RunDocument.json(update)))
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
