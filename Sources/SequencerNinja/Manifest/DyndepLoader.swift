/// What loading a dyndep file changed: for each edge bound to the file, in the order of the
/// file's readers, the implicit inputs and outputs it gained and whether it now restats. A
/// running build adds the new inputs to its plan (ninja's `Plan::DyndepsLoaded`).
public struct DyndepUpdate: Sendable, Equatable {
    /// One edge's additions.
    public struct EdgeChange: Sendable, Equatable {
        public var edge: NinjaGraph.EdgeID
        /// Added to the edge's implicit inputs (before its order-only ones).
        public var newInputs: [NinjaGraph.NodeID]
        /// Added to the edge's implicit outputs.
        public var newOutputs: [NinjaGraph.NodeID]
        /// Whether the file set `restat` (the edge's `restat` now evaluates to `1`).
        public var restat: Bool
    }

    /// Every edge whose `dyndep` is the file, changed or not.
    public var edges: [EdgeChange] = []
}

extension NinjaGraph {
    /// Reads the dyndep file `node` and adds what it says to the edges that name it in their
    /// `dyndep` binding, as ninja's `DyndepLoader` does.
    ///
    /// Every edge bound to the file must be mentioned in it, and every edge it mentions must be
    /// bound to it. A new output that another edge already writes is an error (unless that edge
    /// was made for a depfile's node: `Edge.generatedByDepLoader`, which then loses it). The
    /// node is no longer `dyndepPending`, even if loading fails. On an error the graph may be
    /// partly changed, as ninja leaves it; the build stops.
    ///
    /// - Returns: The edges it changed, and how.
    /// - Throws: `ManifestError`: the file's syntax errors (`FILE:LINE: ...`), `loading 'F': ...`
    ///   when it cannot be read, and the messages of ninja's loader.
    public mutating func load(dyndep node: NodeID, files: any ManifestFiles = DiskManifestFiles()) throws(ManifestError) -> DyndepUpdate {
        nodes[Int(node)].dyndepPending = false
        let path = nodes[Int(node)].path
        let contents: [UInt8]
        do {
            contents = try files.read(path)
        } catch {
            throw ManifestError("loading '\(path)': \(error.reason)")
        }
        var parser = DyndepParser(fileName: path, contents: contents)
        let file = try parser.parse(into: &self)

        var update = DyndepUpdate()
        var used = Set<EdgeID>()
        for edge in nodes[Int(node)].outEdges where edges[Int(edge)].dyndep == node {
            guard let dyndeps = file[edge] else {
                throw ManifestError("'\(firstOutputPath(of: edge))' not mentioned in its dyndep file '\(path)'")
            }
            used.insert(edge)
            try apply(dyndeps, to: edge)
            update.edges.append(
                DyndepUpdate.EdgeChange(
                    edge: edge, newInputs: dyndeps.implicitInputs, newOutputs: dyndeps.implicitOutputs,
                    restat: dyndeps.restat))
        }
        if let unused = file.entries.map(\.edge).filter({ !used.contains($0) }).min() {
            throw ManifestError(
                "dyndep file '\(path)' mentions output '\(firstOutputPath(of: unused))' whose build statement "
                    + "does not have a dyndep binding for the file")
        }
        if let error = file.deferredError { throw error }
        return update
    }

    /// Adds a dyndep file's entry to an edge (ninja's `DyndepLoader::UpdateEdge`).
    private mutating func apply(_ dyndeps: Dyndeps, to edge: EdgeID) throws(ManifestError) {
        let index = Int(edge)
        if dyndeps.restat {
            // ninja adds `restat` to the edge's own scope, and an edge with no variables of its
            // own has none: it then goes into the file's scope.
            if edges[index].bindings.isEmpty {
                scopes[Int(edges[index].scope)].bindings["restat"] = "1"
            } else {
                edges[index].bindings["restat"] = "1"
            }
        }

        edges[index].outputs.append(contentsOf: dyndeps.implicitOutputs)
        edges[index].implicitOutputs += dyndeps.implicitOutputs.count
        for output in dyndeps.implicitOutputs {
            if let previous = nodes[Int(output)].inEdge {
                guard edges[Int(previous)].generatedByDepLoader else {
                    throw ManifestError("multiple rules generate \(nodes[Int(output)].path)")
                }
                edges[Int(previous)].outputs.removeAll()
                edges[Int(previous)].implicitOutputs = 0
            }
            nodes[Int(output)].inEdge = edge
        }

        let insertion = edges[index].inputs.count - edges[index].orderOnlyInputs
        edges[index].inputs.insert(contentsOf: dyndeps.implicitInputs, at: max(0, insertion))
        edges[index].implicitInputs += dyndeps.implicitInputs.count
        for input in dyndeps.implicitInputs {
            nodes[Int(input)].outEdges.append(edge)
        }
    }

    private func firstOutputPath(of edge: EdgeID) -> String {
        edges[Int(edge)].outputs.first.map { nodes[Int($0)].path } ?? ""
    }
}
