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
            builder.add(graph.nodes[Int(input)].path)
            builder.add(digest(of: input))
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

    /// The fingerprint's parts, by name (`command`, `input PATH`, `discovered PATH` or one
    /// `discovered` for more than ``namedDiscoveredInputs``, `output PATH`), each a short digest: the journal keeps them with each success, so that the next
    /// change can be told part by part (``explain(_:before:)``).
    func parts(_ edgeID: NinjaGraph.EdgeID, facts: EdgeFacts, discovered: [String]) -> [String: String] {
        let edge = graph.edges[Int(edgeID)]
        var parts: [String: String] = [:]
        if !facts.generator { parts["command"] = Digest.of(facts.commandForHash.utf8).short }
        for input in edge.dirtyingInputs { parts["input " + graph.nodes[Int(input)].path] = digest(of: input).short }
        if discovered.count <= Self.namedDiscoveredInputs {
            for path in discovered { parts["discovered " + path] = hashes.digest(path).short }
        } else {
            // A compile's depfile lists hundreds of headers: one part for them all keeps the
            // journal small (a changed one is then not named).
            var builder = DigestBuilder()
            for path in discovered {
                builder.add(path)
                builder.add(hashes.digest(path))
            }
            parts["discovered"] = "\(discovered.count) " + builder.finish().short
        }
        for output in edge.outputs {
            let path = graph.nodes[Int(output)].path
            parts["output " + path] = hashes.digest(path).short
        }
        return parts
    }

    /// The most inputs an edge's depfile lists whose parts are kept one by one.
    static let namedDiscoveredInputs = 16

    /// Why an edge runs, part by part: `input a.c changed`, `the command changed`; nil when
    /// the parts are the same.
    static func explain(_ now: [String: String], before: [String: String]) -> String? {
        var reasons: [String] = []
        if now["command"] != before["command"] { reasons.append("the command changed") }
        if let discovered = now["discovered"], discovered != before["discovered"] {
            let count = discovered.split(separator: " ").first ?? "its"
            reasons.append("an input its depfile lists changed (of \(count))")
        }
        for key in Set(now.keys).union(before.keys).sorted() where key != "command" && now[key] != before[key] {
            guard let space = key.firstIndex(of: " ") else { continue }
            let (kind, path) = (key[..<space], key[key.index(after: space)...])
            let noun = kind == "discovered" ? "input \(path) (from its depfile)" : "\(kind) \(path)"
            switch (now[key], before[key]) {
            case (nil, _): reasons.append("\(noun) is gone from the edge")
            case (_, nil): reasons.append("\(noun) is new")
            default: reasons.append(kind == "output" ? "\(noun) changed since it was built" : "\(noun) changed")
            }
        }
        guard !reasons.isEmpty else { return nil }
        let shown = reasons.prefix(3).joined(separator: "; ")
        return reasons.count > 3 ? shown + "; and \(reasons.count - 3) more" : shown
    }

    /// A node's content: its file's, or, for the output of a phony edge with inputs, its
    /// inputs' contents (a phony is an alias: what reads it reads them).
    func digest(of node: NinjaGraph.NodeID) -> Digest {
        var visiting = Set<NinjaGraph.NodeID>()
        return digest(of: node, visiting: &visiting)
    }

    private func digest(of node: NinjaGraph.NodeID, visiting: inout Set<NinjaGraph.NodeID>) -> Digest {
        let path = graph.nodes[Int(node)].path
        guard let producer = graph.nodes[Int(node)].inEdge, graph.edges[Int(producer)].isPhony,
            !graph.edges[Int(producer)].dirtyingInputs.isEmpty, visiting.insert(node).inserted
        else { return hashes.digest(path) }
        defer { visiting.remove(node) }
        var builder = DigestBuilder()
        builder.add("phony")
        for input in graph.edges[Int(producer)].dirtyingInputs {
            builder.add(graph.nodes[Int(input)].path)
            builder.add(digest(of: input, visiting: &visiting))
        }
        return builder.finish()
    }
}
