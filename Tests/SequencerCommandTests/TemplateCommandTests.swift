import Foundation
import Testing
import SequencerTestHelpers

/// Templates, includes and depfiles through the command line, with a real C compiler.
@Suite(.suiteTimeLimit)
struct TemplateCommandTests {
    static let yaml = """
        include: [common.yml]
        jobs:
          compile-${stem}:
            for: { files: "src/*.c" }
            run: ${cc} -MMD -MF build/${stem}.d -c ${item} -o build/${stem}.o
            inputs: ["${item}"]
            outputs: ["build/${stem}.o"]
            depfile: build/${stem}.d
          doc-${stem}:
            for: { files: "docs/*.md" }
            run: cp ${item} build/${file}
          link:
            needs: [compile-*, doc-*]
            run: ${cc} build/*.o -o build/app
            outputs: [build/app]
        """

    private func project() throws -> CLI {
        let cli = try CLI()
        try cli.write("common.yml", "vars:\n  cc: cc\n")
        try cli.write("src/main.c", "#include \"shared.h\"\nint main(void) { return VALUE - 7; }\n")
        try cli.write("src/util.c", "#include \"util.h\"\nint util(void) { return 1; }\n")
        try cli.write("src/shared.h", "#define VALUE 7\n")
        try cli.write("src/util.h", "int util(void);\n")
        try cli.write("sequencer.yml", Self.yaml)
        return cli
    }

    @Test func checkGraphAndRunUseTheExpandedJobs() async throws {
        let cli = try project()
        let check = try await cli.run(["check"])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.stdout.contains("3 jobs"))
        #expect(check.stderr.contains("sequencer.yml:10:10: warning: template 'doc-${stem}' makes no jobs: 'docs/*.md' matches no file"))
        #expect(check.stderr.contains("sequencer.yml:13:24: warning: job 'link' needs 'doc-*', which matches no job"))
        let graph = try await cli.run(["graph", "--format", "dot"])
        #expect(graph.stdout.contains("\"compile-main\" -> \"link\"") && graph.stdout.contains("\"compile-util\" -> \"link\""))

        let first = try await cli.run(["run", "-j2"])  // joined, as make and ninja take it
        #expect(first.status == 0, "\(first.output)")
        #expect(first.stderr.contains("warning: template 'doc-${stem}' makes no jobs"))
        // A header edit reruns the one file that includes it, and the link.
        try cli.write("src/shared.h", "#define VALUE 7 /* edited */\n")
        let edited = try await cli.run(["run", "--explain"])
        #expect(edited.status == 0, "\(edited.output)")
        #expect(edited.stdout.contains("explain: compile-main runs: input src/shared.h (from its depfile) changed"))
        #expect(!edited.stdout.contains("explain: compile-util runs"))
        #expect(edited.stdout.contains("1 up to date, 2 succeeded"))
        // A new source file is a new job, without touching the workflow file.
        try cli.write("src/extra.c", "int extra(void) { return 2; }\n")
        let grown = try await cli.run(["run", "--explain"])
        #expect(grown.stdout.contains("explain: compile-extra runs: no earlier success is recorded"), "\(grown.output)")
        #expect(grown.stdout.contains("1 up to date, 2 succeeded") == false && grown.status == 0)
    }

    @Test func includeErrorsPointIntoTheirFiles() async throws {
        let cli = try project()
        try cli.write("common.yml", "vars:\n  cc: cc\njobs:\n  link: echo twice\n")
        let result = try await cli.run(["check"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("sequencer.yml:12:3: error: duplicate job 'link'"), "\(result.stderr)")
        #expect(result.stderr.contains("common.yml:4:3: note: 'link' first defined here"), "\(result.stderr)")
    }
}
