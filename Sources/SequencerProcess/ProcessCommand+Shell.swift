extension ProcessCommand {
    /// A shell command line: run directly, split into words on blanks (the way make does),
    /// when it has no shell syntax at all, else as `/bin/sh -c script`.
    ///
    /// It runs directly only when it is made of words of letters (ASCII), digits and
    /// `_ - . / , : @ % + =`, separated by spaces and tabs, its first word has no `=`
    /// (that would be a variable assignment) and is not a shell builtin or keyword
    /// (`cd`, `echo`, `exit`, `export`, `if`, `pwd`, `test`, `true`, ...). Anything
    /// else, such as quotes, `$`, `\`, `|`, `&`, `;`, `<`, `>`, `(`, `*`, `?`, `[`, `~`, `#`,
    /// `{`, `!` or a newline, goes through the shell.
    ///
    /// The two ways behave the same, with two differences to know about: the shell sets `PWD`
    /// in the child's environment when it is missing or wrong (give `PWD` in `environment`
    /// for the same environment both ways), and a program that cannot be found makes
    /// ``ProcessRunner/run(_:outputPath:)`` throw on the direct way, where the shell
    /// reports `not found` in the output and exits with 127.
    ///
    /// ```swift
    /// ProcessCommand.shell("cc -O2 -c a.c", environment: env, directory: dir).arguments
    /// // ["cc", "-O2", "-c", "a.c"]
    /// ProcessCommand.shell("cc -c a.c > a.log", environment: env, directory: dir).arguments
    /// // ["/bin/sh", "-c", "cc -c a.c > a.log"]
    /// ```
    ///
    /// - Parameters:
    ///   - script: The command line.
    ///   - environment: The child's whole environment.
    ///   - directory: The child's working directory.
    /// - Returns: The command, direct or through `/bin/sh -c`.
    /// - Complexity: O(length of `script`).
    public static func shell(_ script: String, environment: [String: String], directory: String) -> ProcessCommand {
        let arguments = shellWords(script) ?? ["/bin/sh", "-c", script]
        return ProcessCommand(arguments: arguments, environment: environment, directory: directory)
    }

    /// The words of `script` when it can be run without a shell (see ``shell(_:environment:directory:)``),
    /// else `nil`: at least one word.
    static func shellWords(_ script: String) -> [String]? {
        var words: [String] = []
        var start: String.UTF8View.Index?
        let utf8 = script.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                if let wordStart = start {
                    words.append(String(script[wordStart..<index]))
                    start = nil
                }
            } else if isSafe(byte) {
                if start == nil { start = index }
            } else {
                return nil
            }
            index = utf8.index(after: index)
        }
        if let wordStart = start { words.append(String(script[wordStart...])) }
        guard let first = words.first, !first.utf8.contains(UInt8(ascii: "=")), !shellCommands.contains(first) else {
            return nil
        }
        return words
    }

    /// Letters, digits and `_ - . / , : @ % + =`: characters that mean nothing to `sh` in a word.
    private static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ","),
            UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "+"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// Words that `sh` (or bash) runs itself, or reads as syntax, when they come first: make's
    /// `sh_cmds` plus the builtins of dash and bash whose behaviour differs from, or that have no,
    /// program of the same name (`echo -e`, `pwd` through a symbolic link, `type`, `source`).
    static let shellCommands: Set<String> = [
        // Keywords.
        "case", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select",
        "then", "time", "until", "while",
        // POSIX special and regular builtins (dash).
        ".", ":", "alias", "bg", "break", "cd", "command", "continue", "echo", "eval", "exec", "exit",
        "export", "false", "fc", "fg", "getopts", "hash", "jobs", "kill", "local", "printf", "pwd", "read",
        "readonly", "return", "set", "shift", "test", "times", "trap", "true", "type", "ulimit", "umask",
        "unalias", "unset", "wait",
        // bash builtins.
        "bind", "builtin", "caller", "compgen", "complete", "compopt", "coproc", "declare", "dirs", "disown",
        "enable", "help", "history", "let", "logout", "login", "mapfile", "popd", "pushd", "readarray",
        "shopt", "source", "suspend", "typeset",
    ]
}
