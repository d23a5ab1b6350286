public import ArgumentParser
import SequencerWorkflowFile

struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print a workflow's job graph as Graphviz dot, Mermaid or JSON.",
        discussion: """
            Edges go from a job to the jobs that need it; lanes are clusters. With targets (as run \
            takes them), only those jobs and the jobs they need. Try: sequencer graph | dot -Tsvg > graph.svg
            """
    )

    /// The file, and the jobs (or outputs) to draw with the jobs they need.
    @OptionGroup var targets: TargetArguments
    @Option(help: "The output format.")
    var format: GraphFormat = .dot

    func run() async throws {
        let named = targets.named
        try named.checkDefaultFileExists()
        let workflow = try selectOrExit(try loadOrExit(named.path), named)
        let text = workflow.graph(format)
        print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
    }
}

extension GraphFormat: ExpressibleByArgument {}
