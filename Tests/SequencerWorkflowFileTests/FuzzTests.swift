import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerWorkflowFile

private typealias SourceLocation = SequencerWorkflowFile.SourceLocation

/// Random mutations of the valid fixtures: the parser never crashes, and every diagnostic it
/// gives is somewhere in the file, with a message.
///
/// Runs 2,000 inputs by default; `SEQUENCER_FUZZ_ITERATIONS=N` runs N,
/// `SEQUENCER_FUZZ_SEED=S` starts from another seed, and `SEQUENCER_FUZZ_CORPUS=all` mutates the
/// invalid fixtures too. For a long run:
///
/// ```
/// SEQUENCER_FUZZ_ITERATIONS=1000000 swift test -c release -Xswiftc -enable-testing --filter Fuzz
/// ```
///
/// A failing input is printed with its seed and iteration; `FuzzMutator` rebuilds it from them.
@Suite struct FuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["SEQUENCER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 2_000
    static let seed = ProcessInfo.processInfo.environment["SEQUENCER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_F11E
    static let folders = ProcessInfo.processInfo.environment["SEQUENCER_FUZZ_CORPUS"] == "all" ? ["valid", "invalid"] : ["valid"]

    @Test func mutatedFixturesNeverCrashAndPointInsideTheFile() throws {
        let corpus = try Self.folders.flatMap { folder in
            try Fixtures.names(in: folder).map { name in
                Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(folder, name))))
            }
        }
        try #require(!corpus.isEmpty)
        var generator = FuzzMutator.Generator(state: Self.seed)
        let clock = ContinuousClock()
        var slowest: (duration: Duration, iteration: Int) = (.zero, 0)
        var failures = 0, rejected = 0, diagnosticCount = 0
        let started = clock.now
        for iteration in 0..<Self.iterations {
            let original = corpus[Int(generator.next() % UInt64(corpus.count))]
            let bytes = FuzzMutator.mutate(original, using: &generator)
            let text = String(decoding: bytes, as: UTF8.self)
            let start = clock.now
            let problems = Self.problems(parsing: text)
            let elapsed = clock.now - start
            if elapsed > slowest.duration { slowest = (elapsed, iteration) }
            if problems.diagnostics > 0 { rejected += 1 }
            diagnosticCount += problems.diagnostics
            if !problems.messages.isEmpty {
                failures += 1
                if failures <= 5 {
                    Issue.record("""
                        seed \(Self.seed), iteration \(iteration): \(problems.messages.joined(separator: "; "))
                        input: \(text.debugDescription)
                        """)
                }
            }
        }
        print("""
            fuzz: \(Self.iterations) inputs (\(corpus.count) files of \(Self.folders.joined(separator: " and "))) \
            from seed \(Self.seed) in \(clock.now - started): \(rejected) rejected \
            with \(diagnosticCount) diagnostics, \(Self.iterations - rejected) accepted, \(failures) failing; \
            slowest input \(slowest.duration) (iteration \(slowest.iteration))
            """)
    }

    /// What is wrong with the diagnostics of one input (nothing if they are all fine), and how
    /// many there are.
    static func problems(parsing text: String) -> (messages: [String], diagnostics: Int) {
        do {
            _ = try WorkflowFile.parse(text, path: workspace.file("fuzz.yml"))
            return ([], 0)
        } catch {
            return (problems(in: error.diagnostics, of: text), error.diagnostics.count)
        }
    }

    /// Where fuzzed files are read: templates over files and includes find a few here (the
    /// valid fixtures' include among them), and nothing else of the machine's.
    static let workspace: TemporaryDirectory = {
        do {
            let directory = try TemporaryDirectory(prefix: "sequencer-fuzz")
            for name in ["01-minimal.yml", "02-design-example.yml", "03-every-key.yml", "src/a.c", "src/b.c"] {
                _ = try directory.write(name, "jobs:\n  x: echo\n")
            }
            _ = try directory.write("includes/common.yml", try String(contentsOfFile: Fixtures.path("valid", "includes/common.yml"), encoding: .utf8))
            return directory
        } catch {
            fatalError("cannot make the fuzz workspace: \(error)")
        }
    }()

    /// What is wrong with the diagnostics of a file that failed to parse.
    static func problems(in diagnostics: [Diagnostic], of text: String) -> [String] {
        let included = workspace.file("includes/common.yml")
        let includedLines = SourceText((try? String(contentsOfFile: included, encoding: .utf8)) ?? "").lines
        var messages: [String] = []
        if diagnostics.isEmpty { messages.append("an error with no diagnostics") }
        func check(_ diagnostic: Diagnostic, severity: Diagnostic.Severity) {
            let lines = diagnostic.file == included ? includedLines : SourceText(text).lines
            let location = diagnostic.location
            if location.line < 1 || location.line > lines.count + 1 {
                messages.append("line \(location.line) outside 1...\(lines.count + 1): \(diagnostic)")
            }
            if location.column < 1 {
                messages.append("column \(location.column) below 1: \(diagnostic)")
            } else if location.line >= 1, location.line <= lines.count, location.column > lines[location.line - 1].count + 1 {
                messages.append("column \(location.column) past the end of line \(location.line) (\(lines[location.line - 1].count) long): \(diagnostic)")
            }
            if diagnostic.message.trimmingCharacters(in: .whitespaces).isEmpty { messages.append("an empty message at \(location)") }
            if diagnostic.severity != severity { messages.append("severity \(diagnostic.severity) for \(diagnostic)") }
            // The fuzzed file, or the one file it can include (an include cycle through fuzz.yml is its own).
            if diagnostic.file != workspace.file("fuzz.yml"), diagnostic.file != included {
                messages.append("file \(diagnostic.file)")
            }
        }
        for diagnostic in diagnostics {
            check(diagnostic, severity: .error)
            for note in diagnostic.notes { check(note, severity: .note) }
        }
        let order = diagnostics.filter { $0.file != included }.map(\.location)
        if order != order.sorted() { messages.append("not in file order") }
        return messages
    }

    /// The mutator is deterministic: one seed, one sequence of inputs.
    @Test func mutationsRepeatForASeed() {
        let input = Array("jobs:\n  a: {run: echo, needs: [b]}\n  b: echo\n".utf8)
        var first = FuzzMutator.Generator(state: 7), second = FuzzMutator.Generator(state: 7)
        for _ in 0..<200 {
            #expect(FuzzMutator.mutate(input, using: &first) == FuzzMutator.mutate(input, using: &second))
        }
    }

    /// The checks catch what they are for.
    @Test func theChecksCanFail() {
        let text = "jobs:\n  a: echo\n"
        func diagnostic(_ line: Int, _ column: Int, _ message: String = "m", severity: Diagnostic.Severity = .error,
                        file: String = Self.workspace.file("fuzz.yml")) -> Diagnostic {
            Diagnostic(file: file, location: SourceLocation(line: line, column: column), severity: severity, message: message)
        }
        #expect(Self.problems(in: [diagnostic(1, 1), diagnostic(3, 1)], of: text).isEmpty)
        #expect(Self.problems(in: [diagnostic(2, 10)], of: text).isEmpty)
        for bad in [
            [], [diagnostic(0, 1)], [diagnostic(5, 1)], [diagnostic(1, 0)], [diagnostic(1, 7)], [diagnostic(1, 1, " ")],
            [diagnostic(1, 1, severity: .note)], [diagnostic(1, 1, file: "other.yml")], [diagnostic(2, 1), diagnostic(1, 1)],
        ] {
            #expect(!Self.problems(in: bad, of: text).isEmpty, "\(bad)")
        }
        var withBadNote = diagnostic(1, 1)
        withBadNote.notes = [diagnostic(9, 1, severity: .note)]
        #expect(!Self.problems(in: [withBadNote], of: text).isEmpty)
        #expect(Self.problems(parsing: "jobs: {a: echo}").diagnostics == 0)
        #expect(Self.problems(parsing: "jobs: [") == ([], 1))
    }
}
