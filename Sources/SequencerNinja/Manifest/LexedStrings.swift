/// Strings as the lexer reads them, before expansion: runs of literal text and variable names.
///
/// Several strings (a build statement's paths) share one byte buffer and one piece list, so once
/// the buffers have grown, reading a statement allocates nothing. A string is open while the
/// lexer adds pieces to it and `close()` ends it.
struct LexedStrings {
    struct Piece {
        var isVariable: Bool
        /// The piece's bytes in `bytes` (the text, or the variable's name).
        var start: Int
        var end: Int
    }

    private(set) var bytes: [UInt8] = []
    private(set) var pieces: [Piece] = []
    /// For each closed string, the end of its range in `pieces`.
    private(set) var ends: [Int] = []

    /// How many strings are closed.
    var count: Int { ends.count }

    /// The first piece of the open string.
    private var openStart: Int { ends.last ?? 0 }

    /// The pieces of string `index`.
    func pieceRange(_ index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    /// Text for the open string, merged with the text before it as ninja merges it.
    mutating func appendText(_ source: UnsafePointer<UInt8>, count: Int) {
        if pieces.count > openStart, let last = pieces.last, !last.isVariable, last.end == bytes.count {
            bytes.append(contentsOf: UnsafeBufferPointer(start: source, count: count))
            pieces[pieces.count - 1].end = bytes.count
            return
        }
        let start = bytes.count
        bytes.append(contentsOf: UnsafeBufferPointer(start: source, count: count))
        pieces.append(Piece(isVariable: false, start: start, end: bytes.count))
    }

    mutating func appendText(byte: UInt8) {
        withUnsafePointer(to: byte) { appendText($0, count: 1) }
    }

    /// A variable reference for the open string.
    mutating func appendVariable(_ source: UnsafePointer<UInt8>, count: Int) {
        let start = bytes.count
        bytes.append(contentsOf: UnsafeBufferPointer(start: source, count: count))
        pieces.append(Piece(isVariable: true, start: start, end: bytes.count))
    }

    /// Ends the open string; false, keeping nothing, when it has no pieces (the lexer met a
    /// delimiter straight away).
    mutating func close() -> Bool {
        if pieces.count == openStart { return false }
        ends.append(pieces.count)
        return true
    }

    /// Drops the open string's pieces (after an error in it).
    mutating func discardOpen() {
        pieces.removeSubrange(openStart...)
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        pieces.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// The name of a variable piece, or the text of a text piece.
    func string(of piece: Piece) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[piece.start..<piece.end]), as: UTF8.self)
        }
    }

    /// String `index` as an `EvalString`, for a rule's variables (expanded later, per edge).
    func evalString(_ index: Int) -> EvalString {
        EvalString(pieceRange(index).map { position in
            let piece = pieces[position]
            return piece.isVariable ? .variable(string(of: piece)) : .text(string(of: piece))
        })
    }

    /// Appends string `index`, expanded, to `output`: text as is, each variable as `value`
    /// gives it (nil: the empty string).
    func expand(_ index: Int, into output: inout [UInt8], value: (String) -> String?) {
        for position in pieceRange(index) {
            let piece = pieces[position]
            if piece.isVariable {
                if var found = value(string(of: piece)) {
                    found.withUTF8 { output.append(contentsOf: $0) }
                }
            } else {
                output.append(contentsOf: bytes[piece.start..<piece.end])
            }
        }
    }
}
