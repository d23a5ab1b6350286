import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing
@testable import SequencerWorkflowFile

private typealias SourceLocation = SequencerWorkflowFile.SourceLocation

/// Templates, `vars` and includes, read from files in a directory of their own.
@Suite struct TemplateFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "sequencer-templates")
        for name in ["src/main.c", "src/vector.c", "src/test_vector.c", "lib/util.c", "src/vector.h"] {
            _ = try directory.write(name, "// \(name)\n")
        }
    }

    private func parse(_ text: String, name: String = "sequencer.yml") throws(WorkflowFileError) -> WorkflowFile {
        try WorkflowFile.parse(text, path: directory.file(name))
    }

    private func errors(_ text: String) -> [String] {
        parseErrors(text, path: directory.file("sequencer.yml"))
    }

    @Test func aTemplateOverFilesMakesAJobPerFileAndAFamily() throws {
        let file = try parse("""
            vars:
              cflags: -O2
              build: out
            jobs:
              compile-${stem}:
                for: { files: ["src/*.c", "lib/*.c"], exclude: "src/test_*.c" }
                run: cc ${cflags} -c ${item} -o ${build}/${stem}.o
                inputs: ["${item}", "${dir}/*.h"]
                outputs: ["${build}/${stem}.${ext}.o"]
                depfile: ${build}/${file}.d
              link:
                needs: [compile-*]
                run: cc ${build}/*.o -o app
            """)
        #expect(file.jobs.map(\.name) == ["compile-main", "compile-vector", "compile-util", "link"])
        let vector = try #require(file.job(named: "compile-vector"))
        #expect(vector.run == "cc -O2 -c src/vector.c -o out/vector.o")
        #expect(vector.inputs == ["src/vector.c", "src/*.h"])
        #expect(vector.outputs == ["out/vector.c.o"])
        #expect(vector.depfile?.path == "out/vector.c.d")
        #expect(vector.location == SourceLocation(line: 5, column: 3))
        #expect(vector.inputEntries[0].location == SourceLocation(line: 8, column: 14))
        #expect(file.job(named: "link")?.needs.map(\.name) == ["compile-main", "compile-vector", "compile-util"])
        #expect(file.job(named: "link")?.needs.allSatisfy { $0.location == SourceLocation(line: 12, column: 13) } == true)
        #expect(file.listings == [WorkflowFile.FileListing(
            patterns: ["src/*.c", "lib/*.c"], excluded: ["src/test_*.c"], files: ["src/main.c", "src/vector.c", "lib/util.c"])])
        #expect(file.warnings.isEmpty)
        #expect(file.listingsAreCurrent())
        _ = try directory.write("src/new.c", "")
        #expect(!file.listingsAreCurrent())
    }

    @Test func aTemplateOverAListAndPerItemNeeds() throws {
        let file = try parse("""
            jobs:
              gen-${item}:
                for: [debug, release]
                run: ./gen ${item}
              build-${item}:
                for: [debug, release]
                needs: ["gen-${item}"]
                run: make ${item}
                env: { MODE: "${item}" }
            """)
        #expect(file.jobs.map(\.name) == ["gen-debug", "gen-release", "build-debug", "build-release"])
        #expect(file.job(named: "build-release")?.needs.map(\.name) == ["gen-release"])
        #expect(file.job(named: "build-release")?.environment == ["MODE": "release"])
    }

    @Test func variablesOfTheShellAndEscapes() throws {
        let file = try parse("""
            vars:
              base: /opt
              prefix: ${base}/app
            env:
              CC: clang
            jobs:
              a:
                run: $CC ${CC} ${TOOL} $${HOME} ${prefix} ${HOME:-x}
                env: { TOOL: "${base}/tool" }
                cwd: ${prefix}
            """)
        let job = try #require(file.job(named: "a"))
        #expect(job.run == "$CC ${CC} ${TOOL} ${HOME} /opt/app ${HOME:-x}")
        #expect(job.environment == ["TOOL": "/opt/tool"])
        #expect(job.workingDirectory == "/opt/app")
    }

    @Test func badVariablesAreErrorsWhereTheyAre() {
        #expect(errors("""
            vars:
              item: x
              9lives: y
              cflags: ${later}
              later: z
            jobs:
              a:
                run: echo ${HOME} ${cflgs}
              b: echo ${stem}
            """) == [
            "2:9 'vars': 'item' is a template's name (${item})",
            "3:11 'vars': '9lives' is not a name: use letters, digits and '_', starting with a letter or '_'",
            "4:11 'vars': 'cflags': unknown variable 'later'; declare it under 'vars' (for the shell's variable, write $later or $${later})",
            "8:15 'run' of job 'a': unknown variable 'HOME'; declare it under 'vars' (for the shell's variable, write $HOME or $${HOME})",
            "9:11 the command of job 'b': '${stem}' is defined only in a template (a job with 'for')",
        ])
    }

    @Test func errorsInATemplateAreAtItsLinesAndNameTheItem() {
        #expect(errors("""
            jobs:
              compile-${stem}:
                for: { files: "src/*.c" }
                run: cc ${cflags} -c ${item}
                timeout: soon
                needs: ["gen-${stem}"]
              gen-main: ./gen
            """) == [
            "4:13 'run' of job 'compile-${stem}': unknown variable 'cflags'; declare it under 'vars' (for the shell's variable, write $cflags or $${cflags}) (in template 'compile-${stem}', for item 'src/main.c')",
            "5:14 'timeout' of job 'compile-${stem}': bad duration 'soon': expected a number at 's'; write durations like 10s, 500ms or 1h30m (in template 'compile-${stem}', for item 'src/main.c')",
            "6:13 job 'compile-test_vector' needs 'gen-test_vector', which is not a job (in template 'compile-${stem}', for item 'src/test_vector.c')",
            "6:13 job 'compile-vector' needs 'gen-vector', which is not a job (in template 'compile-${stem}', for item 'src/vector.c')",
        ])
    }

    @Test func namesThatCollideAreErrorsNamingBothItems() {
        #expect(errors("""
            jobs:
              compile-${stem}:
                for: { files: ["src/main.c", "lib/*.c", "src/*.c"] }
                run: cc -c ${item}
              compile-util: echo
              fixed:
                for: [a, b]
                run: echo ${item}
              bad-${item}:
                for: [x/y.c]
                run: echo
            """) == [
            "5:3 duplicate job 'compile-util'",
            "6:3 job 'fixed' has 'for' but its name uses none of its items; name it like 'fixed-${stem}' or 'fixed-${id}', so that each item makes a job of its own",
            "9:3 job 'bad-${item}' (named 'bad-x/y.c'): a job name cannot be empty or contain '/', '#' or spaces (in template 'bad-${item}', for item 'x/y.c')",
        ])
        #expect(errors("""
            jobs:
              compile-${stem}:
                for: { files: ["src/*.c", "lib/*.c"] }
                run: cc -c ${item}
              test-${ext}:
                for: [a.c, b.c]
                run: echo
            """) == [
            "5:3 template 'test-${ext}' makes two jobs named 'test-c', for item 'a.c' and for item 'b.c'; use a substitution that tells them apart, such as ${id} (the path without its extension, '/' as '-')",
        ])
    }

    /// `${id}` tells apart files of one stem in two directories; each file is its job's input
    /// without `inputs` naming it.
    @Test func idsTellDirectoriesApartAndEachFileIsAnInput() throws {
        try directory.write("lib/main.c", "")
        let file = try parse("""
            jobs:
              compile-${id}:
                for: { files: ["src/main.c", "lib/*.c"] }
                run: cc -c ${item}
                inputs: [include/common.h]
                outputs: ["out/${id}.o"]
            """)
        #expect(file.jobs.map(\.name) == ["compile-src-main", "compile-lib-main", "compile-lib-util"])
        #expect(file.jobs[1].inputs == ["lib/main.c", "include/common.h"])
        #expect(file.jobs[1].inputEntries[0].location == SourceLocation(line: 3, column: 10))
        #expect(file.jobs[1].outputs == ["out/lib-main.o"])
    }

    @Test func anEmptyTemplateAndItsFamilyAreWarnings() throws {
        let file = try parse("""
            jobs:
              doc-${stem}:
                for: { files: "docs/*.md" }
                run: pandoc ${item}
              site:
                needs: [doc-*]
                run: echo site
            """)
        #expect(file.jobs.map(\.name) == ["site"])
        #expect(file.jobs[0].needs.isEmpty)
        #expect(file.warnings.map { "\($0.severity) \($0.location) \($0.message)" } == [
            "warning 3:10 template 'doc-${stem}' makes no jobs: 'docs/*.md' matches no file",
            "warning 6:13 job 'site' needs 'doc-*', which matches no job: template 'doc-${stem}' makes none",
        ])
        #expect(errors("jobs:\n  a:\n    needs: [nope-*]\n    run: echo\n") == ["3:13 job 'a' needs 'nope-*', which matches no job"])
    }

    /// A typo in `exclude` used to be silent: the file meant to be left out was compiled.
    @Test func anExcludeThatExcludesNothingIsAWarningAtThePattern() throws {
        let file = try parse("""
            jobs:
              compile-${stem}:
                for: { files: "src/*.c", exclude: ["src/tset_*.c", "src/test_*.c"] }
                run: cc -c ${item}
            """)
        #expect(file.jobs.map(\.name) == ["compile-main", "compile-vector"])
        #expect(file.warnings.map { "\($0.severity) \($0.location) \($0.message)" } == [
            "warning 3:40 template 'compile-${stem}' excludes nothing with 'src/tset_*.c': it matches none of the files 'src/*.c' match",
        ])
        // An exclude that excludes something, and one of a template with no file (its own
        // warning says so), are not warned about.
        let quiet = try parse("""
            jobs:
              compile-${stem}:
                for: { files: "src/*.c", exclude: "src/test_*.c" }
                run: cc -c ${item}
              doc-${stem}:
                for: { files: "docs/*.md", exclude: "docs/draft.md" }
                run: pandoc ${item}
            """)
        #expect(quiet.warnings.map(\.message) == ["template 'doc-${stem}' makes no jobs: 'docs/*.md' matches no file"])
    }

    @Test func malformedForIsAnError() {
        #expect(errors("jobs:\n  a-${item}:\n    for: src/*.c\n    run: echo\n")
            == ["3:10 'for' of job 'a-${item}' must be a list of items or '{ files: PATTERN }', found 'src/*.c'"])
        #expect(errors("jobs:\n  a-${item}:\n    for: { exclude: x }\n    run: echo\n")
            == ["3:10 'for' of job 'a-${item}' needs 'files' (a pattern such as \"src/*.c\", or a list of them)"])
        #expect(errors("jobs:\n  a:\n    inputs: [${item}]\n    run: echo\n")
            == ["3:14 '${' inside '[ ]' or '{ }' must be in quotes: write \"…${name}…\", or put the list's items on lines of their own ('- …')"])
    }

    @Test func includesMergeFilesAndPointIntoThem() throws {
        _ = try directory.write("common.yml", """
            vars:
              cflags: -O0
              shared: yes
            lanes:
              cpu: 2
            jobs:
              prepare: mkdir -p out
            """)
        _ = try directory.write("more/tools.yml", "include: [../common.yml]\njobs:\n  tools:\n    needs: [prepare]\n    run: echo ${shared}\n")
        let file = try parse("""
            include: [common.yml, more/tools.yml]
            vars:
              cflags: -O2
            jobs:
              build:
                needs: [tools]
                run: cc ${cflags}
                lane: cpu
            """)
        #expect(file.jobs.map(\.name) == ["prepare", "tools", "build"])
        #expect(file.job(named: "build")?.run == "cc -O2")
        #expect(file.job(named: "tools")?.run == "echo yes")
        #expect(file.job(named: "tools")?.definedIn == directory.file("more/tools.yml"))
        #expect(file.includes == [directory.file("common.yml"), directory.file("more/tools.yml")])
        #expect(file.lanes.map(\.name) == ["cpu"])
    }

    @Test func includeProblemsPointIntoTheRightFile() throws {
        _ = try directory.write("a.yml", "include: [b.yml]\njobs:\n  a: echo\n")
        _ = try directory.write("b.yml", "include: [a.yml]\nlanes:\n  cpu: 1\njobs:\n  build:\n    run: echo\n    neds: [x]\n")
        do {
            _ = try parse("include: [a.yml, missing.yml]\nlanes:\n  cpu: 2\njobs:\n  build: echo\n")
            Issue.record("the file should not load")
        } catch {
            #expect(error.diagnostics.map { "\(($0.file as NSString).lastPathComponent):\($0.location) \($0.message)" } == [
                "b.yml:1:11 include cycle: a.yml -> b.yml -> a.yml",
                "b.yml:7:5 unknown key 'neds' in job 'build'; did you mean 'needs'?",
                "sequencer.yml:1:18 cannot include 'missing.yml': no such file",
                "sequencer.yml:3:3 duplicate lane 'cpu'",
                "sequencer.yml:5:3 duplicate job 'build'",
            ])
            #expect(error.diagnostics.last?.notes.map { "\(($0.file as NSString).lastPathComponent):\($0.location)" } == ["b.yml:5:3"])
        }
    }

    @Test func aFileOfIncludesNeedsJobsSomewhere() throws {
        _ = try directory.write("jobs.yml", "jobs:\n  a: echo\n")
        _ = try directory.write("nothing.yml", "vars:\n  x: y\n")
        #expect(try parse("include: jobs.yml\n").jobs.map(\.name) == ["a"])
        #expect(errors("include: nothing.yml\n") == ["1:1 the workflow has no jobs, here or in the files it includes"])
    }

    @Test func theCompiledFormKeepsWhatTemplatesAndIncludesAdd() throws {
        _ = try directory.write("common.yml", "jobs:\n  prepare: echo\n")
        let file = try parse("""
            include: [common.yml]
            jobs:
              compile-${stem}:
                for: { files: "src/*.c", exclude: ["src/test_*"] }
                run: cc -c ${item}
                outputs: ["out/${stem}.o"]
                depfile: out/${stem}.d
              doc-${stem}:
                for: { files: "docs/*" }
                run: echo
            """)
        let copy = try #require(WorkflowFile(compiled: file.compiled(), path: file.path))
        #expect(copy.includes == file.includes && copy.listings == file.listings && copy.warnings == file.warnings)
        #expect(copy.warnings.count == 1)
        #expect(copy.jobs.map(\.depfile) == file.jobs.map(\.depfile))
        #expect(copy.jobs.map(\.definedIn) == file.jobs.map(\.definedIn))
        #expect(copy.jobs.first?.definedIn == directory.file("common.yml"))
    }
}
