/// The edges a build wants, in an order where each comes after the edges that write its inputs:
/// every edge reached from the targets through inputs of any kind, and the validations of
/// those edges, which become targets of their own.
///
/// - Complexity: O(nodes + edges reached), without recursion (a chain of a million edges is
///   fine).
public struct BuildPlan: Sendable {
    public typealias NodeID = NinjaGraph.NodeID
    public typealias EdgeID = NinjaGraph.EdgeID

    /// The wanted edges, inputs' edges first.
    public private(set) var order: [EdgeID] = []
    /// Whether each edge of the graph is wanted.
    public private(set) var wanted: [Bool]
    /// For each wanted edge, the node it was reached through (for "needed by" messages).
    public private(set) var reachedThrough: [NodeID]
    /// The inputs no edge writes, in the order a depth-first walk from the targets reaches
    /// them (once per edge that reads them), each with the node through which that edge was
    /// reached: ninja reports the first missing one, "needed by" that node.
    public private(set) var sources: [(node: NodeID, neededBy: NodeID)] = []

    /// An error that stops the build before it starts.
    public struct Failure: Error, Equatable, Sendable {
        public var message: String
    }

    /// Plans the build of `targets`.
    /// - Parameter discovered: for an edge, the inputs its last run discovered that an edge
    ///   writes (ninja adds them to the graph as it walks): they are walked like its inputs.
    /// - Throws: ``Failure`` naming a dependency cycle whole (`dependency cycle: a -> b -> a`).
    public init(graph: NinjaGraph, targets: [NodeID], discovered: (EdgeID) -> [NodeID] = { _ in [] }) throws(Failure) {
        wanted = Array(repeating: false, count: graph.edges.count)
        reachedThrough = Array(repeating: -1, count: graph.edges.count)
        // 0: not seen, 1: on the stack, 2: done.
        var mark = [UInt8](repeating: 0, count: graph.edges.count)
        var pendingTargets = Array(targets.reversed())
        // Each node on the walk, the next of its edge's inputs to visit, and the inputs its
        // last run discovered (visited after its own).
        var stack: [(node: NodeID, next: Int, found: [NodeID])] = []
        var sourceSeen = Set<NodeID>()
        while let target = pendingTargets.popLast() {
            if graph.nodes[Int(target)].inEdge == nil {
                // A target that is a source: "needed by" nothing (-1).
                if sourceSeen.insert(target).inserted { sources.append((target, -1)) }
                continue
            }
            stack.append((target, 0, []))
            while let top = stack.last {
                guard let edgeID = graph.nodes[Int(top.node)].inEdge else {
                    stack.removeLast()
                    continue
                }
                let edge = graph.edges[Int(edgeID)]
                if top.next == 0 {
                    switch mark[Int(edgeID)] {
                    case 2:
                        stack.removeLast()
                        continue
                    case 1:
                        throw Failure(message: Self.cycle(graph: graph, stack: stack.map(\.node), closingAt: edgeID))
                    default:
                        mark[Int(edgeID)] = 1
                        reachedThrough[Int(edgeID)] = top.node
                        stack[stack.count - 1].found = discovered(edgeID)
                    }
                }
                if top.next < edge.inputs.count {
                    stack[stack.count - 1].next += 1
                    let input = edge.inputs[top.next]
                    if graph.nodes[Int(input)].inEdge == nil {
                        // Every reader: an up-to-date one is not walked by ninja, a later one may be.
                        sources.append((input, top.node))
                        continue
                    }
                    stack.append((input, 0, []))
                    continue
                }
                // Read from the stack: `top` was copied before the edge's first visit filled it in.
                let found = stack[stack.count - 1].found
                if top.next - edge.inputs.count < found.count {
                    stack[stack.count - 1].next += 1
                    stack.append((found[top.next - edge.inputs.count], 0, []))
                    continue
                }
                mark[Int(edgeID)] = 2
                wanted[Int(edgeID)] = true
                order.append(edgeID)
                pendingTargets += edge.validations.reversed()
                stack.removeLast()
            }
        }
    }

    /// ninja's message for a cycle: from the node where it closes, through the stack, back to it.
    private static func cycle(graph: NinjaGraph, stack: [NodeID], closingAt edge: EdgeID) -> String {
        guard let last = stack.last, let start = stack.firstIndex(where: { graph.nodes[Int($0)].inEdge == edge }) else {
            return "dependency cycle"
        }
        // From the node that closes the cycle, not another output of its edge: `a -> c -> a`
        // rather than `b -> c -> a` when one edge writes a and b.
        var path = Array(stack[start..<(stack.count - 1)])
        guard !path.isEmpty else { return "dependency cycle: " + graph.nodes[Int(last)].path }
        path[0] = last
        let message = "dependency cycle: " + path.map { graph.nodes[Int($0)].path + " -> " }.joined() + graph.nodes[Int(last)].path
        return message
    }
}
