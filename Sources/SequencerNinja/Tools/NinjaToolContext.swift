#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a `-t` tool writes: its report on standard output, and ninja's messages
/// (`ninja: error: …`, getopt's complaints) on standard error. Each closure gets text ready to
/// write, newlines included.
public struct NinjaToolOutput: Sendable {
    /// Receives what the tool prints on standard output.
    public var standardOutput: @Sendable (String) -> Void
    /// Receives what the tool prints on standard error.
    public var standardError: @Sendable (String) -> Void

    public init(standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's own standard output and standard error (file descriptors 1 and 2).
    public static let processStreams = NinjaToolOutput(
        standardOutput: { writeFully(Array($0.utf8), to: 1) },
        standardError: { writeFully(Array($0.utf8), to: 2) })

    /// Writes all of `bytes`, giving up on a stream that fails.
    private static func writeFully(_ bytes: [UInt8], to descriptor: Int32) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(descriptor, base + written, buffer.count - written)
            }
            if count < 0 && errno == EINTR { continue }
            // A closed or failing stream: ninja's printf would drop the text too.
            if count <= 0 { return }
            written += count
        }
    }
}

/// What a `-t` tool runs on: the loaded manifest, the command line, the build directory and
/// where its output goes. Tools that touch files (`clean`, `cleandead`, `recompact`,
/// `restat`, and those that open the logs) do so relative to the current directory, as ninja
/// does after `-C`.
public struct NinjaToolContext: Sendable {
    /// The manifest as parsed. Tools may add to their own copy (dyndep files, the deps log's
    /// paths), as ninja does to its state.
    public var graph: NinjaGraph
    /// The command line (`dryRun` and `verbosity` matter to `clean`, `recompact`, `restat`).
    public var options: NinjaOptions
    /// What follows `-t TOOL` on the command line.
    public var arguments: [String]
    /// The name getopt's complaints start with (ninja's `argv[0]` for the tool: the word
    /// before its arguments, normally the tool's name).
    public var commandName: String
    /// `builddir`, where `.ninja_log` and `.ninja_deps` are ("" for the current directory).
    public var buildDirectory: String
    /// The directory ninja runs in, which relative paths are relative to and which `compdb`
    /// reports; nil for the process's current directory (tests give one, to leave the
    /// process's alone).
    public var directory: String?
    /// Where dyndep files are read from.
    public var manifestFiles: any ManifestFiles & Sendable
    /// Where the tool prints.
    public var output: NinjaToolOutput

    /// A context for `options.tool` with `options.arguments`, the build directory being the
    /// manifest's top-level `builddir`, as ninja reads it, and dyndep files read from disk.
    public init(
        graph: NinjaGraph, options: NinjaOptions, output: NinjaToolOutput = .processStreams, directory: String? = nil
    ) {
        self.graph = graph
        self.options = options
        self.arguments = options.arguments
        self.commandName = options.tool ?? ""
        self.buildDirectory = graph.scopes.first?.bindings["builddir"] ?? ""
        self.directory = directory
        self.manifestFiles = DiskManifestFiles(directory: directory)
        self.output = output
    }
}
