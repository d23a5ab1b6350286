import Foundation
import Testing

extension BrowserTests {
    /// POSTs without the page's token, or with another, change nothing; with it, a failed
    /// run's preview lists what would run, and confirming resumes it to success.
    @Test func actionsNeedTheTokenAndResumeRunsWhatThePreviewListed() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", Self.smallWorkflow)
        try workspace.write("fail", "")
        #expect(try await workspace.sequencer("run").status == 1)
        try FileManager.default.removeItem(atPath: workspace.path("fail"))
        let before = try await workspace.sequencer("show", "1", "--json")
        let beforeJobs = try #require((try JSONSerialization.jsonObject(with: Data(before.stdout.utf8)) as? [String: Any])?["jobs"] as? [[String: Any]])
        let notDone = ["setup", "fetch-a", "fetch-b", "check", "build"].filter { name in
            let status = beforeJobs.first { $0["name"] as? String == name }?["status"] as? String
            return status != "succeeded" && status != "upToDate"
        }
        #expect(notDone.contains("check") && notDone.contains("build") && !notDone.contains("setup"))

        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs/1")
            let refused = try await browser.run("""
                const post = (body, headers) => fetch('/runs/1/resume', { method: 'POST', body: body, redirect: 'manual',
                  headers: Object.assign({ 'Content-Type': 'application/x-www-form-urlencoded' }, headers || {}) }).then(r => r.status);
                return Promise.all([post(''), post('token=wrong'), post('', { 'X-Sequencer-Token': 'wrong' }),
                                    fetch('/runs/1/cancel', { method: 'POST', body: '' }).then(r => r.status)]);
                """.replacingOccurrences(of: "return Promise.all", with: "return await Promise.all").asyncScript)
            #expect(refused as? [Int] == [403, 403, 403, 403])
            // Nothing ran: still one session, still failed.
            #expect(try await browser.run("return document.getElementById('run-head').dataset.state;") as? String == "failed")

            try await browser.run("document.getElementById('resume-link').click();")
            try await browser.wait(for: "the preview", until: "return document.body.dataset.page === 'resume';")
            let listed = try await browser.run("return [...document.querySelectorAll('#resume-jobs li')].map(li => li.dataset.job);") as? [String]
            #expect(listed == notDone)
            try await screenshot(browser, "resume")
            try await browser.run("document.getElementById('resume-form').submit();")
            try await browser.wait(for: "the resumed run to succeed", limit: .seconds(60), until: """
                return document.body.dataset.page === 'run' && document.getElementById('run-head').dataset.state === 'succeeded';
                """)
        }
        let shown = try await workspace.sequencer("show", "1", "--json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let run = try #require(document["run"] as? [String: Any])
        #expect(run["state"] as? String == "succeeded")
        #expect(run["sessions"] as? Int == 2)
    }

    /// A check of a file with a cycle shows the cycle's message, its edges marked on a
    /// graph, and the YAML lines of each need.
    @Test func aCycleIsDrawnWithItsEdgesMarked() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", NewFileTests.cycle)
        let checked = try await workspace.sequencer("check")
        #expect(checked.status == 2)
        let message = try #require(checked.stderr.split(separator: "\n").first { $0.contains("dependency cycle") })

        try FileManager.default.createDirectory(atPath: workspace.path(".sequencer"), withIntermediateDirectories: true)
        _ = try await workspace.recordLibraryRun(workflow: workspace.path("sequencer.yml"), jobs: [("x", [])])
        try await withPage(journal: workspace.journal, serveArguments: ["-f", workspace.path("sequencer.yml")]) { browser, served in
            try await browser.go(served.base + "/workflow")
            let page = try #require(try await browser.run("""
                return { line: document.querySelector('.cycle-line').textContent,
                         edges: document.querySelectorAll('.cycle-graph .cycle-edge').length,
                         jobs: [...document.querySelectorAll('.cycle-graph .cycle-job')].map(n => (n.querySelector('text') || n).textContent.trim()),
                         messages: [...document.querySelectorAll('.diagnostic .message')].map(m => m.textContent),
                         quoted: [...document.querySelectorAll('pre.yaml .at')].map(l => l.textContent) };
                """) as? [String: Any])
            #expect(page["line"] as? String == "a -> c -> b -> a")
            #expect(message.hasSuffix("dependency cycle: a -> c -> b -> a"))
            #expect(page["edges"] as? Int == 3)
            #expect(Set(page["jobs"] as? [String] ?? []).isSuperset(of: ["a", "b", "c"]))
            let messages = page["messages"] as? [String] ?? []
            #expect(messages.first?.hasSuffix("error: dependency cycle: a -> c -> b -> a") == true)
            #expect(messages.filter { $0.contains("note: ") }.count == 3)
            let quoted = page["quoted"] as? [String] ?? []
            #expect(quoted.contains { $0.contains("needs: [c]") } && quoted.contains { $0.contains("needs: [b]") } && quoted.contains { $0.contains("needs: [a]") })
            try await screenshot(browser, "workflow-cycle")
        }
    }

    /// A job's page: its command, attempts, its output with colours as classes, a search
    /// that marks matches, and the raw log byte for byte.
    @Test func aJobsPageShowsItsOutputInColourAndTheRawLog() async throws {
        let workspace = try Workspace()
        try workspace.write("sequencer.yml", Self.smallWorkflow)
        #expect(try await workspace.sequencer("run").status == 0)
        let output = try await workspace.sequencer("show", "1", "--output", "fetch-a")
        #expect(output.stdout.contains("\u{1B}[32mfetched"))

        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs/1/job?name=fetch-a")
            let page = try #require(try await browser.run("""
                return { command: document.getElementById('job-command').textContent,
                         green: document.querySelector('pre.log .fg2').textContent,
                         red: document.querySelector('pre.log .fg1.b').textContent,
                         log: document.querySelector('pre.log').textContent,
                         raw: document.querySelector('a.raw').getAttribute('href') };
                """) as? [String: Any])
            #expect((page["command"] as? String)?.hasPrefix("printf") == true)
            #expect(page["green"] as? String == "fetched")
            #expect(page["red"] as? String == "one warning")
            #expect(page["log"] as? String == "fetched a, one warning\n")
            try await browser.run("""
                const input = document.querySelector('.output-search');
                input.value = 'warn';
                input.dispatchEvent(new Event('input'));
                """)
            #expect(try await browser.run("return [...document.querySelectorAll('pre.log mark')].map(m => m.textContent);") as? [String] == ["warn"])
            try await screenshot(browser, "job")
            // The download, fetched by the page: the bytes as the command wrote them.
            let raw = try #require(page["raw"] as? String)
            let bytes = try await browser.run("""
                return await fetch(arguments[0]).then(r => r.arrayBuffer()).then(b => Array.from(new Uint8Array(b)));
                """.asyncScript, [raw]) as? [Int]
            #expect(bytes.map { Data($0.map(UInt8.init)) } == Data(output.stdout.utf8))
        }
    }
}

extension String {
    /// A WebDriver script body that awaits: wrapped in an async function whose promise the
    /// driver waits for.
    var asyncScript: String { "return (async () => { \(self) })();" }
}

extension BrowserTests {
    /// Two runs compared: the jobs whose status changed are listed, each with its times over
    /// the file's last runs; a job's page has the same history.
    @Test func comparingRunsListsWhatChangedWithItsHistory() async throws {
        let workspace = try await Self.threeRuns(lastArguments: ["run", "--force"])

        try await withPage(journal: workspace.journal) { browser, served in
            try await browser.go(served.base + "/runs/3")
            try await browser.run("document.getElementById('compare-link').click();")
            try await browser.wait(for: "the comparison", until: "return document.body.dataset.page === 'compare';")
            let page = try #require(try await browser.run("""
                const rows = [...document.querySelectorAll('#compare tbody tr')];
                const row = rows.find(r => r.dataset.job === 'check');
                return { url: location.pathname + location.search, differs: rows.map(r => r.dataset.job),
                         history: row ? [...row.querySelectorAll('.spark a')].map(a => a.className.split(' ')[1]) : [] };
                """) as? [String: Any])
            #expect(page["url"] as? String == "/compare?a=2&b=3")
            let differs = page["differs"] as? [String] ?? []
            // `setup` is the same in both runs but for its time, which a loaded machine can
            // stretch past the threshold (JobDifferenceTests pins the rule itself).
            #expect(differs.contains("check") && differs.contains("build"))
            #expect(page["history"] as? [String] == ["st-succeeded", "st-failed", "st-succeeded"])

            try await browser.go(served.base + "/runs/3/job?name=check")
            #expect(try await browser.run("return document.querySelectorAll('#job-history .spark a').length;") as? Int == 3)
        }
    }
}

extension BrowserTests {
    /// A job's page says why it ran in the words `run --explain` printed for it, and that an
    /// up-to-date job did not run.
    @Test func aJobsPageSaysWhyItRanInExplainsWords() async throws {
        let workspace = try Workspace()
        try workspace.write("src.txt", "one\n")
        try workspace.write("sequencer.yml", """
            jobs:
              gen:
                run: cat src.txt > gen.txt
                inputs: [src.txt]
                outputs: [gen.txt]
              use:
                needs: [gen]
                run: cat gen.txt > use.txt
                outputs: [use.txt]
              stamp:
                run: echo stamped

            """)
        #expect(try await workspace.sequencer("run").status == 0)
        try workspace.write("src.txt", "two\n")
        let explained = try await workspace.sequencer("run", "--explain")
        let lines = explained.stdout.split(separator: "\n").filter { $0.hasPrefix("explain: ") }
        #expect(lines.count == 3, "\(explained.stdout)")
        #expect(try await workspace.sequencer("run").status == 0)  // #3: gen and use up to date

        try await withPage(journal: workspace.journal) { browser, served in
            for line in lines {
                // explain: NAME runs: REASON
                let rest = line.dropFirst("explain: ".count)
                let name = String(rest.prefix { $0 != " " })
                let reason = String(rest.dropFirst(name.count + " runs: ".count))
                try await browser.go(served.base + "/runs/2/job?name=\(name)")
                #expect(try await browser.run("return document.getElementById('job-reason').textContent;") as? String == reason)
            }
            try await browser.go(served.base + "/runs/3/job?name=gen")
            let page = try #require(try await browser.run("""
                return { why: document.getElementById('job-why').textContent,
                         reason: document.getElementById('job-reason') !== null };
                """) as? [String: Any])
            #expect((page["why"] as? String)?.hasPrefix("It was up to date, so it did not run") == true)
            #expect(page["reason"] as? Bool == false)

            // Compared, runs 1 and 2 differ in gen's and use's fingerprints (the input changed),
            // not in stamp's; each says why it ran in run 2, in the same words.
            try await browser.go(served.base + "/compare?a=1&b=2&all=1")
            let rows = try #require(try await browser.run("""
                const rows = {};
                document.querySelectorAll('#compare tbody tr').forEach(r => {
                  rows[r.dataset.job] = { fingerprint: r.querySelector('.fingerprint').textContent,
                                          reason: r.querySelector('.reason').textContent, differs: r.classList.contains('differs') };
                });
                return rows;
                """) as? [String: [String: Any]])
            for line in lines {
                let rest = line.dropFirst("explain: ".count)
                let name = String(rest.prefix { $0 != " " })
                #expect(rows[name]?["reason"] as? String == String(rest.dropFirst(name.count + " runs: ".count)))
            }
            #expect(rows["gen"]?["fingerprint"] as? String == "changed" && rows["gen"]?["differs"] as? Bool == true)
            #expect(rows["use"]?["fingerprint"] as? String == "changed" && rows["use"]?["differs"] as? Bool == true)
            #expect(rows["stamp"]?["fingerprint"] as? String == "same")
            try await screenshot(browser, "compare")
            try await browser.go(served.base + "/compare?a=2&b=3&all=1")
            #expect(try await browser.run("""
                return [...document.querySelectorAll('#compare tbody tr .fingerprint')].map(c => c.textContent);
                """) as? [String] == ["same", "same", "same"])

            // The file changes (use no longer needs gen; gen's command is another): run 2 is
            // still drawn as it ran, from the graph it recorded.
            try workspace.write("sequencer.yml", """
                jobs:
                  gen:
                    run: echo other > gen.txt
                    outputs: [gen.txt]
                  use:
                    run: echo alone > use.txt
                    outputs: [use.txt]

                """)
            try await browser.go(served.base + "/runs/2/job?name=use")
            let use = try #require(try await browser.run("""
                const needs = [...document.querySelectorAll('dl.facts dt')].find(d => d.textContent === 'Needs');
                return { needs: needs.nextElementSibling.textContent, command: document.getElementById('job-command').textContent,
                         note: document.querySelector('#job-command').previousElementSibling.textContent };
                """) as? [String: String])
            #expect(use == ["needs": "gen", "command": "cat gen.txt > use.txt", "note": "As the run recorded it."])
            try await browser.go(served.base + "/runs/2")
            try await browser.wait(for: "the graph", until: "return document.getElementById('graph').dataset.ready === 'true';")
            #expect(try await browser.run("return document.querySelectorAll('#graph .edge').length;") as? Int == 1)
        }
    }
}
