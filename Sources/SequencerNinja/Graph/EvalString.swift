/// A string with `$variable` references, kept unexpanded: a rule's variables are expanded in
/// each edge's scope, late (ninja's manual, "Variable expansion").
public struct EvalString: Sendable, Equatable {
    public enum Piece: Sendable, Equatable {
        case text(String)
        case variable(String)
    }

    public var pieces: [Piece]

    public init(_ pieces: [Piece] = []) { self.pieces = pieces }

    public var isEmpty: Bool { pieces.isEmpty }

    /// Expands every variable with `lookup` (an unknown variable is the empty string).
    public func expand(_ lookup: (String) -> String) -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .variable(let name): result += lookup(name)
            }
        }
        return result
    }
}
