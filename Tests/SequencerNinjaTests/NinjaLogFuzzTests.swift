import Foundation
import Testing

@testable import SequencerNinja

/// A small deterministic generator (SplitMix64) for the robustness tests: the same seed, the
/// same cases, so that a failure can be replayed.
struct LogFuzzRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` bytes, mostly from `alphabet`, some anything.
    mutating func bytes(_ count: Int, from alphabet: [UInt8]) -> [UInt8] {
        (0..<count).map { _ in Int.random(in: 0..<8, using: &self) == 0 ? UInt8.random(in: 0...255, using: &self) : alphabet.randomElement(using: &self) ?? 0 }
    }

    /// `bytes` with a few bytes changed, some removed or repeated, and maybe cut short.
    mutating func damaged(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        for _ in 0..<Int.random(in: 1...4, using: &self) where !result.isEmpty {
            let index = Int.random(in: 0..<result.count, using: &self)
            switch Int.random(in: 0..<3, using: &self) {
            case 0: result[index] = UInt8.random(in: 0...255, using: &self)
            case 1: result.remove(at: index)
            default: result.insert(result[index], at: index)
            }
        }
        if Bool.random(using: &self) { result = Array(result.prefix(Int.random(in: 0...result.count, using: &self))) }
        return result
    }
}

/// `.ninja_log` is a cache: no content makes reading it fail, and what reading keeps is what
/// a second reading of the repaired file keeps.
struct NinjaLogFuzzTests {
    static let alphabet = Array("0123456789abcdefx\t\t\t\n\n -#".utf8)

    static func validLog(_ random: inout LogFuzzRandom) -> [UInt8] {
        var log = NinjaBuildLog()
        for index in 0..<Int.random(in: 0...12, using: &random) {
            log.record(NinjaBuildLogEntry(
                output: "out\(Int.random(in: 0...5, using: &random))/f \(index).o", commandHash: random.next(),
                startTime: Int32.random(in: 0...100_000, using: &random), endTime: Int32.random(in: 0...100_000, using: &random),
                mtime: Int64.random(in: 0...Int64.max, using: &random)))
        }
        return log.encoded(version: Int.random(in: 4...8, using: &random))
    }

    /// What reading keeps of `bytes` reads back alike from the repaired bytes.
    static func checkRepairIsStable(_ bytes: [UInt8]) {
        let decoding = NinjaBuildLog.decode(bytes)
        let newlines = bytes.count { $0 == 0x0A }
        #expect(decoding.log.entries.count <= newlines)
        #expect(decoding.log.loadedLineCount <= newlines)
        switch decoding.repair {
        case .none:
            break
        case .delete:
            #expect(decoding.log.entries.isEmpty)
            #expect(decoding.warning != nil)
        case .truncate(let size):
            #expect(size < bytes.count)
            let again = NinjaBuildLog.decode(Array(bytes[0..<size]))
            #expect(again.repair == .none)
            #expect(again.log.entries == decoding.log.entries)
        }
    }

    @Test func randomBytesNeverFail() {
        var random = LogFuzzRandom(seed: 1)
        for _ in 0..<3000 {
            var bytes = random.bytes(Int.random(in: 0...200, using: &random), from: Self.alphabet)
            if Bool.random(using: &random) { bytes = Array("# ninja log v\(Int.random(in: 3...8, using: &random))\n".utf8) + bytes }
            Self.checkRepairIsStable(bytes)
        }
    }

    @Test func damagedLogsNeverFail() {
        var random = LogFuzzRandom(seed: 2)
        for _ in 0..<3000 {
            Self.checkRepairIsStable(random.damaged(Self.validLog(&random)))
        }
    }

    @Test func aRepairedFileTakesNewLines() throws {
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_log")
        var random = LogFuzzRandom(seed: 3)
        for round in 0..<200 {
            var bytes = random.damaged(Self.validLog(&random))
            if round % 4 == 0 { bytes = random.bytes(Int.random(in: 0...100, using: &random), from: Self.alphabet) }
            try directory.write(".ninja_log", bytes: bytes)
            let load = try NinjaBuildLog.load(from: path)
            let appender = NinjaLogAppender.buildLog(at: path)
            let entry = NinjaBuildLogEntry(output: "fresh", commandHash: 0xABC, startTime: 7, endTime: 8, mtime: 9)
            try appender.append(NinjaBuildLog.line(for: entry))
            try appender.close()
            let again = try NinjaBuildLog.load(from: path)
            #expect(again.warning == nil, "round \(round)")
            #expect(again.log[output: "fresh"]?.startTime == 7, "round \(round)")
            if (again.log.version ?? 5) >= 5 { #expect(again.log[output: "fresh"] == entry, "round \(round)") }
            #expect(again.log.entries.count == load.log.entries.count + (load.log[output: "fresh"] == nil ? 1 : 0), "round \(round)")
        }
    }
}
