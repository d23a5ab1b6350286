/// A ninja manifest, parsed: the files (nodes), the build statements (edges) between them, the
/// rules and pools they name, the variable scopes, and the default targets.
///
/// Nodes and edges are numbered, and refer to each other by number, so that a manifest of
/// hundreds of thousands of statements is a few flat arrays. The parser builds it
/// (`ManifestParser`); dyndep files add to it (`NinjaGraph.load(dyndep:)`) while a build runs.
///
/// - Complexity: lookups by path are O(1) on average (`node(at:)`).
public struct NinjaGraph: Sendable {
    public typealias NodeID = Int32
    public typealias EdgeID = Int32
    public typealias ScopeID = Int32

    public var nodes: [Node] = []
    public var edges: [Edge] = []
    /// Every pool by name, with the two that always exist: `""` (no limit) and `console`.
    public var pools: [String: Pool] = ["": Pool(name: "", depth: 0), "console": Pool(name: "console", depth: 1)]
    /// The scopes, in the order they were opened: 0 is the top-level file's. `subninja` opens a
    /// child scope; `include` parses into the scope that includes.
    public var scopes: [Scope] = [Scope(parent: nil)]
    /// The targets of `default` statements, in their order; empty when the manifest has none.
    public var defaults: [NodeID] = []
    /// Canonical path → node.
    public var nodeIndex: [String: NodeID] = [:]

    public init() {}

    /// The node of a canonical path, if the manifest names it.
    public func node(at path: String) -> NodeID? { nodeIndex[path] }

    /// The node of a canonical path, added when it is new.
    public mutating func addNode(_ path: String) -> NodeID {
        // One hash lookup: the index takes the next number if the path is new.
        let next = NodeID(nodes.count)
        let id = Self.value(&nodeIndex[path, default: next])
        if id == next { nodes.append(Node(path: path)) }
        return id
    }

    private static func value(_ id: inout NodeID) -> NodeID { id }

    /// The nodes no edge reads: what `ninja` builds when there is no `default` statement.
    public var roots: [NodeID] {
        var roots: [NodeID] = []
        for edge in edges {
            for output in edge.outputs where nodes[Int(output)].outEdges.isEmpty {
                roots.append(output)
            }
        }
        return roots
    }
}

extension NinjaGraph {
    /// A file the manifest names.
    public struct Node: Sendable {
        /// The path as canonicalised (`CanonicalPath`), relative to the build directory unless
        /// it was absolute.
        public var path: String
        /// The edge that writes it, if any.
        public var inEdge: EdgeID?
        /// The edges that read it (any kind of input).
        public var outEdges: [EdgeID] = []
        /// The edges that name it as a validation (`|@`).
        public var validationOutEdges: [EdgeID] = []
        /// Whether a dyndep file, or a depfile, named it rather than the manifest.
        public var generatedByDepLoader = false
        /// Whether it is some edge's `dyndep` file that has not been loaded yet: the parser sets
        /// it, `load(dyndep:files:)` clears it.
        public var dyndepPending = false

        public init(path: String) { self.path = path }
    }

    /// A `build` statement.
    public struct Edge: Sendable {
        /// The rule's name; `phony` for the built-in rule.
        public var rule: String
        /// The scope the statement was read in (its variables' parent).
        public var scope: ScopeID
        /// The scope whose `rules` holds the edge's rule: `scope` or one of its ancestors, found
        /// when the statement was read (a rule of that name declared later elsewhere does not
        /// change it). The built-in `phony` rule is in scope 0.
        public var ruleScope: ScopeID = 0
        /// Whether the edge was made to give a depfile-discovered node an in-edge (ninja's
        /// phony edges for deps); a dyndep file may then name the node as its own output.
        public var generatedByDepLoader = false
        /// The statement's own variables, already expanded (ninja expands them as it reads the
        /// statement, in the enclosing scope).
        public var bindings: [String: String] = [:]
        /// Explicit outputs first, then the `implicitOutputs` implicit ones (after `|`).
        public var outputs: [NodeID] = []
        public var implicitOutputs = 0
        /// Explicit inputs, then `implicitInputs` implicit ones (`|`), then `orderOnlyInputs`
        /// order-only ones (`||`).
        public var inputs: [NodeID] = []
        public var implicitInputs = 0
        public var orderOnlyInputs = 0
        /// Validations (`|@`): built whenever this edge is wanted, never read by it.
        public var validations: [NodeID] = []
        /// The `dyndep` file, when the edge has one (it is also one of its inputs).
        public var dyndep: NodeID?
        /// The pool's name (`""` for none).
        public var pool: String = ""
        /// Where the statement is, for messages: the manifest file and its line.
        public var file: String = ""
        public var line = 0

        public init(rule: String, scope: ScopeID) {
            self.rule = rule
            self.scope = scope
        }

        /// Whether the edge uses the built-in `phony` rule (a subninja may declare a rule of its own
        /// named `phony`, which is an ordinary rule).
        public var isPhony: Bool { rule == "phony" && ruleScope == 0 }
        public var explicitInputs: ArraySlice<NodeID> { inputs[..<(inputs.count - implicitInputs - orderOnlyInputs)] }
        /// Explicit and implicit inputs: those whose change makes the edge dirty.
        public var dirtyingInputs: ArraySlice<NodeID> { inputs[..<(inputs.count - orderOnlyInputs)] }
        public var orderOnly: ArraySlice<NodeID> { inputs[(inputs.count - orderOnlyInputs)...] }
        public var explicitOutputs: ArraySlice<NodeID> { outputs[..<(outputs.count - implicitOutputs)] }
    }

    /// A `rule`: its variables, unexpanded (they expand in each edge's scope).
    public struct Rule: Sendable {
        public var name: String
        public var bindings: [String: EvalString] = [:]

        public init(name: String) { self.name = name }

        /// The variables a rule may set; any other is an error ("unexpected variable").
        public static let reservedBindings: Set<String> = [
            "command", "depfile", "dyndep", "description", "deps", "generator", "pool", "restat",
            "rspfile", "rspfile_content", "msvc_deps_prefix",
        ]
    }

    /// A `pool`: at most `depth` of its edges run at once (0: no limit).
    public struct Pool: Sendable, Equatable {
        public var name: String
        public var depth: Int

        public init(name: String, depth: Int) {
            self.name = name
            self.depth = depth
        }
    }

    /// A scope of variables and rules: a file's top level, or a `subninja`'s.
    public struct Scope: Sendable {
        public var parent: ScopeID?
        /// Variables, expanded as they were read.
        public var bindings: [String: String] = [:]
        public var rules: [String: Rule] = [:]

        public init(parent: ScopeID?) { self.parent = parent }
    }
}
