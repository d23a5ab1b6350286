import Testing

@testable import SequencerNinja

/// Depfile parsing on random content: it never fails other than with ninja's errors, and what
/// a compiler's escaping writes reads back as the paths it escaped.
struct DepfileFuzzTests {
    static let alphabet: [UInt8] = Array("ab/. \\\\\\#$:\n\r\t&'x:".utf8) + [0, 0xC3]

    @Test func randomContentNeverFails() {
        var random = LogFuzzRandom(seed: 21)
        for _ in 0..<5000 {
            let content = random.bytes(Int.random(in: 0...60, using: &random), from: Self.alphabet)
            do {
                let depfile = try NinjaDepfile(parsing: content)
                // Paths are never empty, and each is kept once (a rule may have no target: ": a").
                #expect(depfile.outputBytes.allSatisfy { !$0.isEmpty } && depfile.inputBytes.allSatisfy { !$0.isEmpty })
                #expect(Set(depfile.outputBytes).count == depfile.outputBytes.count)
                #expect(Set(depfile.inputBytes).count == depfile.inputBytes.count)
                // No path holds a byte that always separates paths (a tab can be escaped).
                for path in depfile.outputBytes + depfile.inputBytes {
                    #expect(!path.contains(0) && !path.contains(0x0A) && !path.contains(0x0D))
                }
                #expect(try NinjaDepfile(parsing: content) == depfile)
            } catch {
                #expect(error == .missingColon || error == .inputWithInputs)
            }
        }
    }

    /// Escapes `path` as GCC does in a depfile: a backslash before spaces and `#`, `$$` for `$`.
    static func escaped(_ path: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        for byte in path {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "#"): result += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "$"): result += [byte, byte]
            default: result.append(byte)
            }
        }
        return result
    }

    @Test func compilerEscapedPathsReadBack() throws {
        var random = LogFuzzRandom(seed: 22)
        let pathBytes = Array("abcxyz0123456789./_-+,~()%=@![]{} #$:".utf8) + [0xC3, 0xA9, 0xE2]
        func path() -> [UInt8] {
            var path = (0..<Int.random(in: 1...12, using: &random)).map { _ in pathBytes.randomElement(using: &random) ?? 0x61 }
            // A path may not end with a colon (that would make it a target).
            if path.last == UInt8(ascii: ":") { path.append(UInt8(ascii: "h")) }
            return path
        }
        for _ in 0..<2000 {
            let outputs = (0..<Int.random(in: 1...3, using: &random)).map { _ in path() }
            let inputs = (0..<Int.random(in: 0...10, using: &random)).map { _ in path() }
            var content: [UInt8] = []
            content += outputs.map(Self.escaped).joined(separator: [UInt8(ascii: " ")])
            content += Array(":".utf8)
            for input in inputs { content += (Bool.random(using: &random) ? Array(" \\\n  ".utf8) : [UInt8(ascii: " ")]) + Self.escaped(input) }
            content += Bool.random(using: &random) ? [0x0A] : [0x0D, 0x0A]
            let depfile = try NinjaDepfile(parsing: content)
            var uniqueOutputs: [[UInt8]] = []
            for output in outputs where !uniqueOutputs.contains(output) { uniqueOutputs.append(output) }
            var uniqueInputs: [[UInt8]] = []
            for input in inputs where !uniqueInputs.contains(input) { uniqueInputs.append(input) }
            #expect(depfile.outputBytes == uniqueOutputs, "\(String(decoding: content, as: UTF8.self))")
            #expect(depfile.inputBytes == uniqueInputs, "\(String(decoding: content, as: UTF8.self))")
        }
    }
}
