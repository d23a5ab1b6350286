/// How `$in` and `$out` write their paths (ninja's `EdgeEnv::EscapeKind`).
public enum PathEscaping: Sendable {
    /// For a command line (`sh -c`): a path with a byte outside `A-Z a-z 0-9 _ + - . /` is put
    /// in single quotes, each `'` in it written `'\''`. What `command`, `description` and
    /// `rspfile_content` see.
    case shell
    /// As they are: what ninja uses for `depfile`, `dyndep` and `rspfile`, which name files.
    case none
}

enum ShellEscape {
    /// Appends `path` to `output`, quoted for `sh` if it needs to be (ninja's
    /// `GetShellEscapedString`).
    static func append(_ path: String, to output: inout String) {
        if !path.utf8.contains(where: { !isSafe($0) }) {
            output += path
            return
        }
        output += "'"
        var pieces = path.split(separator: "'", omittingEmptySubsequences: false).makeIterator()
        if let first = pieces.next() { output += first }
        while let piece = pieces.next() {
            output += "'\\''"
            output += piece
        }
        output += "'"
    }

    /// The bytes a shell takes literally.
    static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39: true
        case 0x5F, 0x2B, 0x2D, 0x2E, 0x2F: true   // _ + - . /
        default: false
        }
    }
}
