import SequencerWorkflowFile
import Testing

/// How a command line's words split into the workflow file and targets (no file system: the
/// existing files are given).
@Suite struct CommandLineTargetsTests {
    private func read(_ words: [String], file: String? = nil, existing: Set<String>) -> CommandLineTargets {
        CommandLineTargets(file: file, words: words) { existing.contains($0) }
    }

    @Test func withNoFileNamedEveryWordIsATargetOfTheDefaultFile() {
        let named = read(["hello.txt", "link"], existing: ["sequencer.yml", "hello.txt"])
        #expect(named.path == CommandLineTargets.defaultPath)
        #expect(named.targets == ["hello.txt", "link"])
        #expect(named.isDefault)
        #expect(named.missingFile == nil)
    }

    @Test(arguments: ["build.yml", "ci/build.yaml"])
    func anExistingYmlOrYamlFileFirstIsTheFile(first: String) {
        let named = read([first, "link"], existing: ["sequencer.yml", first])
        #expect(named.path == first)
        #expect(named.targets == ["link"])
        #expect(!named.isDefault)
    }

    @Test func anExistingYmlFileAfterTheFirstWordIsATarget() {
        let named = read(["link", "build.yml"], existing: ["sequencer.yml", "build.yml"])
        #expect(named.path == CommandLineTargets.defaultPath)
        #expect(named.targets == ["link", "build.yml"])
    }

    @Test func dashFNamesTheFileAndLeavesEveryWordATarget() {
        let named = read(["build.yml"], file: "other.yml", existing: ["other.yml", "build.yml"])
        #expect(named.path == "other.yml")
        #expect(named.targets == ["build.yml"])
        #expect(!named.isDefault)
    }

    @Test func aMissingYmlFirstIsATargetWhenTheDefaultFileExists() {
        let named = read(["config.yml"], existing: ["sequencer.yml"])
        #expect(named.path == CommandLineTargets.defaultPath)
        #expect(named.targets == ["config.yml"])
        #expect(named.missingFile == "config.yml")
    }

    @Test func aMissingYmlFirstIsTheFileWhenThereIsNoDefaultFile() {
        let named = read(["nowhere.yml", "link"], existing: [])
        #expect(named.path == "nowhere.yml")
        #expect(named.targets == ["link"])
    }

    @Test func noWordsIsTheDefaultFileAndEveryJob() {
        let named = read([], existing: [])
        #expect(named.path == CommandLineTargets.defaultPath)
        #expect(named.targets.isEmpty)
        #expect(named.isDefault)
    }
}
