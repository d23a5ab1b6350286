import ArgumentParser
import SequencerWorkflowFile

struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print a workflow's job graph as Graphviz dot, Mermaid or JSON."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case dot, mermaid, json
    }

    @OptionGroup var file: FileArgument
    @Option(help: "The output format: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: Format = .dot

    func run() async throws {
        let workflow = try loadOrExit(file.file)
        _ = workflow
    }
}
