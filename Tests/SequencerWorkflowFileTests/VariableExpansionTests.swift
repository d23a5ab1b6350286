import Testing
@testable import SequencerWorkflowFile

private typealias SourceLocation = SequencerWorkflowFile.SourceLocation

/// `$NAME`, `${NAME}` and `$$` in `inputs`, `outputs` and `cwd`.
@Suite struct VariableExpansionTests {
    static let variables = ["SRC": "lib", "NAME": "zstd", "_X1": "x", "EMPTY": "", "DOLLAR": "$HOME"]

    @Test(arguments: [
        ("plain/path.c", "plain/path.c"),
        ("$SRC/main.c", "lib/main.c"),
        ("${SRC}/main.c", "lib/main.c"),
        ("$SRC/${NAME}_lazy.c", "lib/zstd_lazy.c"),
        ("${NAME}lib", "zstdlib"),
        ("$NAME.c", "zstd.c"),
        ("$_X1-$EMPTY-", "x--"),
        ("cost$$.txt", "cost$.txt"),
        ("$$SRC", "$SRC"),
        ("$$$SRC", "$lib"),
        ("$DOLLAR/x", "$HOME/x"),   // values are not expanded again
    ])
    func expands(_ text: String, _ expected: String) throws {
        #expect(try VariableExpansion.expand(text, variables: Self.variables) == expected)
    }

    @Test(arguments: [
        ("$NOPE/x", "variable 'NOPE' is not defined"),
        ("${NOPE}", "variable 'NOPE' is not defined"),
        ("${SRC", "'${SRC' has no closing '}'"),
        ("${}", "'${' must be followed by a variable name"),
        ("${ SRC}", "'${' must be followed by a variable name"),
        ("a$", "'$' must be followed by a variable name"),
        ("$/x", "'$' must be followed by a variable name"),
        ("$1", "'$' must be followed by a variable name"),
    ])
    func refuses(_ text: String, _ message: String) {
        #expect {
            try VariableExpansion.expand(text, variables: Self.variables)
        } throws: { error in
            (error as? VariableExpansion.Failure)?.message.contains(message) == true
        }
    }

    static let file = """
        env: { SRC: from-file, OUT: out }
        jobs:
          a:
            run: true
            env: { OUT: job-out }
            cwd: $SRC/sub
            inputs: [$SRC/in.txt, "${HOME}/x", "$$literal"]
            outputs: [$OUT/a.o, $SEQUENCER_JOB.stamp]
          b:
            run: true
            inputs: [$OUT/a.o, $FROM_ENVIRONMENT]
        """

    @Test func jobsSeeTheEnvironmentThenTheFilesEnvThenTheirOwn() throws {
        let file = try WorkflowFile.parse(Self.file, path: "/w/build.yml")
            .expandingVariables(environment: ["SRC": "from-environment", "HOME": "/home/me", "FROM_ENVIRONMENT": "e.txt"])
        #expect(file.jobs[0].workingDirectory == "from-file/sub")
        #expect(file.jobs[0].inputs == ["from-file/in.txt", "/home/me/x", "$literal"])
        #expect(file.jobs[0].outputs == ["job-out/a.o", "a.stamp"])
        #expect(file.jobs[1].inputs == ["out/a.o", "e.txt"])
        // Locations stay where the paths are written.
        #expect(file.jobs[0].inputEntries.map(\.location) == [
            SourceLocation(line: 7, column: 14), SourceLocation(line: 7, column: 27), SourceLocation(line: 7, column: 40),
        ])
    }

    @Test func everyUndefinedVariableIsAnErrorAtItsPath() throws {
        let file = try WorkflowFile.parse(Self.file, path: "build.yml")
        #expect {
            try file.expandingVariables(environment: [:])
        } throws: { error in
            let lines = (error as? WorkflowFileError)?.description.split(separator: "\n") ?? []
            return lines == [
                "build.yml:7:27: error: job 'a': input '${HOME}/x': variable 'HOME' is not defined (in the environment or under 'env')",
                "build.yml:11:24: error: job 'b': input '$FROM_ENVIRONMENT': variable 'FROM_ENVIRONMENT' is not defined (in the environment or under 'env')",
            ]
        }
    }

    @Test func aFileWithoutVariablesIsUnchanged() throws {
        let file = try WorkflowFile.parse("jobs:\n  a: { run: true, inputs: [x], outputs: [y], cwd: d }\n", path: "build.yml")
        let expanded = try file.expandingVariables(environment: [:])
        #expect(expanded.jobs[0].inputEntries == file.jobs[0].inputEntries)
        #expect(expanded.jobs[0].workingDirectory == "d")
    }
}
