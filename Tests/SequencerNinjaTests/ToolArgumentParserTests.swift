import Testing

@testable import SequencerNinja

/// Tool flags read as glibc's getopt reads them for ninja's tools.
struct ToolArgumentParserTests {
    let parser = ToolArgumentParser(flags: ["h", "g", "r"])

    @Test func flagsMayFollowOperandsAndShareADash() {
        let result = parser.parse(["a", "-g", "b", "-rg"], commandName: "clean")
        #expect(result == .init(items: [.flag("g"), .flag("r"), .flag("g")], operands: ["a", "b"]))
    }

    @Test func doubleDashEndsFlagsAndALoneDashIsAnOperand() {
        let result = parser.parse(["-", "-g", "--", "-r", "x"], commandName: "clean")
        #expect(result == .init(items: [.flag("g")], operands: ["-", "-r", "x"]))
    }

    @Test func anUnknownFlagStopsReadingWithGetoptsComplaint() {
        let result = parser.parse(["-gz", "-r"], commandName: "clean")
        #expect(result == .init(items: [.flag("g"), .invalid(complaint: "clean: invalid option -- 'z'\n")], operands: []))
        let long = parser.parse(["--help"], commandName: "-tclean")
        #expect(long.items == [.invalid(complaint: "-tclean: invalid option -- '-'\n")])
    }

    @Test func longFlagsMayBeAbbreviated() {
        let inputs = ToolArgumentParser(flags: ["h"], longFlags: ["help": "h"])
        #expect(inputs.parse(["--help"], commandName: "inputs").items == [.flag("h")])
        #expect(inputs.parse(["--h"], commandName: "inputs").items == [.flag("h")])
        #expect(
            inputs.parse(["--helpme"], commandName: "inputs").items == [.invalid(complaint: "inputs: unrecognized option '--helpme'\n")])
        #expect(
            inputs.parse(["--he=1"], commandName: "inputs").items == [
                .invalid(complaint: "inputs: option '--help' doesn't allow an argument\n")
            ])
    }

    @Test func ambiguousLongFlags() {
        let parser = ToolArgumentParser(flags: ["a", "b"], longFlags: ["alpha": "a", "alps": "b"])
        #expect(
            parser.parse(["--alp"], commandName: "t").items == [
                .invalid(complaint: "t: option '--alp' is ambiguous; possibilities: '--alpha' '--alps'\n")
            ])
        #expect(parser.parse(["--alps"], commandName: "t").items == [.flag("b")])
    }
}
