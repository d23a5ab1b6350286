import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerWorkflowFile

private typealias SourceLocation = SequencerWorkflowFile.SourceLocation

/// `${needs.outputs}` and `${needs.JOB.outputs}`: the outputs of the jobs a job needs.
@Suite struct NeedsOutputsTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "sequencer-needs-outputs")
        for name in ["src/b.c", "src/a.c"] { _ = try directory.write(name, "// \(name)\n") }
    }

    private func parse(_ text: String) throws(WorkflowFileError) -> WorkflowFile {
        try WorkflowFile.parse(text, path: directory.file("sequencer.yml"))
    }

    private func errors(_ text: String) -> [String] {
        parseErrors(text, path: directory.file("sequencer.yml"))
    }

    @Test func runGetsTheNeedsOutputsInNeedsOrderThenOutputsOrderQuotedForTheShell() throws {
        let file = try parse("""
            jobs:
              second:
                run: touch "it's.o" plain.h
                outputs: [it's.o, plain.h]
              first:
                run: touch "with space.o"
                outputs: [with space.o]
              nothing:
                run: "true"
              show:
                needs: [first, second]
                run: printf '%s\\n' ${needs.outputs}
              archive:
                needs: [first, nothing, second]
                run: ar rcs lib.a ${needs.outputs} && echo ${needs.second.outputs}
                inputs: [extra.h, "${needs.outputs}"]
                outputs: [lib.a]
            """)
        let archive = try #require(file.job(named: "archive"))
        #expect(archive.run == #"ar rcs lib.a 'with space.o' 'it'\''s.o' plain.h && echo 'it'\''s.o' plain.h"#)
        #expect(archive.inputs == ["extra.h", "with space.o", "it's.o", "plain.h"])
        #expect(archive.inputEntries[1].location == SourceLocation(line: 16, column: 23))
        // The shell reads back the paths the jobs declared.
        let show = try #require(file.job(named: "show"))
        #expect(try shellWords(show.run) == ["with space.o", "it's.o", "plain.h"])
    }

    @Test func templateJobsAndNeedPatternsGiveEachJobsOutputsInFileOrder() throws {
        let file = try parse("""
            jobs:
              compile-${stem}:
                for: { files: "src/*.c" }
                run: cc -c ${item} -o build/${stem}.o
                outputs: ["build/${stem}.o"]
              space:
                run: touch "build/my file.o"
                outputs: [build/my file.o]
              link-${item}:
                for: [app, tool]
                needs: [compile-*, space]
                run: cc -o build/${item} ${needs.outputs}
                inputs: ["${needs.outputs}"]
                outputs: ["build/${item}"]
              package:
                needs: [link-*]
                run: tar cf app.tar ${needs.link-tool.outputs} ${needs.link-app.outputs}
            """)
        // A template's files are sorted: a.c, then b.c; then the need `space`.
        let objects = ["build/a.o", "build/b.o", "build/my file.o"]
        #expect(file.job(named: "link-app")?.run == "cc -o build/app build/a.o build/b.o 'build/my file.o'")
        #expect(file.job(named: "link-tool")?.inputs == objects)
        #expect(file.job(named: "package")?.run == "tar cf app.tar build/tool build/app")
    }

    @Test func anOutputWithAnEnvironmentVariableIsLeftForTheShellToExpand() throws {
        let file = try parse("""
            jobs:
              compile:
                run: cc -c a.c -o $BUILD/a.o
                outputs: [$BUILD/a.o, "${BUILD}/cost $$5.txt"]
              link:
                needs: [compile]
                run: cc ${needs.outputs}
            """)
        #expect(file.job(named: "link")?.run == #"cc "$BUILD/a.o" "${BUILD}/cost \$5.txt""#)
    }

    @Test func aJobThatNeedsNothingWithOutputsIsAnError() {
        #expect(errors("""
            jobs:
              first: "true"
              lonely:
                run: cc ${needs.outputs}
              linked:
                needs: [first]
                run: cc ${needs.outputs}
            """) == [
            "3:3 job 'lonely': '${needs.outputs}' names no file: the job needs no job",
            "5:3 job 'linked': '${needs.outputs}' names no file: the jobs it names declare no 'outputs'",
        ])
    }

    @Test func misusesAreErrorsAtTheirPlace() {
        #expect(errors("""
            jobs:
              compile:
                run: touch a.o
                outputs: [a.o]
              link:
                needs: [compile]
                run: cc ${needs.compil.outputs} ${needs.output}
                inputs: ["include/${needs.outputs}"]
                outputs: ["${needs.outputs}.bin"]
            """) == [
            "5:3 job 'link': '${needs.compil.outputs}' names 'compil', which is not among the jobs it needs; did you mean 'compile'?",
            "5:3 job 'link': unknown variable 'needs.output'; write ${needs.outputs} or ${needs.JOB.outputs}",
            "8:14 job 'link': 'include/${needs.outputs}': a '${needs.…}' input must stand alone, as \"${needs.outputs}\"",
            "9:15 job 'link': 'outputs' cannot use '${needs.…}'; only 'run' and 'inputs' can",
        ])
    }

    @Test(arguments: [
        ("plain/a-b_c.o", "plain/a-b_c.o"),
        ("a b", "'a b'"),
        ("it's", #"'it'\''s'"#),
        ("", "''"),
        ("$HOME/x \"q\"", #""$HOME/x \"q\"""#),
        ("a$$b`c", #""a\$b\`c""#),
    ])
    func shellQuoting(_ path: String, _ quoted: String) {
        #expect(WorkflowFile.shellQuoted(path) == quoted)
    }

    @Test func quotedPathsAreOneWordEachForTheShell() throws {
        let paths = ["a b", "it's", "tab\there", "star*", "semi;colon", "new\nline"]
        let words = try shellWords("printf '%s\\0' " + paths.map(WorkflowFile.shellQuoted).joined(separator: " "), separator: "\0")
        #expect(words == paths)
    }

    /// What `/bin/sh` prints for `command`, split at `separator`.
    private func shellWords(_ command: String, separator: Character = "\n") throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: separator, omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
