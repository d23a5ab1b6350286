import Foundation
import Testing

/// Jobs restored from the shared output cache, as the journal, `show` and the page mark them.
extension BrowserTests {
    /// A second checkout restores both cached jobs of the first's run: `show` says `restored` for
    /// them and gives their keys in JSON; the run page badges their rows, and a job's page says
    /// which key it came from. The job the cache does not hold (no outputs) shows as it ran.
    @Test func jobsRestoredFromTheCacheAreMarkedInShowAndOnThePage() async throws {
        let cache = try Workspace()
        let workflow = """
            version: 1
            jobs:
              upper:
                run: tr a-z A-Z < words.txt > upper.txt
                inputs: [words.txt]
                outputs: [upper.txt]
              count:
                needs: [upper]
                run: wc -c < upper.txt > count.txt
                inputs: [upper.txt]
                outputs: [count.txt]
              say:
                needs: [count]
                run: cat count.txt

            """
        var checkouts: [Workspace] = []
        for _ in 0..<2 {
            let checkout = try Workspace()
            try checkout.write("sequencer.yml", workflow)
            try checkout.write("words.txt", "some words\n")
            let ran = try await checkout.sequencer("run", "--cache", cache.path("store"))
            #expect(ran.status == 0, "\(ran.stderr)")
            checkouts.append(checkout)
        }
        let second = checkouts[1]
        #expect(try String(contentsOfFile: second.path("count.txt"), encoding: .utf8).contains("11"))

        let shown = try await second.sequencer("show", "last")
        let rows = Dictionary(shown.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 1 ? (String(fields[0]), String(fields[1])) : nil
        }) { first, _ in first }
        #expect(rows["upper"] == "restored" && rows["count"] == "restored" && rows["say"] == "succeeded", "\(shown.stdout)")
        #expect(shown.stdout.contains("(restored from the cache: 2 of the succeeded)"), "\(shown.stdout)")
        let json = try await second.sequencer("show", "last", "--json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let jobs = try #require(document["jobs"] as? [[String: Any]])
        var keys: [String: String] = [:]
        for job in jobs { if let key = job["restoredFrom"] as? String { keys[job["name"] as? String ?? ""] = key } }
        #expect(Set(keys.keys) == ["upper", "count"], "\(json.stdout)")
        // The first checkout's run stored them: nothing of it was restored.
        let first = try await checkouts[0].sequencer("show", "last", "--json")
        #expect(!first.stdout.contains("restoredFrom"), "\(first.stdout)")

        try await withPage(journal: second.journal) { browser, served in
            try await browser.go(served.base + "/runs/1")
            try await browser.wait(for: "the jobs table", until: "return document.querySelectorAll('#jobs tbody tr').length === 3;")
            let badges = try #require(try await browser.run("""
                const shown = {};
                for (const row of document.querySelectorAll('#jobs tbody tr')) {
                  const badge = row.querySelector('.badge.restored');
                  shown[row.querySelector('a').textContent] = badge ? badge.title : null;
                }
                return shown;
                """) as? [String: Any])
            for name in ["upper", "count"] {
                let title = badges[name] as? String
                #expect(title?.contains("key \(keys[name] ?? "?")") == true, "\(name): \(badges)")
            }
            #expect(badges["say"] is NSNull, "\(badges)")

            try await browser.go(served.base + "/runs/1/job?name=upper")
            let said = try await browser.run("""
                const restored = document.getElementById('job-restored');
                return restored ? restored.textContent : null;
                """) as? String
            #expect(said?.contains("Restored from the shared output cache (key \(keys["upper"] ?? "?"))") == true, "\(said ?? "none")")
            try await browser.go(served.base + "/runs/1/job?name=say")
            #expect(try await browser.run("return document.getElementById('job-restored') === null;") as? Bool == true)
        }
    }
}
