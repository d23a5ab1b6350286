/// What running an edge needs of its variables, expanded once (ninja's `EdgeEnv`).
public struct EdgeFacts: Sendable {
    public var command: String
    public var description: String
    /// `depfile`, unescaped (a path).
    public var depfile: String
    /// `deps`: `gcc`, `msvc` or empty.
    public var deps: String
    public var msvcDepsPrefix: String
    /// `rspfile`, unescaped, and `rspfile_content`.
    public var responseFile: String
    public var responseFileContent: String
    public var restat: Bool
    public var generator: Bool
    /// The command with the response file's content, as ninja hashes it for its log.
    public var commandForHash: String {
        responseFileContent.isEmpty ? command : command + ";rspfile=" + responseFileContent
    }

    public init(
        command: String, description: String = "", depfile: String = "", deps: String = "",
        msvcDepsPrefix: String = "", responseFile: String = "", responseFileContent: String = "",
        restat: Bool = false, generator: Bool = false
    ) {
        self.command = command
        self.description = description
        self.depfile = depfile
        self.deps = deps
        self.msvcDepsPrefix = msvcDepsPrefix
        self.responseFile = responseFile
        self.responseFileContent = responseFileContent
        self.restat = restat
        self.generator = generator
    }
}
