import Foundation
import SequencerTestHelpers
import Testing

/// `sequencer-serve --cache` (what `sequencer cache serve` runs): a directory cache over HTTP,
/// used by `sequencer run --cache http://…` from two checkouts, through the built binaries.
@Suite(.suiteTimeLimit) struct CacheServeTests {
    @Test func twoCheckoutsShareACacheOverHTTP() async throws {
        let files = try TemporaryDirectory()
        let served = try await Served(arguments: ["--cache", files.file("served-cache")])
        defer { served.stop() }
        var results: [(status: Int32, stdout: String, stderr: String)] = []
        for name in ["ada", "bob"] {
            let checkout = URL(fileURLWithPath: files.file(name))
            try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
            try "version: 1\njobs:\n  make: { run: echo made > made.txt && echo said, inputs: [in.txt], outputs: [made.txt] }\n"
                .write(to: checkout.appendingPathComponent("sequencer.yml"), atomically: true, encoding: .utf8)
            try "in\n".write(to: checkout.appendingPathComponent("in.txt"), atomically: true, encoding: .utf8)
            results.append(try await Served.sequencer(["run", "--cache", served.base + "/"], in: checkout))
        }
        #expect(results[0].status == 0 && results[0].stdout.contains("cache: 0 hits, 1 miss; 1 stored"), "\(results[0])")
        #expect(results[1].status == 0 && results[1].stdout.contains("cache: 1 hit, 0 misses"), "\(results[1])")
        #expect(results[1].stdout.contains("said"), "what the job printed comes back with it")
        #expect(try String(contentsOfFile: files.file("bob/made.txt"), encoding: .utf8) == "made\n")
        // What was put is in the served directory: one entry, its blobs.
        let entries = FileManager.default.enumerator(atPath: files.file("served-cache/ac-remote"))?.allObjects.count ?? 0
        #expect(entries >= 2, "a directory and an entry")
    }
}
