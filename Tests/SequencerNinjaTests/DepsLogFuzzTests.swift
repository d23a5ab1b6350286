import Foundation
import Testing

@testable import SequencerNinja

/// `.ninja_deps` is a cache: no content makes reading it fail, what reading keeps reads back
/// alike from the repaired file, and records appended after a repair read back.
struct DepsLogFuzzTests {
    static func validLog(_ random: inout LogFuzzRandom) throws -> [UInt8] {
        var log = NinjaDepsLog()
        var file = NinjaDepsLog.header
        let names = ["a.h", "b.h", "dir/c.h", "d e.h", "x.o", "y.o", "z.o", "long/path/to/a/header.hpp"]
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            let inputs = (0..<Int.random(in: 0...5, using: &random)).map { _ in names.randomElement(using: &random) ?? "a.h" }
            let output = ["x.o", "y.o", "z.o", "w.o"].randomElement(using: &random) ?? "x.o"
            file += try log.record(output: output, mtime: Int64.random(in: Int64.min...Int64.max, using: &random), inputs: inputs)
        }
        return file
    }

    static func checkRepairIsStable(_ bytes: [UInt8]) {
        let decoding = NinjaDepsLog.decode(bytes)
        let log = decoding.log
        // Every id a deps list holds is a path's.
        for output in log.outputs {
            if let id = log.id(of: output), let deps = log.deps(ofID: id) {
                #expect(deps.inputIDs.allSatisfy { log.path(ofID: $0) != nil })
            }
        }
        switch decoding.repair {
        case .none:
            break
        case .delete:
            #expect(log.paths.isEmpty)
            #expect(decoding.warning != nil)
        case .truncate(let size):
            #expect(size < bytes.count)
            #expect(size >= NinjaDepsLog.header.count)
            let again = NinjaDepsLog.decode(Array(bytes[0..<size]))
            #expect(again.repair == .none)
            #expect(again.warning == nil)
            #expect(again.log.paths == log.paths)
            #expect(again.log.outputs == log.outputs)
            for output in log.outputs { #expect(again.log.deps(of: output) == log.deps(of: output)) }
        }
    }

    @Test func randomBytesNeverFail() {
        var random = LogFuzzRandom(seed: 11)
        let alphabet: [UInt8] = [0, 0, 0, 0, 1, 2, 4, 8, 12, 0x80, 0xFF, 0xFE, 0x61, 0x2E]
        for _ in 0..<3000 {
            var bytes = random.bytes(Int.random(in: 0...120, using: &random), from: alphabet)
            if Int.random(in: 0..<4, using: &random) != 0 { bytes = NinjaDepsLog.header + bytes }
            Self.checkRepairIsStable(bytes)
        }
    }

    @Test func damagedLogsNeverFail() throws {
        var random = LogFuzzRandom(seed: 12)
        for _ in 0..<3000 {
            Self.checkRepairIsStable(random.damaged(try Self.validLog(&random)))
        }
    }

    @Test func aRepairedFileTakesNewRecords() throws {
        let directory = try ReferenceNinjaDirectory()
        let path = directory.file(".ninja_deps")
        var random = LogFuzzRandom(seed: 13)
        for round in 0..<200 {
            try directory.write(".ninja_deps", bytes: random.damaged(try Self.validLog(&random)))
            var log = try NinjaDepsLog.load(from: path).log
            let appender = NinjaLogAppender.depsLog(at: path)
            try appender.append(try log.record(output: "fresh.o", mtime: 42, inputs: ["a.h", "new.h", "dir/c.h"]))
            try appender.close()
            let again = try NinjaDepsLog.load(from: path)
            #expect(again.warning == nil, "round \(round)")
            #expect(again.log.paths == log.paths, "round \(round)")
            #expect(again.log.deps(of: "fresh.o") == NinjaDepsLog.PathDeps(mtime: 42, inputs: ["a.h", "new.h", "dir/c.h"]), "round \(round)")
        }
    }
}
