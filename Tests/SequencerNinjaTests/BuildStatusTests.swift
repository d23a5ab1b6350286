import Sequencer
import Testing

@testable import SequencerNinja

@Suite struct BuildStatusTests {
    final class Screen: Sendable {
        let bytes = Locked<[UInt8]>([])
        var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
    }

    func status(smart: Bool, format: String = "[%f/%t] ", verbosity: BuildStatus.Verbosity = .normal) throws -> (BuildStatus, Screen) {
        let screen = Screen()
        let printer = LinePrinter(
            isSmartTerminal: smart, supportsColor: smart, write: { bytes in screen.bytes.withLock { $0 += bytes } }, width: { 20 })
        return (BuildStatus(printer: printer, format: try StatusFormat(format), verbosity: verbosity, parallelism: 2), screen)
    }

    @Test func everyPlaceholderIsRendered() throws {
        let format = try StatusFormat("%s/%t %r %u %f %p %% ")
        var counts = StatusFormat.Counts()
        counts.started = 3
        counts.total = 8
        counts.running = 2
        counts.finished = 1
        #expect(format.render(counts) == "3/8 2 5 1  12% % ")
        #expect(throws: StatusFormat.UnknownPlaceholder(placeholder: "z")) { try StatusFormat("[%z]") }
        #expect(StatusFormat.fixed(1.25, decimals: 3) == "1.250")
    }

    @Test func aDumbTerminalGetsALinePerFinishedEdge() throws {
        let (status, screen) = try status(smart: false)
        status.planHasTotal(2)
        status.edgeStarted(description: "CC a", command: "cc a", console: false)
        status.edgeFinished(description: "CC a", command: "cc a", outputs: ["a.o"], success: true, output: [], console: false)
        status.edgeStarted(description: "", command: "cc b", console: false)
        status.edgeFinished(description: "", command: "cc b", outputs: ["b.o"], success: false, output: Array("\u{1B}[1merror\u{1B}[0m\n".utf8), console: false)
        status.buildFinished()
        #expect(screen.text == "[1/2] CC a\n[2/2] cc b\nFAILED: b.o \ncc b\nerror\n")
    }

    @Test func aSmartTerminalOverwritesOneElidedLine() throws {
        let (status, screen) = try status(smart: true)
        status.planHasTotal(1)
        status.edgeStarted(description: "a very long description indeed", command: "x", console: false)
        status.edgeFinished(description: "a very long description indeed", command: "x", outputs: ["o"], success: true, output: Array("hi\n".utf8), console: false)
        status.buildFinished()
        #expect(screen.text == "\r[0/1] a ...n indeed\u{1B}[K\r[1/1] a ...n indeed\u{1B}[K\nhi\n")
    }

    @Test func theConsoleHoldsBackOtherOutputUntilItEnds() throws {
        let (status, screen) = try status(smart: false)
        status.planHasTotal(2)
        status.edgeStarted(description: "console", command: "c", console: true)
        status.edgeStarted(description: "other", command: "o", console: false)
        status.edgeFinished(description: "other", command: "o", outputs: ["o"], success: true, output: Array("other output\n".utf8), console: false)
        let during = screen.text
        status.edgeFinished(description: "console", command: "c", outputs: ["c"], success: true, output: [], console: true)
        #expect(during == "[0/2] console\n")
        #expect(screen.text == "[0/2] console\n[1/2] other\nother output\n")
    }

    @Test func elidingKeepsBothEnds() {
        #expect(LinePrinter.elideMiddle("abcdefghij", width: 9) == "abc...hij")
        #expect(LinePrinter.elideMiddle("short", width: 9) == "short")
        #expect(LinePrinter.elideMiddle("abcdef", width: 2) == "..")
    }
}
