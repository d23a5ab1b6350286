import Foundation
import PostgresTestSupport
import Testing

extension BrowserTests {
    /// The queues the tests reach: an SQLite file, and a database of a real PostgreSQL server
    /// when there is one.
    static let queueKinds = TestServer.available ? ["sqlite", "postgres"] : ["sqlite"]

    /// A durable queue's runs (`serve --queue`): a run that `run --queue` submitted and a worker
    /// process runs is followed live on an open page, its failed job's page shows the worker,
    /// the output and the raw log as `show --queue` does, and a second run is cancelled from
    /// its page (the worker stops its command).
    @Test(arguments: queueKinds)
    func aQueuesRunIsFollowedLiveAndCancelledFromItsPage(_ kind: String) async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", """
            version: 1
            jobs:
              a:
                run: echo building a
              gated:
                needs: [a]
                run: cat gate > /dev/null; echo through
              broken:
                needs: [a]
                run: printf '\\033[31mbroken\\033[0m fails\\n'; exit 3

            """)
        #expect(mkfifo(workspace.path("gate"), 0o600) == 0)
        #expect(mkfifo(workspace.path("gate2"), 0o600) == 0)
        try await withQueue(kind, in: workspace) { queue in
            let worker = try workspace.start("worker", "--queue", queue, "-j", "2")
            let submitter = try workspace.start("run", "--queue", queue)
            defer {
                for process in [worker, submitter] where process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            // The server reads a queue and never makes one: it starts once the worker made it.
            for _ in 0..<200 where kind == "sqlite" && !FileManager.default.fileExists(atPath: queue) {
                try await Task.sleep(for: .milliseconds(50))
            }
            try await withPage(serving: ["--queue", queue]) { browser, served in
                try await browser.open(served.base + "/runs/1", until: "return document.body.dataset.page === 'run';")
                try await browser.wait(for: "'gated' to show as running", until: "return \(Self.statusOf("gated")) === 'running';")
                try await browser.run("window.sameDocument = 42;")
                #expect(try await browser.run("return document.getElementById('cancel-form') !== null;") as? Bool == true)
                let opened = await blocking { () -> Bool in
                    let descriptor = Foundation.open(workspace.path("gate"), O_WRONLY)
                    guard descriptor >= 0 else { return false }
                    close(descriptor)
                    return true
                }
                #expect(opened)
                try await browser.wait(for: "'gated' to succeed and the run to end", until: """
                    return \(Self.statusOf("gated")) === 'succeeded' && document.getElementById('run-head').dataset.state === 'failed';
                    """)
                #expect(try await browser.run("return window.sameDocument;") as? Int == 42)
                let origin = try await browser.run("return document.getElementById('run-origin').textContent;") as? String
                #expect(origin == ProcessInfo.processInfo.hostName + ":" + workspace.path("sequencer.yml"), "\(origin ?? "none")")
                #expect(try await browser.run("return \(Self.statusOf("broken"));") as? String == "failed")
                await blocking { submitter.waitUntilExit() }
                #expect(submitter.terminationStatus == 1)

                // The runs table and the failed job's page, as the command line reads the queue.
                let runs = try await workspace.sequencer("runs", "--queue", queue, "--json")
                let listed = try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [[String: Any]]
                try await browser.go(served.base + "/runs")
                let rows = try await browser.run("""
                    return [...document.querySelectorAll('#runs tbody tr')].map(r => [Number(r.dataset.run), r.dataset.state]);
                    """) as? [[Any]]
                #expect(rows?.map { "\($0[0])/\($0[1])" } == listed?.map { "\($0["id"] ?? "")/\($0["state"] ?? "")" })
                let shown = try await workspace.sequencer("show", "1", "--queue", queue, "--json")
                let document = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
                let broken = (document?["jobs"] as? [[String: Any]])?.first { $0["name"] as? String == "broken" }
                let output = try await workspace.sequencer("show", "1", "--queue", queue, "--output", "broken")
                try await browser.go(served.base + "/runs/1/job?name=broken")
                let page = try #require(try await browser.run("""
                    return { worker: document.querySelector('#attempts td.worker').textContent,
                             log: document.querySelector('pre.log').textContent,
                             red: document.querySelector('pre.log .fg1').textContent,
                             raw: document.querySelector('a.raw').getAttribute('href'),
                             why: document.getElementById('job-why') !== null };
                    """) as? [String: Any])
                #expect(page["worker"] as? String == broken?["worker"] as? String)
                #expect(page["log"] as? String == "broken fails\n")
                #expect(page["red"] as? String == "broken")
                #expect(page["why"] as? Bool == false)  // a queue keeps no reasons
                let raw = try #require(page["raw"] as? String)
                let bytes = try await browser.run("""
                    return await fetch(arguments[0]).then(r => r.arrayBuffer()).then(b => Array.from(new Uint8Array(b)));
                    """.asyncScript, [raw]) as? [Int]
                #expect(bytes.map { Data($0.map(UInt8.init)) } == Data(output.stdout.utf8))

                // A second run, cancelled from its page: the queue cancels it, the worker stops it.
                try workspace.write("sequencer.yml", """
                    version: 1
                    jobs:
                      wait:
                        run: cat gate2 > /dev/null
                      after:
                        needs: [wait]
                        run: echo never

                    """)
                let second = try workspace.start("run", "--queue", queue)
                defer { if second.isRunning { kill(second.processIdentifier, SIGKILL) } }
                try await browser.open(served.base + "/runs/2", until: """
                    return document.getElementById('cancel-form') !== null && \(Self.statusOf("wait")) === 'running';
                    """)
                try await screenshot(browser, "run-queue")
                try await browser.run("document.getElementById('cancel-form').submit();")
                try await browser.wait(for: "the run to show as cancelled", until: """
                    const head = document.getElementById('run-head');
                    return document.body.dataset.page === 'run' && head !== null && head.dataset.state === 'cancelled'
                      && document.getElementById('graph').dataset.ready === 'true';
                    """)
                let after = try await browser.run("return \(Self.statusOf("after"));") as? String
                #expect(after == "cancelled", "after: \(after ?? "none")")
                await blocking { second.waitUntilExit() }
                #expect(second.terminationStatus != 0)
            }
            kill(worker.processIdentifier, SIGINT)
            await blocking { worker.waitUntilExit() }
            #expect(worker.terminationStatus == 130)
        }
    }

    /// A script expression: the status the graph shows for the job named `name` (found by its
    /// row in the jobs table), or null.
    static func statusOf(_ name: String) -> String {
        """
        (() => { const row = [...document.querySelectorAll('#jobs tbody tr')].find(r => r.querySelector('a').textContent === '\(name)');
          const node = row ? document.querySelector('#graph #job-' + row.dataset.job) : null;
          return node ? node.dataset.status : null; })()
        """
    }

    func withQueue(_ kind: String, in workspace: Workspace, _ body: (String) async throws -> Void) async throws {
        if kind == "postgres" {
            try await TestServer.withDatabase { try await body($0) }
        } else {
            try await body(workspace.path("queue.sqlite"))
        }
    }
}
