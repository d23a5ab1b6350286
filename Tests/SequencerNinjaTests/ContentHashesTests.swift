import Foundation
import SequencerTestHelpers
import Synchronization
import Testing

@testable import SequencerNinja

/// ``BuildStateStore``'s content hashes: read once with the shared cache's keys, and a thin
/// archive always with its members.
@Suite struct ContentHashesTests {
    let files: TemporaryDirectory

    init() throws {
        files = try TemporaryDirectory(prefix: "hashes")
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = files.path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aDigestReadsBackFromItsHexDigits() throws {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(Digest(hex: abc) == Digest.of(Array("abc".utf8)))
        #expect(Digest(hex: abc.uppercased()) == Digest.of(Array("abc".utf8)))
        #expect(Digest(hex: String(abc.dropLast())) == nil)
        #expect(Digest(hex: String(abc.dropLast()) + "g") == nil)
    }

    @Test func aFileIsHashedByTheSharedReaderWhenThereIsOne() throws {
        let path = try write("a.h", Array("int a;\n".utf8))
        let asked = Mutex<[String]>([])
        let answer = Digest(7, 7, 7, 7)
        let store = BuildStateStore(state: BuildState(), writer: nil, shared: { path in
            asked.withLock { $0.append(path) }
            return answer
        })
        #expect(store.digest(path) == answer)
        #expect(asked.withLock { $0 } == [path])
        // Without one, the store reads the bytes itself.
        #expect(BuildStateStore(state: BuildState(), writer: nil).digest(path) == Digest.of(Array("int a;\n".utf8)))
    }

    @Test func aThinArchiveIsHashedWithItsMembersWhateverTheSharedReaderSays() throws {
        let member = try write("m.o", Array("first".utf8))
        let name = "m.o"
        var archive = Array("!<thin>\n".utf8)
        let header = name + "/" + String(repeating: " ", count: 16 - name.count - 1) + String(repeating: " ", count: 32)
            + String(0).padding(toLength: 10, withPad: " ", startingAt: 0) + "`\n"
        archive += Array(header.utf8)
        let path = try write("lib.a", archive)
        let shared: @Sendable (String) -> Digest? = { _ in Digest(7, 7, 7, 7) }
        let before = BuildStateStore(state: BuildState(), writer: nil, shared: shared).digest(path)
        #expect(before != Digest(7, 7, 7, 7))
        try Data("second".utf8).write(to: URL(fileURLWithPath: member))
        let after = BuildStateStore(state: BuildState(), writer: nil, shared: shared).digest(path)
        #expect(before != after, "a member's new bytes change the archive's hash")
    }
}
