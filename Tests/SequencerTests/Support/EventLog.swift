import Sequencer
import Testing

/// The events of a run, read as a test waits for them.
struct EventLog {
    private var events: AsyncStream<RunEvent>.Iterator
    /// Every event read so far, in order.
    private(set) var seen: [RunEvent] = []

    /// Starts `workflow` with `options` and an event stream to read.
    static func start(_ workflow: Workflow, _ options: RunOptions) throws -> (Run, EventLog) {
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        var options = options
        options.events = continuation
        return (try workflow.start(options), EventLog(events: stream.makeAsyncIterator()))
    }

    private init(events: AsyncStream<RunEvent>.Iterator) { self.events = events }

    /// Waits until `wanted` happens (or has happened); records an issue if the run ends first.
    mutating func wait(for wanted: RunEvent) async {
        if seen.contains(wanted) { return }
        while let event = await events.next() {
            seen.append(event)
            if event == wanted { return }
        }
        Issue.record("the run ended before \(wanted); saw \(seen)")
    }

    /// Reads every remaining event, until the stream ends with the run.
    mutating func drain() async {
        while let event = await events.next() { seen.append(event) }
    }
}
