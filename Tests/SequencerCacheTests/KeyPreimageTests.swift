import Foundation
import SequencerCache
import Testing

/// A key is the digest of its entries: the same entries in any order give one key, any change
/// gives another, and the first difference is said in words.
@Suite struct KeyPreimageTests {
    private let digestA = CacheDigest.of(Data("a".utf8)).hex
    private let digestB = CacheDigest.of(Data("b".utf8)).hex

    private func preimage(command: String = "cc -c a.c", input: String? = nil, environment: [String: String] = [:]) -> KeyPreimage {
        var entries = [
            KeyPreimage.Entry(.format, KeyPreimage.format), KeyPreimage.Entry(.command, command),
            KeyPreimage.Entry(.input, "a.c", input ?? digestA), KeyPreimage.Entry(.output, "a.o", ""),
        ]
        for (name, value) in environment { entries.append(KeyPreimage.Entry(.environment, name, value)) }
        return KeyPreimage(entries)
    }

    @Test func theSameEntriesInAnyOrderGiveOneKey() {
        let one = preimage(environment: ["CC": "gcc", "LANG": "C"])
        let other = KeyPreimage(one.entries.reversed())
        #expect(one.digest == other.digest && one == other)
        #expect(one.entries.map(\.kind) == [.format, .command, .environment, .environment, .input, .output])
    }

    @Test func anyChangeGivesAnotherKey() {
        let base = preimage()
        #expect(preimage(command: "cc -O2 -c a.c").digest != base.digest)
        #expect(preimage(input: digestB).digest != base.digest)
        #expect(preimage(environment: ["CC": "gcc"]).digest != base.digest)
        #expect(KeyPreimage(base.entries + [KeyPreimage.Entry(.timeout, "10")]).digest != base.digest)
    }

    /// Each field is hashed with its length: moving a character from one field to the next
    /// cannot give the same bytes.
    @Test func fieldsCannotRunIntoEachOther() {
        let one = KeyPreimage([KeyPreimage.Entry(.environment, "AB", "C")])
        let other = KeyPreimage([KeyPreimage.Entry(.environment, "A", "BC")])
        #expect(one.digest != other.digest)
    }

    @Test func theFirstDifferenceIsSaidInTheOrderOfKinds() {
        let stored = preimage(environment: ["CC": "gcc"])
        #expect(stored.firstDifference(from: stored) == nil)
        // The command comes before the inputs: it is the one said.
        #expect(preimage(command: "cc -O2 -c a.c", input: digestB, environment: ["CC": "gcc"]).firstDifference(from: stored) == "its command differs")
        #expect(preimage(input: digestB, environment: ["CC": "gcc"]).firstDifference(from: stored) == "input a.c differs")
        #expect(preimage(environment: ["CC": "clang"]).firstDifference(from: stored) == "environment variable CC differs (clang here)")
        #expect(preimage().firstDifference(from: stored) == "environment variable CC is not set here")
        #expect(preimage(environment: ["CC": "gcc", "X": "1"]).firstDifference(from: stored) == "environment variable X is set here, not there")
        let moreInputs = KeyPreimage(stored.entries + [KeyPreimage.Entry(.discovered, "a.h", digestA)])
        #expect(moreInputs.firstDifference(from: stored) == "a.h (found by its depfile) is a new input")
        let tool = KeyPreimage(stored.entries + [KeyPreimage.Entry(.tool, "cc", digestA)])
        let otherTool = KeyPreimage(stored.entries + [KeyPreimage.Entry(.tool, "cc", digestB)])
        #expect(tool.firstDifference(from: otherTool) == "the tool 'cc' differs (\(String(digestB.prefix(12))) there, \(String(digestA.prefix(12))) here)")
    }

    @Test func aPreimageSurvivesJSON() throws {
        let one = preimage(environment: ["CC": "gcc"])
        let decoded = try JSONDecoder().decode(KeyPreimage.self, from: JSONEncoder().encode(one))
        #expect(decoded == one && decoded.digest == one.digest)
    }

    @Test func aDigestIsSixtyFourLowercaseHexDigits() throws {
        #expect(CacheDigest(hex: digestA)?.hex == digestA)
        #expect(CacheDigest(hex: digestA.uppercased()) == nil)
        #expect(CacheDigest(hex: String(digestA.dropLast())) == nil)
        #expect(CacheDigest(hex: "../" + String(digestA.dropFirst(3))) == nil)
        // The SHA-256 of the empty string, as every implementation has it.
        #expect(CacheDigest.of(Data()).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CacheDigest.self, from: Data("\"zz\"".utf8)) }
    }
}

/// Two checkouts of one project at different absolute paths write their paths alike.
@Suite struct ProjectRootTests {
    @Test func pathsUnderTheRootAreWrittenRelative() {
        let root = ProjectRoot("/home/ada/project/")
        #expect(root.path == "/home/ada/project")
        #expect(root.relative("/home/ada/project/src/a.c") == "src/a.c")
        #expect(root.relative("/home/ada/project") == ".")
        #expect(root.relative("/home/ada/project/src/../include/a.h") == "include/a.h")
        #expect(root.relative("/usr/include/stdio.h") == "/usr/include/stdio.h")
        #expect(root.relative("/home/ada/project2/a.c") == "/home/ada/project2/a.c")
        #expect(root.relative("src/a.c") == "src/a.c")
    }

    @Test func commandLinesOfTwoCheckoutsBecomeTheSame() {
        let ada = ProjectRoot("/home/ada/project"), bob = ProjectRoot("/srv/ci/build-17/project")
        let command = "cc -I{ROOT}/include -o {ROOT}/out/a.o -c {ROOT}/src/a.c && cd {ROOT}; echo '{ROOT}'"
        let adas = ada.relativeText(command.replacingOccurrences(of: "{ROOT}", with: ada.path))
        let bobs = bob.relativeText(command.replacingOccurrences(of: "{ROOT}", with: bob.path))
        #expect(adas == bobs)
        #expect(adas == "cc -Iinclude -o out/a.o -c src/a.c && cd .; echo '.'")
        // A longer name that only starts like the root is another directory.
        #expect(ada.relativeText("ls /home/ada/project2/x /home/ada/project.old") == "ls /home/ada/project2/x /home/ada/project.old")
        #expect(ProjectRoot("/").relativeText("cc /a.c") == "cc /a.c")
    }
}
