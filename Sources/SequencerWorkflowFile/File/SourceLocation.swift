/// A position in a workflow file: 1-based line and column.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The line, counting from 1.
    public var line: Int
    /// The column, counting from 1, in Unicode scalars (as YAML counts them: `é` written as `e`
    /// and a combining accent is two).
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
