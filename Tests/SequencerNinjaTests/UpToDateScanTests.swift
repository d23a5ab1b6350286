import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@testable import SequencerNinja

/// ``UpToDateScan``'s verdicts, edge by edge, on real files (absolute paths in a temporary
/// directory) and fingerprints recorded as a build would have.
@Suite struct UpToDateScanTests {
    let files: TemporaryDirectory
    var directory: String { files.path }

    init() throws {
        files = try TemporaryDirectory(prefix: "scan")
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
    }

    /// The manifest with `$d` standing for the directory.
    func graph(_ text: String) throws -> NinjaGraph {
        try ManifestParser.parse("rule cat\n  command = cat $in > $out\n" + text.replacingOccurrences(of: "$d", with: directory))
    }

    func edge(_ graph: NinjaGraph, _ output: String) throws -> NinjaGraph.EdgeID {
        try #require(graph.node(at: directory + "/" + output).flatMap { graph.nodes[Int($0)].inEdge })
    }

    /// Scans for `target`; `recorded` gives each edge's fingerprint at its last success (by
    /// first output's name), `record` takes them as they are now.
    func scan(
        _ graph: NinjaGraph, _ target: String, recorded: [String: Digest] = [:], recordAll: Bool = false
    ) throws -> (UpToDateScan, BuildStateStore) {
        let hashes = BuildStateStore(state: BuildState(), writer: nil)
        let plan = try BuildPlan(graph: graph, targets: [try #require(graph.node(at: directory + "/" + target))])
        let fingerprint = EdgeFingerprint(graph: graph, hashes: hashes)
        let facts = { (edge: NinjaGraph.EdgeID) in (try? EdgeEvaluation.facts(of: edge, in: graph)) ?? EdgeFacts(command: "") }
        let name = { (edge: NinjaGraph.EdgeID) in
            String(graph.nodes[Int(graph.edges[Int(edge)].outputs[0])].path.dropFirst(directory.count + 1))
        }
        let scan = try UpToDateScan(
            graph: graph, plan: plan, fingerprint: fingerprint, facts: facts, discovered: { _ in [] },
            recorded: { edge in recordAll ? fingerprint.current(edge, facts: facts(edge), discovered: []) : recorded[name(edge)] })
        return (scan, hashes)
    }

    @Test func aMissingOutputIsDirty() throws {
        try write("in", "i\n")
        let graph = try graph("build $d/out: cat $d/in\n")
        let (scan, _) = try scan(graph, "out")
        #expect(scan.verdicts[Int(try edge(graph, "out"))] == .dirty("output \(directory)/out doesn't exist"))
    }

    @Test func theSameFingerprintIsCleanAndAnotherIsDirty() throws {
        try write("in", "i\n")
        try write("out", "i\n")
        let graph = try graph("build $d/out: cat $d/in\n")
        let (clean, _) = try scan(graph, "out", recordAll: true)
        #expect(clean.verdicts[Int(try edge(graph, "out"))] == .clean)
        let (changed, _) = try scan(graph, "out", recorded: ["out": .failed])
        #expect(changed.verdicts[Int(try edge(graph, "out"))] == .dirty(UpToDateScan.changed(directory + "/out")))
        let (never, _) = try scan(graph, "out")
        #expect(never.verdicts[Int(try edge(graph, "out"))] == .dirty("no record of a successful run of \(directory)/out"))
    }

    @Test func anEdgeBehindADirtyOneWaitsAndCounts() throws {
        try write("in", "i\n")
        try write("mid", "i\n")
        try write("out", "i\n")
        let graph = try graph("build $d/mid: cat $d/in\nbuild $d/out: cat $d/mid\n")
        let (scan, _) = try scan(graph, "out")
        #expect(scan.verdicts[Int(try edge(graph, "mid"))] == .dirty("no record of a successful run of \(directory)/mid"))
        #expect(scan.verdicts[Int(try edge(graph, "out"))] == .waiting("\(directory)/mid is dirty"))
        #expect(scan.counts(try edge(graph, "out")))
        #expect(scan.isScheduled(try edge(graph, "out")))
    }

    @Test func anUpToDateEdgeThatOrdersAfterADirtyOnePassesThrough() throws {
        try write("in", "i\n")
        try write("first", "i\n")
        try write("out", "i\n")
        let graph = try graph("build $d/first: cat $d/in\nbuild $d/out: cat $d/in || $d/first\n")
        let fingerprints = try scan(graph, "out", recordAll: true).0
        #expect(fingerprints.verdicts[Int(try edge(graph, "out"))] == .clean)
        try write("in", "changed\n")
        // Recorded as before the edit: both edges' fingerprints change, but only `first` is
        // told so here (`out` keeps its own by being recorded now).
        let hashes = BuildStateStore(state: BuildState(), writer: nil)
        let now = EdgeFingerprint(graph: graph, hashes: hashes).current(try edge(graph, "out"), facts: EdgeFacts(command: "cat \(directory)/in > \(directory)/out"), discovered: [])
        let (scan, _) = try scan(graph, "out", recorded: ["out": try #require(now)])
        #expect(scan.verdicts[Int(try edge(graph, "first"))] == .dirty("no record of a successful run of \(directory)/first"))
        #expect(scan.verdicts[Int(try edge(graph, "out"))] == .passThrough)
        #expect(!scan.counts(try edge(graph, "out")))
    }

    @Test func aMissingPhonyOutputWithoutInputsForcesItsReaders() throws {
        try write("in", "i\n")
        try write("out", "i\n")
        let graph = try graph("build $d/always: phony\nbuild $d/out: cat $d/in | $d/always\n")
        let (scan, _) = try scan(graph, "out", recordAll: true)
        #expect(scan.verdicts[Int(try edge(graph, "out"))] == .dirty("an input is a missing phony output with no inputs"))
        #expect(scan.forced[Int(try edge(graph, "out"))])
    }

    @Test func aMissingSourceIsNamedWithWhatNeedsIt() throws {
        let graph = try graph("build $d/out: cat $d/gone\n")
        #expect(throws: UpToDateScan.MissingInput.self) { try scan(graph, "out") }
        do {
            _ = try scan(graph, "out")
        } catch let error as UpToDateScan.MissingInput {
            #expect(error.message == "'\(directory)/gone', needed by '\(directory)/out', missing and no known rule to make it")
        }
    }
}
