import Foundation
import SequencerProcess
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@Suite struct ProcessShellTests {
    private static func arguments(_ script: String) -> [String] {
        ProcessCommand.shell(script, environment: [:], directory: "/").arguments
    }

    @Test("scripts of plain words run directly, split on blanks", arguments: [
        ("cc -O2 -c a.c", ["cc", "-O2", "-c", "a.c"]),
        ("make CC=gcc all", ["make", "CC=gcc", "all"]),
        ("./scripts/build.sh --out=dist/app", ["./scripts/build.sh", "--out=dist/app"]),
        ("/usr/bin/env", ["/usr/bin/env"]),
        ("rsync -a src/ user@host:/srv/x,y", ["rsync", "-a", "src/", "user@host:/srv/x,y"]),
        ("date +%Y-%m-%d", ["date", "+%Y-%m-%d"]),
        ("  ls   -l\t-a  ", ["ls", "-l", "-a"]),
        ("swift_build_2 a_b A-Z 0.9", ["swift_build_2", "a_b", "A-Z", "0.9"]),
        ("x", ["x"]),
        ("..", [".."]),
        ("true-ish", ["true-ish"]),
        ("cd-tool cd", ["cd-tool", "cd"]),
        ("ls echo exit", ["ls", "echo", "exit"]),
    ])
    func direct(script: String, words: [String]) {
        #expect(Self.arguments(script) == words)
    }

    @Test("shell syntax goes through /bin/sh -c", arguments: [
        "echo 'quoted'", "echo \"quoted\"", "echo $HOME", "echo ${HOME}", "echo `date`", "echo a\\ b",
        "ls | wc -l", "make && make install", "make || true", "sleep 1 &", "a; b", "cc > log", "cc < in",
        "cc 2>&1", "(cd x)", "ls *.c", "ls a?.c", "ls [ab].c", "ls ~", "ls ~/x", "ls # comment", "{ ls; }",
        "! ls", "ls\nls", "ls\r", "ls\u{0B}", "ls é", "ls\u{0}x", "a=b", "CC=gcc make", "=x", "", "   ", "\t",
        "ls ^x", "ls a'b", "ls a\"b",
    ])
    func throughShell(script: String) {
        #expect(Self.arguments(script) == ["/bin/sh", "-c", script])
    }

    @Test("builtins and keywords go through /bin/sh -c", arguments: [
        "cd dir", "exit 1", "export A", "set -e", "unset A", "eval x", "exec ls", "source f", ". f", ": x",
        "true", "false", "echo -e x", "printf x", "pwd", "test -f x", "kill 1", "wait", "trap x TERM",
        "if", "then", "fi", "for", "while", "until", "case", "do", "done", "umask 022", "read x", "type ls",
        "ulimit -n", "alias", "command -v ls", "hash", "shift", "times", "local x", "return", "break", "continue",
        "readonly x", "getopts a x", "jobs", "fg", "bg", "declare x", "let x", "shopt x", "time ls",
    ])
    func builtins(script: String) {
        #expect(Self.arguments(script) == ["/bin/sh", "-c", script])
    }

    @Test func environmentAndDirectoryAreKept() {
        let command = ProcessCommand.shell("ls | wc", environment: ["A": "b"], directory: "/tmp")
        #expect(command.environment == ["A": "b"])
        #expect(command.directory == "/tmp")
        #expect(ProcessCommand.shell("ls", environment: ["A": "b"], directory: "/tmp")
            == ProcessCommand(arguments: ["ls"], environment: ["A": "b"], directory: "/tmp"))
    }

    @Test("direct and shell runs give the same output and exit", arguments: [
        "/bin/echo a-b c.d e/f g,h i:j k@l m%n o+p q=r",
        "/bin/echo   spaced\t\ttabbed  ",
        "ls -1",
        "ls -1 no-such-file",
        "cat input.txt",
        "head -c 5 input.txt",
        "wc -l input.txt",
        "./script.sh one two",
        "./script.sh",
        "env",
        "sort -r input.txt",
        "grep -c line input.txt",
        "grep nothing input.txt",
    ])
    func directMatchesShell(script: String) async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        try directory.makeDirectory("work")
        try directory.write("work/input.txt", "line one\nline two\nline three\n")
        try directory.write("work/script.sh", "#!/bin/sh\necho \"$# args: $*\"\necho to-stderr >&2\nexit $#\n", permissions: 0o755)
        let work = directory.file("work")
        // The shell sets PWD when it is missing: give it, so that both environments are the same.
        let environment = ["PATH": testPath, "PWD": work, "LC_ALL": "C"]
        let direct = ProcessCommand.shell(script, environment: environment, directory: work)
        #expect(direct.arguments[0] != "/bin/sh")
        let shell = ProcessCommand(arguments: ["/bin/sh", "-c", script], environment: environment, directory: work)

        let runner = ProcessRunner()
        let directExit = try await runner.run(direct, outputPath: directory.file("direct.out"))
        let shellExit = try await runner.run(shell, outputPath: directory.file("shell.out"))
        #expect(directExit == shellExit)
        let directOutput = try #require(directory.read("direct.out"))
        let shellOutput = try #require(directory.read("shell.out"))
        if script == "env" {
            // dash passes its environment on in an order of its own.
            #expect(Set(directOutput.split(separator: "\n")) == Set(shellOutput.split(separator: "\n")))
        } else {
            #expect(directOutput == shellOutput)
        }
        #expect(!directOutput.isEmpty || script.hasPrefix("grep nothing"))
    }

    @Test func missingProgramDiffersBetweenTheWays() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-process")
        defer { directory.remove() }
        let environment = ["PATH": testPath]
        let runner = ProcessRunner()
        await #expect(throws: ProcessError.self) {
            _ = try await runner.run(.shell("no-such-program-for-sequencer x", environment: environment, directory: directory.path),
                                     outputPath: directory.file("out"))
        }
        let shell = ProcessCommand.shell("no-such-program-for-sequencer x; exit $?", environment: environment, directory: directory.path)
        #expect(try await runner.run(shell, outputPath: directory.file("out")) == .exited(127))
        #expect(directory.read("out")?.contains("not found") == true)
    }
}
