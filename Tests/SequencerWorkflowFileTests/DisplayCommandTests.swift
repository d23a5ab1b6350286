import Foundation
@testable import SequencerWorkflowFile
import Testing

@Suite struct DisplayCommandTests {
    private static let environment = ["CC": "cc", "CFLAGS": "-O2 -g", "OUT": "a.o", "EMPTY": "", "X": "ex"]

    @Test("variables are replaced where sh replaces them, other forms stay as written", arguments: [
        ("$CC $CFLAGS -c x.c", "cc -O2 -g -c x.c"),
        ("${CC} -o ${OUT}", "cc -o a.o"),
        ("${CC}x $CC-x $CC.c $CC/x", "ccx cc-x cc.c cc/x"),
        ("$CCx", ""),
        ("echo $UNSET-done [$EMPTY]", "echo -done []"),
        (#"echo "$CC $OUT""#, #"echo "cc a.o""#),
        (#"echo "it's $CC""#, #"echo "it's cc""#),
        ("echo '$CC' '${CC}' $CC", "echo '$CC' '${CC}' cc"),
        (#"echo \$CC \\$CC "\$CC" "\"$CC\"""#, #"echo \$CC \\cc "\$CC" "\"cc\"""#),
        ("echo $(echo $CC) `echo $CC` $((1 + $X)) $CC", "echo $(echo $CC) `echo $CC` $((1 + $X)) cc"),
        ("echo $(echo \")\" $CC) $CC", "echo $(echo \")\" $CC) cc"),
        ("echo ${CC:-gcc} ${#CC} ${OUT%.o} ${CC", "echo ${CC:-gcc} ${#CC} ${OUT%.o} ${CC"),
        ("echo $1 $? $$ $! $@ $* $# $- $0 $$CC $10", "echo $1 $? $$ $! $@ $* $# $- $0 $$CC $10"),
        ("echo $ a$ $\"x\" $", "echo $ a$ $\"x\" $"),
        ("echo é$CC ü", "echo écc ü"),
        ("cc -c x.c # uses $CC\necho a#$CC", "cc -c x.c # uses $CC\necho a#cc"),
        ("echo '$CC", "echo '$CC"),
        ("echo \"$CC", "echo \"cc"),
        ("$CC -c a.c\n$CC -c b.c", "cc -c a.c\ncc -c b.c"),
    ])
    func expansion(script: String, expected: String) {
        #expect(DisplayCommand.text(of: script, environment: Self.environment) == expected)
    }

    @Test("variables the script sets stay as written everywhere", arguments: [
        "X=1; echo $X",
        "X=1 Y=2 cc $X",
        "export X=1; echo $X",
        "local X=1; echo ${X}",
        "for X in a b; do echo $X; done",
        "if true; then for X in a; do echo $X; done; fi",
        "while read -r X; do echo \"$X\"; done < list",
        "unset X; echo $X",
        "echo $X; X=2",
    ])
    func assignedVariables(script: String) {
        #expect(DisplayCommand.text(of: script, environment: Self.environment) == script)
    }

    @Test func onlyCommandsAndDeclarationsAssign() {
        #expect(DisplayCommand.text(of: "cc -DX=1 $X; make X=2 $CC", environment: Self.environment)
            == "cc -DX=1 ex; make X=2 cc")
    }

    /// The text matches what `sh` itself prints for the same variables, for scripts whose
    /// expansions `echo` shows.
    @Test(arguments: [
        #"echo $CC "$CFLAGS" '$OUT' \$X ${OUT} $UNSET-x"#,
        #"echo "a'b $CC" ${CC}${OUT}"#,
    ])
    func matchesTheShell(script: String) throws {
        let shown = DisplayCommand.text(of: script, environment: Self.environment)
        #expect(try shell(script) == (try shell(shown)), "\(shown)")
    }

    private func shell(_ script: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = Self.environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
