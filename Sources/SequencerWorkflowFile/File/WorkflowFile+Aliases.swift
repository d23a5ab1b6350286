import Yams

// Aliases (`*name`) are resolved here rather than by Yams, for two reasons:
// - Yams gives an alias's value the anchor's position, so an error about `run: *defaults`
//   would point at the `&defaults` mapping, not at the alias;
// - Yams hashes every mapping key whole to find repeated keys, and an alias of nested aliases
//   (a "billion laughs") used as a key makes that take exponential time.
// So every `*` that could start an alias is replaced by a marker before Yams reads the text;
// Yams then reads each alias as a plain word at its own position, and the tree is rebuilt here
// with each such word replaced by a copy of its anchor's value, positioned at the alias.

extension WorkflowFile {
    /// A Unicode scalar the text does not contain, to stand for `*` where an alias could start.
    static func aliasMarker(avoiding source: SourceText) -> Unicode.Scalar {
        var used = Set<UInt32>()
        for line in source.lines {
            for scalar in line where scalar.value >= 0xF8FF { used.insert(scalar.value) }
        }
        var value: UInt32 = 0xF8FF
        while used.contains(value), value < 0x10_FFFD {
            value = value == 0xF8FF ? 0xF_0000 : value + 1
        }
        return Unicode.Scalar(value) ?? "\u{F8FF}"
    }

    /// Replaces with `marker` each `*` that could start an alias: at the start of a line, or
    /// after a space, a tab, `[`, `{` or `,`.
    /// - Returns: whether any `*` was replaced.
    static func neutralizeAliases(in source: inout SourceText, marker: Unicode.Scalar) -> Bool {
        var replaced = false
        for lineNumber in 1..<(source.lines.count + 1) {
            guard let line = source.line(lineNumber), line.contains("*") else { continue }
            for index in line.indices where line[index] == "*" {
                if index > 0, !" \t[{,".unicodeScalars.contains(line[index - 1]) { continue }
                source.replace(line: lineNumber, column: index + 1, count: 1, with: [marker])
                replaced = true
            }
        }
        return replaced
    }

    /// `text` with every `marker` turned back into `*`.
    static func restoringAliasMarker(_ marker: Unicode.Scalar, in text: String) -> String {
        guard text.unicodeScalars.contains(marker) else { return text }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: text.unicodeScalars.map { $0 == marker ? "*" : $0 })
        return String(result)
    }

    /// The tree with every alias replaced by (a copy of) its anchor's value, positioned at the
    /// alias, and every marker in text turned back into `*`. An alias refers to the last anchor
    /// of its name whose node ends before it, as in YAML.
    ///
    /// - Parameter budget: how many nodes aliases may add, counting every node an alias copies
    ///   (aliases inside it included); past it, the file is refused.
    /// - Returns: the tree (nil if aliases make it too large), the aliases that name no anchor
    ///   or are written wrongly, and where those are (they are left as text, to be passed over).
    /// - Complexity: O(nodes) without recursion: a copy shares its anchor's storage.
    static func resolveAliases(_ root: Node, marker: Unicode.Scalar, budget: Int)
        -> (root: Node?, problems: [(location: SourceLocation, message: String)], broken: Set<SourceLocation>)
    {
        struct Frame {
            let node: Node
            let children: [Node]
            var built: [Node] = []
            /// The nodes under this one once aliases are expanded, itself included.
            var size = 1

            init(_ node: Node) {
                self.node = node
                switch node {
                case .mapping(let mapping): children = mapping.flatMap { [$0.key, $0.value] }
                case .sequence(let sequence): children = Array(sequence)
                case .scalar, .alias: children = []
                }
            }
        }

        var anchors: [String: (node: Node, size: Int)] = [:]
        var problems: [(location: SourceLocation, message: String)] = [] {
            didSet { if let last = problems.last { broken.insert(last.location) } }
        }
        var broken: Set<SourceLocation> = []
        var added = 0
        var stack = [Frame(root)]
        while var frame = stack.popLast() {
            if frame.built.count < frame.children.count {
                let child = frame.children[frame.built.count]
                stack.append(frame)
                stack.append(Frame(child))
                continue
            }
            var built: Node
            switch frame.node {
            case .mapping(let mapping):
                let pairs = stride(from: 0, to: frame.built.count - 1, by: 2).map { (frame.built[$0], frame.built[$0 + 1]) }
                built = .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
            case .sequence(let sequence):
                built = .sequence(Node.Sequence(frame.built, sequence.tag, sequence.style, sequence.mark))
            case .alias:
                built = frame.node
            case .scalar(let scalar):
                built = .scalar(Node.Scalar(
                    restoringAliasMarker(marker, in: scalar.string), scalar.tag, scalar.style, scalar.mark))
                if scalar.style == .plain, scalar.string.unicodeScalars.first == marker {
                    let location = scalar.mark.map { SourceLocation(line: $0.line, column: $0.column) }
                        ?? SourceLocation(line: 1, column: 1)
                    let written = restoringAliasMarker(marker, in: scalar.string)
                    let name = String(String.UnicodeScalarView(scalar.string.unicodeScalars.dropFirst().prefix {
                        $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-" || $0 == "_")
                    }))
                    if name.isEmpty {
                        problems.append((location, "'*' starts an alias, but no name follows it; to write text that starts with '*', quote it"))
                    } else if name.unicodeScalars.count + 1 < scalar.string.unicodeScalars.count {
                        problems.append((location, "an alias is '*' and a name only, found '\(written)'; to write text that starts with '*', quote it"))
                    } else if frame.node.anchor != nil {
                        problems.append((location, "an alias cannot also have an anchor"))
                    } else if let target = anchors[name] {
                        added = min(added + target.size, budget + 1)
                        if added > budget {
                            problems.append((location, "the file is too large once its aliases are expanded; nest fewer aliases inside anchors"))
                            return (nil, problems, broken)
                        }
                        built = target.node.positioned(at: scalar.mark)
                        frame.size = target.size
                    } else {
                        problems.append((location, "unknown alias '*\(name)': no anchor '&\(name)' comes before it"
                            + didYouMean(name, among: anchors.keys)))
                    }
                }
            }
            if let anchor = frame.node.anchor {
                anchors[anchor.rawValue] = (built, frame.size)
            }
            if stack.isEmpty { return (built, problems, broken) }
            stack[stack.count - 1].built.append(built)
            stack[stack.count - 1].size = min(stack[stack.count - 1].size + frame.size, budget + 1)
        }
        return (nil, problems, broken)
    }
}

extension Node {
    /// The node, with its own position (not its children's) moved to `mark`.
    fileprivate func positioned(at mark: Mark?) -> Node {
        switch self {
        case .scalar(var scalar):
            scalar.mark = mark
            return .scalar(scalar)
        case .mapping(var mapping):
            mapping.mark = mark
            return .mapping(mapping)
        case .sequence(var sequence):
            sequence.mark = mark
            return .sequence(sequence)
        case .alias:
            return self
        }
    }
}
