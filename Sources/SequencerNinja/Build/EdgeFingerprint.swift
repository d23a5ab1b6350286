/// An edge's fingerprint: its command (unless it is a generator: ninja never reruns those for
/// their command), the contents of its explicit and implicit inputs and of the inputs its last
/// run discovered (depfile, deps log), and the contents of its outputs. Equal fingerprints
/// mean the edge would write what it wrote.
struct EdgeFingerprint {
    let graph: NinjaGraph
    let hashes: BuildStateStore

    /// The fingerprint now, or nil when an output is missing (the edge must run).
    func current(_ edgeID: NinjaGraph.EdgeID, facts: EdgeFacts, discovered: [String]) -> Digest? {
        let edge = graph.edges[Int(edgeID)]
        var builder = DigestBuilder()
        builder.add(facts.generator ? "" : facts.commandForHash)
        for input in edge.dirtyingInputs {
            let path = graph.nodes[Int(input)].path
            builder.add(path)
            builder.add(hashes.digest(path))
        }
        builder.add(UInt64(discovered.count))
        for path in discovered {
            builder.add(path)
            builder.add(hashes.digest(path))
        }
        for output in edge.outputs {
            let path = graph.nodes[Int(output)].path
            let digest = hashes.digest(path)
            if digest == .missing { return nil }
            builder.add(path)
            builder.add(digest)
        }
        return builder.finish()
    }
}
