public import ArgumentParser
import SequencerWorkflowFile

struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print a workflow's job graph as Graphviz dot, Mermaid or JSON.",
        discussion: "Edges go from a job to the jobs that need it; lanes are clusters. Try: sequencer graph | dot -Tsvg > graph.svg"
    )

    @OptionGroup var file: FileArgument
    @Option(help: "The output format.")
    var format: GraphFormat = .dot

    func run() async throws {
        let workflow = try loadOrExit(file.file)
        let text = workflow.graph(format)
        print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
    }
}

extension GraphFormat: ExpressibleByArgument {}
