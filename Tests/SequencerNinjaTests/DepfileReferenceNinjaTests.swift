import Foundation
import Testing

@testable import SequencerNinja

/// Our depfile parser against ninja 1.11's: ninja builds edges with `deps = gcc` whose depfiles
/// are random, tricky content, and `ninja -t deps` lists what it recorded; that is our parse of
/// the same bytes with each input canonicalised, and ninja fails an edge with our error.
@Suite(.enabled(if: ReferenceNinjaDirectory.isInstalled, "needs ninja at /usr/bin/ninja"))
struct DepfileReferenceNinjaTests {
    static let pieces: [[UInt8]] = [
        "a", "b", "x/", "/y", ".", "..", "../", " ", "  ", "\\", "\\\\", "\\ ", "\\\\ ", "\\#", "#", "$", "$$", ":", ": ",
        "\\:", "\n", "\r\n", "\r", "\t", "&", "'", "\"", "?", "\\\n", "\\\r\n", "out:", "dir/f.h", "c:\\w", "!", "%",
    ].map { Array($0.utf8) } + [[0], [0xC3, 0xA9], [0xFF]]

    /// The outcome ninja's builder gets from a depfile: the inputs it records, or its error.
    static func expectedOutcome(_ content: [UInt8]) -> Result<[[UInt8]], NinjaDepfileError> {
        // ninja's builder records no inputs for an empty depfile, without parsing it.
        if content.isEmpty { return .success([]) }
        do {
            let depfile = try NinjaDepfile(parsing: content)
            return .success(depfile.inputBytes.map(ShowIncludesPathCanonicalizer.canonical))
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [31, 32, 33, 34])
    func ninjaRecordsWhatWeParse(seed: UInt64) throws {
        var random = LogFuzzRandom(seed: seed)
        let directory = try ReferenceNinjaDirectory()
        var manifest = "rule cc\n  command = cp $out.src $out.d && touch $out\n  deps = gcc\n  depfile = $out.d\n"
        var outcomes: [String: Result<[[UInt8]], NinjaDepfileError>] = [:]
        var index = 0
        while outcomes.count < 60 {
            var content: [UInt8] = Bool.random(using: &random) ? Array("t.o: ".utf8) : []
            for _ in 0..<Int.random(in: 0...14, using: &random) { content += Self.pieces.randomElement(using: &random) ?? [] }
            let outcome = Self.expectedOutcome(content)
            // ninja cannot record an input that canonicalises to nothing ("/", "/a/..").
            if case .success(let inputs) = outcome, inputs.contains(where: \.isEmpty) { continue }
            let output = "o\(index)"
            index += 1
            try directory.write(output + ".src", bytes: content)
            manifest += "build \(output): cc\n"
            outcomes[output] = outcome
        }
        try directory.write("build.ninja", manifest)
        let build = try directory.ninja("-k", "0")
        let buildText = String(decoding: build.output, as: UTF8.self)

        // ninja's listing: "OUTPUT: #deps N, deps mtime M (VALID)" then "    INPUT" lines.
        let listing = try directory.ninja("-t", "deps").output
        var recorded: [String: [[UInt8]]] = [:]
        var current: String?
        for line in listing.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if line.starts(with: Array("    ".utf8)), let output = current {
                recorded[output, default: []].append(Array(line.dropFirst(4)))
            } else if let range = String(decoding: line, as: UTF8.self).range(of: ": #deps ") {
                let output = String(String(decoding: line, as: UTF8.self)[..<range.lowerBound])
                current = output
                recorded[output] = []
            }
        }

        for (output, outcome) in outcomes {
            switch outcome {
            case .success(let inputs):
                let content = String(decoding: try directory.read(output + ".src"), as: UTF8.self)
                #expect(recorded[output] == inputs, "\(output): \(content.debugDescription)")
            case .failure(let error):
                #expect(recorded[output] == nil, "\(output)")
                let failure = "FAILED: \(output) \ncp \(output).src \(output).d && touch \(output)\n\(error.message)"
                #expect(buildText.contains(failure), "\(output): \(error.message)")
            }
        }
    }
}
