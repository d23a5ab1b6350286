import Foundation
import PostgresTestSupport
import Sequencer
import SequencerPostgres
import SequencerQueue
import SequencerQueueSQLite
import SequencerTestHelpers
import Testing

extension BrowserTests {
    /// The queue page (`serve --queue`) of a queue that a worker in this process works: its
    /// depth, workers, last hour and failures as the store has them; a failure retried to
    /// success, another discarded, a parked job cancelled and a job enqueued, each from the
    /// page in Chromium and each in the log of actions; refused actions change nothing.
    @Test(arguments: queueKinds)
    func theQueuePageShowsTheQueueAndActsOnIt(_ kind: String) async throws {
        let workspace = try Workspace()
        try await withQueue(kind, in: workspace) { location in
            let store: any QueueStore =
                kind == "postgres" ? try await PostgresQueueStore(url: location) : try SQLiteQueueStore(path: location)
            let queue = DurableQueue(store: store, options: .init(poll: .milliseconds(50)))
            let greeted = Locked<[String]>([])
            let healthy = Locked(false)
            queue.register("greet") { (name: String, _) -> String in
                greeted.withLock { $0.append(name) }
                return "hello \(name)"
            }
            queue.register("flaky") { (number: Int, _) -> Int in
                guard healthy.withLock({ $0 }) else { throw Flaky(number: number) }
                return number
            }
            let worker = Task { try await queue.work(maxConcurrency: 2) }
            defer { worker.cancel() }
            for name in ["a", "b", "c"] { _ = try await queue.enqueue("greet", name) }
            let first = try await queue.enqueue("flaky", 1)
            let second = try await queue.enqueue("flaky", 2)
            let parked = try await queue.enqueue("parked", "nobody runs this kind")
            let settled = await eventually {
                let failed = (try? await store.jobs(in: [.failed], after: nil, limit: 10).count) ?? 0
                let workers = (try? await store.workers(now: QueueClock.wallNow()).count) ?? 0
                return failed == 2 && workers == 1 && greeted.withLock(\.count) == 3
            }
            try #require(settled, "the flaky jobs fail, the greetings run and the worker beats")

            try await withPage(serving: ["--queue", location]) { browser, served in
                try await browser.open(served.base + "/queue", until: "return document.body.dataset.page === 'queue';")
                #expect(try await browser.run("return document.getElementById('nav-queue') !== null;") as? Bool == true)
                let summary = try await browser.run("""
                    return ['waiting', 'scheduled', 'available', 'running'].map(s =>
                      Number(document.querySelector('#queue-summary dd[data-state="' + s + '"]').textContent));
                    """) as? [Int]
                #expect(summary == [0, 0, 1, 0], "the parked job only")
                #expect(try await browser.run("return document.querySelector('#depth tr[data-kind=\"parked\"] td[data-state=\"available\"]').textContent;") as? String == "1")
                #expect(try await browser.run("return document.getElementById('oldest-age').dataset.seconds !== '';") as? Bool == true)
                #expect(try await browser.run("return document.getElementById('workers-alive').textContent;") as? String == "1")
                #expect(try await browser.run("return document.querySelector('#workers tbody tr').cells[6].textContent;") as? String == "flaky, greet")
                let chart = try await browser.run("""
                    const svg = document.getElementById('throughput');
                    return [svg.dataset.succeeded, svg.dataset.failed, String(svg.querySelectorAll('rect').length > 0)];
                    """) as? [String]
                #expect(chart == ["3", "2", "true"])
                #expect(try await Self.rows(browser, "#failed") == ["\(second.rawValue)", "\(first.rawValue)"], "newest first")
                #expect(try await browser.run("return document.querySelector('#failed tbody tr').textContent.includes('flaky 2');") as? Bool == true)
                try await screenshot(browser, "queue")

                // Refused: no token, a wrong one, a job in the wrong state, input that is not JSON.
                let refused = try await browser.run("""
                    const token = document.querySelector('meta[name="sequencer-token"]').content;
                    const post = (path, body) => fetch(path, { method: 'POST', body: body, redirect: 'manual',
                      headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })
                      .then(async r => r.status + ' ' + (await r.text()).trim());
                    return await Promise.all([
                      post('/queue/jobs/\(first.rawValue)/retry', ''),
                      post('/queue/jobs/\(first.rawValue)/discard', 'token=wrong'),
                      post('/queue/jobs/\(parked.rawValue)/retry', 'token=' + token),
                      post('/queue/enqueue', 'token=' + token + '&kind=greet&input=' + encodeURIComponent('{not json')),
                      post('/queue/enqueue', 'token=' + token + '&kind=parked&input=1')]);
                    """.asyncScript) as? [String]
                #expect(refused?.count == 5)
                #expect(refused?[0].hasPrefix("403 refused") == true && refused?[1].hasPrefix("403 refused") == true, "\(refused ?? [])")
                #expect(refused?[2] == "409 job \(parked) is available, not failed")
                #expect(refused?[3].hasPrefix("409 the input is not JSON") == true, "\(refused ?? [])")
                #expect(refused?[4] == "409 no worker alive runs jobs of kind 'parked'")
                #expect(try await store.job(first)?.state == .failed)

                // Retry the first failure, now that its kind is healthy: it succeeds.
                healthy.withLock { $0 = true }
                try await browser.run("document.querySelector('#failed tr[data-job=\"\(first.rawValue)\"] button[data-action=\"retry\"]').click();")
                try await browser.wait(for: "the retried job to succeed", until: """
                    if (document.body.dataset.page !== 'queue') return false;
                    if (document.getElementById('throughput').dataset.succeeded !== '4') { location.reload(); return false; }
                    return true;
                    """)
                #expect(try await store.job(first)?.state == .succeeded)
                #expect(try await Self.rows(browser, "#failed") == ["\(second.rawValue)"])

                try await browser.run("document.querySelector('#failed tr[data-job=\"\(second.rawValue)\"] button[data-action=\"discard\"]').click();")
                try await browser.wait(for: "the discarded job to leave", until: "return document.getElementById('no-failures') !== null;")
                #expect(try await store.job(second) == nil)

                try await browser.run("document.querySelector('#live tr[data-job=\"\(parked.rawValue)\"] button[data-action=\"cancel\"]').click();")
                try await browser.wait(for: "the parked job to be cancelled", until: "return document.getElementById('no-live') !== null;")
                #expect(try await store.job(parked)?.state == .cancelled)

                try await browser.run("""
                    const form = document.getElementById('enqueue-form');
                    form.elements.kind.value = 'greet';
                    form.elements.input.value = '"from the page"';
                    form.submit();
                    """)
                try await browser.wait(for: "the enqueued job to run", until: """
                    if (document.body.dataset.page !== 'queue') return false;
                    if (document.getElementById('throughput').dataset.succeeded !== '5') { location.reload(); return false; }
                    return true;
                    """)
                #expect(greeted.withLock { $0.last } == "from the page")
                // A job enqueued elsewhere shows on the open page, which reads itself again.
                try await browser.run("window.sameDocument = 42;")
                _ = try await queue.enqueue("greet", "elsewhere")
                try await browser.wait(for: "the page to show the job enqueued elsewhere", until: """
                    return document.getElementById('throughput').dataset.succeeded === '6';
                    """)
                #expect(try await browser.run("return window.sameDocument;") as? Int == 42)
                #expect(try await browser.run("return Number(document.body.dataset.refreshes || '0') > 0;") as? Bool == true)

                let log = try await browser.run("""
                    return [...document.querySelectorAll('#actions tbody tr')].map(row => [...row.cells].slice(1).map(c => c.textContent));
                    """) as? [[String]]
                let actions = try #require(log)
                #expect(actions.count == 7)
                #expect(actions.prefix(4).map { $0[0] + ": " + $0[4] } == ["enqueue: done", "cancel: done", "discard: done", "retry: done"])
                // The three refused, sent at once, in any order (the tokenless ones are not recorded).
                let refusals = actions.dropFirst(4).map { $0[0] + ": " + $0[4] }.sorted()
                #expect(refusals.count == 3)
                #expect(refusals.first == "enqueue: no worker alive runs jobs of kind 'parked'")
                #expect(refusals.dropFirst().first?.hasPrefix("enqueue: the input is not JSON: ") == true, "\(refusals)")
                #expect(refusals.last == "retry: job \(parked) is available, not failed")
                #expect(actions[1][1] == "\(parked)" && actions[3][1] == "\(first)")
                #expect(actions.allSatisfy { $0[2].contains("@") && $0[3].hasPrefix("127.0.0.1:") }, "\(actions)")
                #expect(try await browser.run("return document.getElementById('throughput').dataset.other;") as? String == "1", "the cancelled job")
            }
            worker.cancel()
            _ = await worker.result
            try await store.close()
        }
    }

    private struct Flaky: Error, CustomStringConvertible {
        let number: Int
        var description: String { "flaky \(number) failed" }
    }


    /// The job IDs of a table's rows, in order.
    static func rows(_ browser: Browser, _ table: String) async throws -> [String] {
        try await browser.run("return [...document.querySelectorAll('\(table) tbody tr')].map(row => row.dataset.job);") as? [String] ?? []
    }
}
