#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
public import SequencerJournal

/// Which program a job's command starts, by content: another compiler on `PATH` is another key
/// (tensorflow/build#73, where the compiler's path was not in the key).
///
/// The tool is the command's first word, after any `NAME=value` assignments, looked up on the
/// job's `PATH` as the shell would. A command that starts with a word of the shell's own
/// (`cd`, `if`, `echo`, a parenthesis) runs in the shell: its tool is `/bin/sh`.
public final class ToolIdentity: Sendable {
    private let hasher: FileHasher

    public init(hasher: FileHasher = FileHasher()) {
        self.hasher = hasher
    }

    /// The tool's name as written and its executable's SHA-256; nil for the digest when it is
    /// not found (the key says `not found`, and the job runs to say why).
    public func identify(command: String, path: String?, directory: String) -> (name: String, digest: String?) {
        let word = Self.firstWord(of: command)
        guard let word, !Self.shellWords.contains(word) else { return ("sh", hasher.hash("/bin/sh")) }
        if word.contains("/") {
            let resolved = word.hasPrefix("/") ? word : directory + "/" + word
            return (word, hasher.hash(resolved))
        }
        for entry in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let folder = entry.isEmpty ? directory : entry.hasPrefix("/") ? String(entry) : directory + "/" + entry
            let candidate = folder + "/" + word
            if access(candidate, X_OK) == 0, let digest = hasher.hash(candidate) { return (word, digest) }
        }
        return (word, nil)
    }

    /// The command's first word after any variable assignments; nil for an empty command.
    static func firstWord(of command: String) -> String? {
        let separators = CharacterSet.whitespacesAndNewlines
        for token in command.components(separatedBy: separators) where !token.isEmpty {
            if let equals = token.firstIndex(of: "="), token[..<equals].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
               token.first?.isLetter == true || token.first == "_" {
                continue
            }
            // A word that starts with the shell's own punctuation is the shell's.
            if let first = token.first, "({!;&|<>'\"$`\\#".contains(first) { return "(" }
            return token
        }
        return nil
    }

    /// Words the shell runs itself (keywords and the common built-ins).
    static let shellWords: Set<String> = [
        "(", "if", "for", "while", "until", "case", "{", "!", "cd", "echo", "printf", "test", "[", "true", "false", "exit", "export",
        "set", "unset", ":", ".", "source", "exec", "eval", "read", "shift", "trap", "wait", "umask", "ulimit", "type", "command",
    ]
}
