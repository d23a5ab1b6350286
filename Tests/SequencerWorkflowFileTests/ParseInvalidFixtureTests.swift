import Foundation
import Testing
@testable import SequencerWorkflowFile

/// Every file under `Fixtures/invalid/` fails to load with exactly the errors its header lists.
@Suite struct ParseInvalidFixtureTests {
    @Test func theCorpusIsLargeAndNamedInOrder() throws {
        let names = Fixtures.names(in: "invalid")
        #expect(names.count >= 40)
        var numbers: Set<Int> = []
        for name in names {
            let parts = name.split(separator: "-", maxSplits: 1)
            let number = try #require(parts.count == 2 && parts[0].count == 2 ? Int(parts[0]) : nil,
                                      "\(name) is not named NN-short-name.yml")
            #expect(numbers.insert(number).inserted, "two fixtures are numbered \(number)")
        }
    }

    @Test(arguments: Fixtures.names(in: "invalid"))
    func reportsWhatTheHeaderExpects(_ name: String) throws {
        let path = Fixtures.path("invalid", name)
        let expected = try Fixtures.headerless[name] ?? Fixtures.expectations(inFileAt: path)
        try #require(!expected.isEmpty, "\(name) has no '# expect:' lines")
        let errors = Fixtures.diagnostics(ofFileAt: path)
        #expect(errors.allSatisfy { $0.severity == .error && $0.file == path })
        #expect(errors.allSatisfy { $0.notes.allSatisfy { $0.severity == .note } })
        let matches = errors.count == expected.count && zip(expected, errors).allSatisfy { $0.matches($1) }
        #expect(matches, """
            \(name): expected
            \(expected.map { "  \($0)" }.joined(separator: "\n"))
            got
            \(errors.map { "  \($0.location) \($0.message)" + $0.notes.map { "\n    note: \($0.location) \($0.message)" }.joined() }.joined(separator: "\n"))
            """)
        // The order is the file's, and the description is the form editors read.
        #expect(errors.map(\.location) == errors.map(\.location).sorted())
        for error in errors {
            #expect(error.description.hasPrefix("\(path):\(error.location.line):\(error.location.column): error: "))
        }
    }

    /// Headers are read as documented (a header that cannot be read fails, not passes).
    @Test func headerParsing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("header-\(UInt64.random(in: 0...UInt64.max)).yml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "\u{FEFF}# about\r\n# expect: 3:5 one\r\n#   note: 4:1 two\r\n# expect: 9:2 three: four\r\njobs: {}\r\n# expect: 1:1 not a header\r\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try Fixtures.expectations(inFileAt: path) == [
            .init(line: 3, column: 5, text: "one", notes: [.init(line: 4, column: 1, text: "two")]),
            .init(line: 9, column: 2, text: "three: four"),
        ])
        try "# expect: 3 missing column\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: Fixtures.HeaderError.self) { try Fixtures.expectations(inFileAt: path) }
    }
}
