import ArgumentParser

@main
struct SequencerCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sequencer",
        abstract: "Run graphs of shell jobs described in a YAML workflow file."
    )
}
