import Foundation
import SequencerHistory
import Sequencer
import SequencerQueue
@testable import SequencerServe
import SequencerTestHelpers
import SequencerTestSupport
import Testing
import SequencerQueueSQLite

/// The server's parts, in this process (so that the sanitizer sees them too).
@Suite struct ServeUnitTests {
    @Test func ansiColoursBecomeClassesAndTextIsEscaped() {
        #expect(ANSI.html("plain <b>&") == "plain &lt;b&gt;&amp;")
        #expect(ANSI.html("\u{1B}[32mok\u{1B}[0m done") == "<span class=\"fg2\">ok</span> done")
        #expect(ANSI.html("\u{1B}[1;31mbad\u{1B}[22m still red\u{1B}[m") == "<span class=\"fg1 b\">bad</span><span class=\"fg1\"> still red</span>")
        #expect(ANSI.html("\u{1B}[38;5;196mred\u{1B}[39m") == "<span class=\"fg9\">red</span>")
        #expect(ANSI.html("\u{1B}[48;2;0;0;238mblue\u{1B}[0m") == "<span class=\"bg4\">blue</span>")
        // A title (OSC) and a cursor move vanish; a lone escape at the end too.
        #expect(ANSI.html("\u{1B}]0;title\u{07}a\u{1B}[2Kb\u{1B}") == "ab")
        #expect(ANSI.html("\u{1B}[31m<script>") == "<span class=\"fg1\">&lt;script&gt;</span>")
    }

    @Test func queriesDecodeAsFormsSendThem() {
        let query = Query("workflow=%2Fa+b%2Bc.yml&state=&before=12&before=13")
        #expect(query["workflow"] == "/a b+c.yml")
        #expect(query["state"] == nil)
        #expect(query["before"] == "12")
        #expect(query["missing"] == nil)
    }

    @Test func escapingCoversMarkupAndAttributes() {
        #expect(HTML.escape("<img src=x onerror='alert(1)'> & \"") == "&lt;img src=x onerror=&#39;alert(1)&#39;&gt; &amp; &quot;")
    }

    /// A chain 0 <- 1 <- ... <- 9 and a fan 10...19 needing 5.
    static let needs: [[Int]] = (0..<10).map { $0 == 0 ? [] : [$0 - 1] } + (10..<20).map { _ in [5] }

    @Test func aSmallGraphIsDrawnWhole() {
        let focus = GraphFocus.of(needs: Self.needs, focus: nil, fallback: 9, limit: 100)
        #expect(focus.focus == nil)
        #expect(focus.nodes == Array(0..<20))
        #expect(focus.hidden.isEmpty)
    }

    @Test func aLargeGraphShowsWholeLevelsAroundItsFocus() {
        // Limit 6 around 5: itself, level 1 (4, 6, and 10...19 = 12 jobs) does not fit both
        // ways; its needs alone (4) do, then 3, 2, 1, 0 one level at a time up to the limit.
        let focus = GraphFocus.of(needs: Self.needs, focus: 5, fallback: nil, limit: 6)
        #expect(focus.focus == 5)
        #expect(focus.nodes == [0, 1, 2, 3, 4, 5])
        #expect(focus.hidden.count == 1)
        #expect(focus.hidden[5]?.needs == 0 && focus.hidden[5]?.dependents == 11)
        let wide = GraphFocus.of(needs: Self.needs, focus: 5, fallback: nil, limit: 14)
        #expect(Set(wide.nodes).isSuperset(of: [4, 5, 6] + Array(10..<20)))
        #expect(wide.nodes.count <= 14)
    }

    /// A job page's "Why": the recorded reason first, then what the status and the run's
    /// sessions tell.
    @Test func whyAJobRanIsItsReasonOrWhyThereIsNone() {
        func why(_ status: String, ran: Bool = true, error: String? = nil, added: Bool = false, reason: String? = nil, checked: Bool?) -> String {
            JobPage.why(status: status, ran: ran, error: error, added: added, reason: reason, checked: checked)
        }
        #expect(why("succeeded", reason: "input <a>.c changed", checked: true) == "It ran: <span id=\"job-reason\">input &lt;a&gt;.c changed</span>")
        #expect(why("upToDate", ran: false, checked: true).hasPrefix("It was up to date, so it did not run"))
        #expect(why("pending", ran: false, checked: true) == "It has not started.")
        #expect(why("skipped", ran: false, error: "needed job 'a' did not succeed", checked: true)
            == "It did not run: needed job &#39;a&#39; did not succeed")
        #expect(why("succeeded", checked: nil).hasPrefix("Not known"))
        #expect(why("failed", checked: false).hasPrefix("Every job of this run ran"))
        #expect(why("succeeded", added: true, checked: true) == "Its parent job added it, so it ran.")
        #expect(why("succeeded", checked: true) == "No reason was recorded.")
    }

    /// A queue's runs page: a state follows from each run's jobs, so the runs are read page
    /// after page until one of that state is full; "Older »" goes on from the last shown.
    @Test func aQueuesRunsPageOfOneStateIsFullAndGoesOnWhereItStopped() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteQueueStore(path: directory.file("queue.sqlite"))
        var ids: [Int64] = []
        for number in 0..<250 {
            let job = NewDurableJob(kind: "k", input: Data("{}".utf8), runAt: 0)
            let (run, _) = try await store.createRun(NewQueueRun(workflow: "w", origin: "elsewhere:/w/sequencer.yml"), jobs: [("a", job)], now: Int64(number))
            // Every hundredth run cancelled: the rest keep running (no worker).
            if number % 100 == 0 { _ = try await store.cancelRun(run, now: Int64(number)) }
            ids.append(run.rawValue)
        }
        let queue = QueueHistory(store: store, location: directory.file("queue.sqlite"))
        let first = try await queue.runs(RunQuery(state: .cancelled, limit: 2))
        #expect(first.runs.map(\.id) == [ids[200], ids[100]])
        #expect(first.runs.allSatisfy { $0.state == .cancelled && $0.counts.retried == nil && $0.counts.cancelled == 1 })
        #expect(first.total == 250 && first.workflows == ["w"])
        let second = try await queue.runs(RunQuery(state: .cancelled, before: first.older, limit: 2))
        #expect(second.runs.map(\.id) == [ids[0]] && second.older == nil)
        let running = try await queue.runs(RunQuery(workflow: "w", before: ids[3], limit: 2))
        #expect(running.runs.map(\.id) == [ids[2], ids[1]] && running.older == ids[1])

        // A run's page: the durable states in the history's words, no file from another machine.
        let views = RunViews(history: queue, workflowPath: nil)
        let view = try #require(try await views.view(ids[1]))
        #expect(view.state == "running" && view.jobs.map(\.status) == ["pending"] && view.graph == nil)
        #expect(view.fileProblem?.contains("elsewhere:/w/sequencer.yml") == true)
        #expect(try await queue.cancel(ids[0]) == "run #\(ids[0]) is not running (it is cancelled)")
        #expect(try await queue.cancel(ids[1]) == nil)
        #expect(try await views.view(ids[1])?.state == "cancelled")
    }

    @Test func anUpdateCarriesOnlyWhatChanged() {
        func document(_ statuses: [String], attempts: Int) -> RunDocument {
            RunDocument(
                id: 1, workflow: "w", state: statuses.contains("running") ? "running" : "succeeded", startedAt: 0, duration: nil,
                now: 10, lanes: [],
                jobs: statuses.enumerated().map { .init(name: "j\($0)", status: $1, lane: nil, needs: [], start: 0, end: nil, attempts: 1, error: nil) },
                attempts: (0..<attempts).map { .init(job: $0, attempt: 1, start: 0, end: 1, exit: "exit code 0") }, critical: [])
        }
        let before = document(["succeeded", "running", "pending"], attempts: 1)
        #expect(before.update(since: before) == nil)
        let after = document(["succeeded", "succeeded", "running"], attempts: 2)
        let update = after.update(since: before)
        #expect(update.map { Set($0.jobs.keys) } == ["1", "2"])
        #expect(update?.attempts.map(\.job) == [1])
        #expect(update?.state == "running")
    }
}

/// The server itself, in this process, on a journal with one failed run.
@Suite struct ServerTests {
    @Test func itAnswersOnlyForItsOwnHostAndSaysToLoadNothingElse() async throws {
        try await withServer { port, _ in
            let page = try await HTTPClient.request(port: port, "GET", "/runs")
            #expect(page.status == 200)
            #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
            #expect(String(decoding: page.body, as: UTF8.self).contains("data-run=\"1\""))
            let rebound = try await HTTPClient.request(port: port, "GET", "/runs", headers: ["Host": "attacker.example:\(port)"])
            #expect(rebound.status == 403)
            let localhost = try await HTTPClient.request(port: port, "GET", "/runs", headers: ["Host": "localhost:\(port)"])
            #expect(localhost.status == 200)
            #expect(try await HTTPClient.request(port: port, "GET", "/runs/99").status == 404)
            #expect(try await HTTPClient.request(port: port, "GET", "/assets/app.js").status == 200)
        }
    }

    @Test func postsWithoutTheTokenChangeNothing() async throws {
        try await withServer { port, token in
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            #expect(try await HTTPClient.request(port: port, "POST", "/runs/1/cancel", headers: form, body: Data()).status == 403)
            #expect(try await HTTPClient.request(port: port, "POST", "/runs/1/cancel", headers: form, body: Data("token=\(token)x".utf8)).status == 403)
            #expect(try await HTTPClient.request(port: port, "POST", "/runs/1/resume", headers: ["X-Sequencer-Token": String(token.dropLast())], body: Data()).status == 403)
            // With it: refused for what it is (the run is not running), not for the token.
            let cancel = try await HTTPClient.request(port: port, "POST", "/runs/1/cancel", headers: form, body: Data("token=\(token)".utf8))
            #expect(cancel.status == 409)
            #expect(String(decoding: cancel.body, as: UTF8.self).contains("is not running"))
            // GET never acts: the preview only lists.
            let preview = try await HTTPClient.request(port: port, "GET", "/runs/1/resume")
            #expect(preview.status == 200)
            #expect(String(decoding: preview.body, as: UTF8.self).contains("data-job=\"second\""))
        }
    }

    /// Starts a server on a journal whose one run failed (job `second`), runs `body` with its
    /// port and token, and stops it.
    func withServer(_ body: (Int, String) async throws -> Void) async throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.path(".sequencer"), withIntermediateDirectories: true)
        try await SequencerJournalForTests.record(at: workspace.journal)
        let options = ServeOptions(journalPath: workspace.journal, port: 0)
        try await withRunning(try Server(options: options)) { port in try await body(port, options.token) }
    }
}

/// Runs `server` in this process, runs `body` with its port, and stops it.
func withRunning(_ server: Server, _ body: (Int) async throws -> Void) async throws {
    let ready = AsyncStream<Int>.makeStream()
    let task = Task {
        try await server.run { url in
            let port = Int(url.split(separator: ":").last?.filter(\.isNumber) ?? "") ?? 0
            ready.continuation.yield(port)
        }
    }
    var port = 0
    for await first in ready.stream {
        port = first
        break
    }
    defer { task.cancel() }
    try await body(port)
    task.cancel()
    _ = await task.result
}

/// When the compare page lists a job: a change of status or fingerprint, or of time by more
/// than a fifth and more than 50 ms; never for a time within either bound.
@Suite struct JobDifferenceTests {
    private func difference(_ before: (String, Double?), _ after: (String, Double?)) -> JobDifference {
        JobDifference(
            name: "j", before: JobSample(run: 1, status: before.0, duration: before.1),
            after: JobSample(run: 2, status: after.0, duration: after.1))
    }

    @Test func aJobDiffersByStatusFingerprintOrATimeBeyondBothBounds() {
        #expect(difference(("succeeded", 1.0), ("failed", 1.0)).differs)
        #expect(!difference(("succeeded", 1.0), ("succeeded", 1.1)).differs, "a tenth more: within a fifth")
        #expect(difference(("succeeded", 1.0), ("succeeded", 1.3)).differs, "three tenths more, 300 ms")
        #expect(!difference(("succeeded", 0.1), ("succeeded", 0.14)).differs, "two fifths more, but 40 ms")
        #expect(difference(("succeeded", 0.2), ("succeeded", 0.26)).differs, "60 ms and more than a fifth")
        #expect(difference(("upToDate", nil), ("succeeded", 0.2)).differs)
        var changed = difference(("succeeded", 1.0), ("succeeded", 1.0))
        #expect(!changed.differs)
        changed.fingerprints = ("a", "b")
        #expect(changed.differs)
        #expect(JobDifference(name: "gone", before: JobSample(run: 1, status: "succeeded", duration: 1), after: nil).differs)
    }
}
