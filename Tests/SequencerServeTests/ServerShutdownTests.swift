import Foundation
@testable import SequencerServe
import SequencerTestHelpers
import Testing

/// The web page's server cancelled while a page follows a running run: the page's event
/// stream ends, the server returns, and nothing traps. The server is never cancelled itself
/// (see `serveUntilCancelled`): it waits for its connections to close, so an event stream that
/// did not end on the shutdown would hold it up. The page gives up reading after a minute, and
/// the test then closes the page itself, which lets the server end.
@Suite(.suiteTimeLimit) struct ServerShutdownTests {
    @Test func aServerCancelledWhileARunIsFollowedEnds() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", """
            version: 1
            jobs:
              slow:
                run: cat gate > /dev/null

            """)
        let gate = workspace.path("gate")
        #expect(mkfifo(gate, 0o600) == 0)
        let run = try await workspace.startRun()
        defer {
            if run.isRunning { kill(run.processIdentifier, SIGKILL) }
        }

        let ready = AsyncStream<Int>.makeStream()
        let server = Task {
            try await Server(options: ServeOptions(journalPath: workspace.journal, port: 0)).run { url in
                ready.continuation.yield(Int(url.split(separator: ":").last?.filter(\.isNumber) ?? "") ?? 0)
            }
        }
        defer { server.cancel() }
        var ports = ready.stream.makeAsyncIterator()
        let port = try #require(await ports.next())
        // The run is in the journal once `sequencer run` has begun it.
        var found = false
        for _ in 0..<600 where !found {
            found = try await HTTPClient.request(port: port, "GET", "/runs/1").status == 200
            if !found { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(found, "run 1 never appeared in the journal")

        let events = try OpenRequest(port: port, path: "/runs/1/events")
        #expect(await events.read(until: "event: full"), "the stream's first event")
        server.cancel()
        #expect(await events.readToEnd(), "the server closed the event stream")
        events.close()
        let ended = await server.result
        if case .failure(let error) = ended { #expect(error is CancellationError, "\(error)") }
        let text = String(decoding: events.received, as: UTF8.self)
        #expect(!text.contains("event: end"), "the run did not end; the server did")

        // The run goes on without the page.
        let opened = open(gate, O_WRONLY)
        #expect(opened >= 0)
        close(opened)
        await blocking { run.waitUntilExit() }
        #expect(run.terminationStatus == 0)
    }
}
