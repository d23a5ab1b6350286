import Testing
@testable import SequencerWorkflowFile

/// `${name}` in the strings of a workflow file, as a pure function.
@Suite struct SubstitutionTests {
    let substitution = Substitution(values: ["cflags": "-O2 -Wall", "stem": "main", "dollar": "$x"], shellNames: ["CC"])

    @Test(arguments: [
        ("cc ${cflags} -c ${stem}.c", "cc -O2 -Wall -c main.c"),
        ("no variables", "no variables"),
        // The environment is the shell's: `$NAME`, `${NAME}` of the job's env, and the shell's own forms.
        ("$CC ${CC} $HOME ${HOME:-/} ${#PATH} $1 $$", "$CC ${CC} $HOME ${HOME:-/} ${#PATH} $1 $$"),
        // `$${` writes a `${`; a value is not expanded again.
        ("echo $${stem} ${dollar}", "echo ${stem} $x"),
        // A `$` at the end, an unclosed brace: not a name, left alone.
        ("cost: 5$", "cost: 5$"),
        ("${stem", "${stem"),
        ("é${stem}é", "émainé"),
    ])
    func commands(_ text: String, _ expected: String) throws {
        #expect(try substitution.apply(text, in: .command) == expected)
    }

    @Test(arguments: [
        ("build/${stem}.o", "build/main.o"),
        // Unknown names and `$$` are left for the environment's expansion.
        ("$SRC/${SRC}/${stem}.c", "$SRC/${SRC}/main.c"),
        ("$${stem}", "$${stem}"),
    ])
    func paths(_ text: String, _ expected: String) throws {
        #expect(try substitution.apply(text, in: .path) == expected)
    }

    @Test(arguments: [
        ("echo ${cflag}", 5, "unknown variable 'cflag'; did you mean 'cflags'? (for the shell's variable, write $cflag or $${cflag})"),
        ("a é ${HOME}", 4, "unknown variable 'HOME'; declare it under 'vars' (for the shell's variable, write $HOME or $${HOME})"),
        ("${item}", 0, "'${item}' is defined only in a template (a job with 'for')"),
    ])
    func unknownNamesInCommands(_ text: String, _ offset: Int, _ message: String) {
        #expect(throws: Substitution.Failure(message: message, offset: offset)) {
            try substitution.apply(text, in: .command)
        }
    }

    @Test func names() {
        #expect(Substitution.isName("cflags") && Substitution.isName("_x9") && Substitution.isName("A"))
        #expect(!Substitution.isName("") && !Substitution.isName("9a") && !Substitution.isName("a-b") && !Substitution.isName("é"))
    }

    @Test(arguments: [
        ("src/lib/zstd.c", ["item": "src/lib/zstd.c", "file": "zstd.c", "stem": "zstd", "dir": "src/lib", "ext": "c"]),
        ("main.c", ["item": "main.c", "file": "main.c", "stem": "main", "dir": ".", "ext": "c"]),
        ("a/archive.tar.gz", ["item": "a/archive.tar.gz", "file": "archive.tar.gz", "stem": "archive.tar", "dir": "a", "ext": "gz"]),
        ("conf/.profile", ["item": "conf/.profile", "file": ".profile", "stem": ".profile", "dir": "conf", "ext": ""]),
        ("release", ["item": "release", "file": "release", "stem": "release", "dir": ".", "ext": ""]),
        ("/a.c", ["item": "/a.c", "file": "a.c", "stem": "a", "dir": "/", "ext": "c"]),
    ])
    func templateValues(_ item: String, _ expected: [String: String]) {
        #expect(WorkflowFile.templateValues(of: item) == expected)
    }

    @Test func familiesMatchTemplateNames() {
        #expect(WorkflowFile.family("compile-${stem}", matches: "compile-*"))
        #expect(WorkflowFile.family("test-${dir}-${stem}", matches: "test-*"))
        #expect(!WorkflowFile.family("compile-${stem}", matches: "link-*"))
    }
}
