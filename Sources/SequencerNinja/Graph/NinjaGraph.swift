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
    private(set) var pathIndex = PathIndex()

    public init() {}

    /// The node of a canonical path, if the manifest names it.
    public func node(at path: String) -> NodeID? {
        var utf8 = path
        return utf8.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            return pathIndex.find(bytes, hash: PathIndex.hash(bytes), in: nodes)
        }
    }

    /// The node of a canonical path, added when it is new.
    public mutating func addNode(_ path: String) -> NodeID {
        var utf8 = path
        return utf8.withUTF8 { addNode(bytes: UnsafeRawBufferPointer($0), path: path) }
    }

    /// The node of a canonical path given as bytes, added when it is new (its `String` is made
    /// only then).
    public mutating func addNode(bytes: UnsafeRawBufferPointer) -> NodeID {
        addNode(bytes: bytes, path: nil)
    }

    private mutating func addNode(bytes: UnsafeRawBufferPointer, path: String?) -> NodeID {
        let hash = PathIndex.hash(bytes)
        if let id = pathIndex.find(bytes, hash: hash, in: nodes) { return id }
        guard let path else {
            // Bytes that are not UTF-8 make a path with U+FFFD in their place: the node is
            // that path's, found by its bytes (as `node(at:)` finds it).
            let path = String(decoding: bytes, as: UTF8.self)
            var utf8 = path
            let repaired = utf8.withUTF8 { !PathIndex.equal(path: $0, bytes) }
            return repaired ? addNode(path) : appendNode(path, hash: hash)
        }
        return appendNode(path, hash: hash)
    }

    private mutating func appendNode(_ path: String, hash: UInt64) -> NodeID {
        let id = NodeID(nodes.count)
        nodes.append(Node(path: path))
        pathIndex.insert(id, hash: hash)
        return id
    }

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
