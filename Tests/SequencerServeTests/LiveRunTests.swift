import Foundation
import Testing

extension BrowserTests {
    /// A run followed live: the page opened while a job waits on a gate (a FIFO the test opens
    /// when it chooses) shows it running; when the gate opens, the same page, never
    /// reloaded, shows it succeeded, the run's end, and the job after it on the timeline.
    @Test func aRunningJobTurnsSucceededOnAnOpenPage() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", """
            version: 1
            jobs:
              first:
                run: echo one
              slow:
                needs: [first]
                run: cat gate > /dev/null; echo through
              last:
                needs: [slow]
                run: echo end

            """)
        let gate = workspace.path("gate")
        #expect(mkfifo(gate, 0o600) == 0)
        let run = try await workspace.startRun()
        defer {
            if run.isRunning { kill(run.processIdentifier, SIGKILL) }
        }
        #expect(FileManager.default.fileExists(atPath: workspace.journal))

        try await withPage(journal: workspace.journal) { browser, served in
            var open = false
            for _ in 0..<100 where !open {
                try await browser.go(served.base + "/runs/1")
                open = try await browser.run("return document.body.dataset.page === 'run';") as? Bool ?? false
                if !open { try await Task.sleep(for: .milliseconds(100)) }
            }
            try await browser.wait(for: "'slow' to show as running", until: """
                const node = document.querySelector('#graph #job-1');
                return document.getElementById('graph').dataset.ready === 'true' && node !== null && node.dataset.status === 'running';
                """)
            try await browser.run("window.sameDocument = 42;")
            // The running job is on the timeline, its bar growing from when it started.
            try await browser.wait(for: "the running bar", until: "return document.querySelector('#timeline .bar.running[data-job=\"1\"]') !== null;")
            #expect(try await browser.run("return document.getElementById('run-head').dataset.state;") as? String == "running")
            try await screenshot(browser, "run-live")

            // Open the gate: `cat` reads end of file, and `slow` ends.
            let opened = await blocking { () -> Bool in
                let descriptor = Foundation.open(gate, O_WRONLY)
                guard descriptor >= 0 else { return false }
                close(descriptor)
                return true
            }
            #expect(opened)
            try await browser.wait(for: "'slow' to show as succeeded and the run as ended", until: """
                const node = document.querySelector('#graph #job-1');
                return node !== null && node.dataset.status === 'succeeded'
                  && document.getElementById('run-head').dataset.state === 'succeeded';
                """)
            let page = try await browser.run("""
                return { same: window.sameDocument,
                         last: document.querySelector('#graph #job-2').dataset.status,
                         bars: [...document.querySelectorAll('#timeline .bar[data-job]')].map(b => Number(b.dataset.job)).sort() };
                """) as? [String: Any]
            #expect(page?["same"] as? Int == 42)
            #expect(page?["last"] as? String == "succeeded")
            #expect(page?["bars"] as? [Int] == [0, 1, 2])
        }
        await blocking { run.waitUntilExit() }
        #expect(run.terminationStatus == 0)
    }

    /// Cancelling from the page: the run's `sequencer` gets SIGINT, as from Ctrl-C, its
    /// waiting job is stopped, and the open page shows the run cancelled. Drawn without
    /// Graphviz, which the page does not need.
    @Test func theCancelButtonStopsARunningRun() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", """
            version: 1
            jobs:
              wait:
                run: cat gate > /dev/null
              after:
                needs: [wait]
                run: echo never

            """)
        #expect(mkfifo(workspace.path("gate"), 0o600) == 0)
        let run = try await workspace.startRun()
        defer {
            if run.isRunning { kill(run.processIdentifier, SIGKILL) }
        }
        try await withPage(journal: workspace.journal, serveArguments: ["--no-graphviz"]) { browser, served in
            var running = false
            for _ in 0..<100 where !running {
                try await browser.go(served.base + "/runs/1")
                running = try await browser.run("""
                    const node = document.querySelector('#graph #job-0');
                    return document.getElementById('cancel-form') !== null && node !== null && node.dataset.status === 'running';
                    """) as? Bool ?? false
                if !running { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(running)
            #expect(try await browser.run("return document.getElementById('graph').dataset.layout;") as? String == "plain")
            // Drawn without Graphviz, the one need is still an edge.
            #expect(try await browser.run("return [...document.querySelectorAll('#graph .edge')].map(e => e.id);") as? [String] == ["edge-0-1"])
            try await screenshot(browser, "run-without-graphviz")
            try await browser.run("document.getElementById('cancel-form').submit();")
            try await browser.wait(for: "the run to show as cancelled", until: """
                const head = document.getElementById('run-head');
                return document.body.dataset.page === 'run' && head !== null && head.dataset.state !== 'running';
                """)
            let state = try await browser.run("return document.getElementById('run-head').dataset.state;") as? String
            #expect(state == "cancelled")
        }
        await blocking { run.waitUntilExit() }
        #expect(run.terminationStatus == 130)
    }
}
