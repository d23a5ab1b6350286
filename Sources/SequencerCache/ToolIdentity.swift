#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Which programs a command starts, by content: another compiler on `PATH` is another key
/// (tensorflow/build#73, where the compiler's path was not in the key).
///
/// A command's tools are the first words of its simple commands (split at `&&`, `||`, `;` and
/// `|`), after any `NAME=value` assignments, each looked up on the `PATH` as the shell would:
/// `cd build && /usr/bin/cc -c a.c` starts `/usr/bin/cc`. A word of the shell's own (`cd`,
/// `echo`, a parenthesis) is the shell's: `/bin/sh`. A tool's hash is kept as `digests` keeps
/// it (while its stamp stays).
public final class ToolIdentity: Sendable {
    private let digests: FileDigests

    public init(digests: FileDigests = FileDigests()) {
        self.digests = digests
    }

    /// The command's tools, as written, each with its executable's SHA-256 (nil when it is not
    /// found: the key says so, and the command runs to say why); `sh` for the shell's words.
    public func identify(command: String, path: String?, directory: String) -> [(name: String, digest: String?)] {
        var tools: [(name: String, digest: String?)] = []
        for segment in Self.segments(of: command) {
            guard let word = Self.firstWord(of: segment) else { continue }
            let tool = identify(word: word, path: path, directory: directory)
            if !tools.contains(where: { $0.name == tool.name }) { tools.append(tool) }
        }
        return tools.isEmpty ? [("sh", hash("/bin/sh"))] : tools
    }

    private func identify(word: String, path: String?, directory: String) -> (name: String, digest: String?) {
        guard !Self.shellWords.contains(word) else { return ("sh", hash("/bin/sh")) }
        if word.contains("/") { return (word, hash(word.hasPrefix("/") ? word : directory + "/" + word)) }
        for entry in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let folder = entry.isEmpty ? directory : entry.hasPrefix("/") ? String(entry) : directory + "/" + entry
            let candidate = folder + "/" + word
            if access(candidate, X_OK) == 0, let digest = hash(candidate) { return (word, digest) }
        }
        return (word, nil)
    }

    /// The SHA-256 of the file at `path`, in hex; nil when it is not a readable file.
    private func hash(_ path: String) -> String? {
        digests.digest(of: path)?.digest.hex
    }

    /// The command's simple commands: split at `&&`, `||`, `;`, `|` and newlines (quotes are not
    /// read: a split too many only keys one tool more). Read as bytes: a compiler's command line
    /// is long, and every byte that splits is ASCII.
    static func segments(of command: String) -> [Substring.UTF8View] {
        command.utf8[...].split(whereSeparator: { $0 == 0x3B || $0 == 0x7C || $0 == 0x26 || $0 == 0x0A })
    }

    /// The command's first word after any variable assignments; nil for an empty command.
    static func firstWord(of command: Substring.UTF8View) -> String? {
        for token in command.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C }) {
            guard let first = token.first else { continue }
            if let equals = token.firstIndex(of: 0x3D), isName(token[..<equals]), isLetter(first) || first == 0x5F { continue }
            // A word that starts with the shell's own punctuation is the shell's.
            if Self.shellPunctuation.contains(first) { return "(" }
            return String(Substring(token))
        }
        return nil
    }

    /// `({!;&|<>'"$`\#`, as bytes.
    private static let shellPunctuation: Set<UInt8> = Set("({!;&|<>'\"$`\\#".utf8)

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isName(_ bytes: Substring.UTF8View.SubSequence) -> Bool {
        bytes.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }

    /// Words the shell runs itself (keywords and the common built-ins).
    static let shellWords: Set<String> = [
        "(", "if", "then", "else", "fi", "for", "do", "done", "while", "until", "case", "{", "}", "!", "cd", "echo", "printf", "test", "[",
        "true", "false", "exit", "export", "set", "unset", ":", ".", "source", "exec", "eval", "read", "shift", "trap", "wait", "umask",
        "ulimit", "type", "command",
    ]
}
