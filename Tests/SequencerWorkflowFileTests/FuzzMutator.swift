import SequencerTestHelpers
import SequencerTestSupport
/// Random edits of a workflow file's bytes and lines, from a seed.
enum FuzzMutator {
    typealias Generator = SplitMix64

    /// Bytes that mean something to YAML, or that parsers get wrong.
    static let punctuation: [[UInt8]] = [
        ":", "-", "[", "]", "{", "}", ",", "&", "*", "!", "|", ">", "'", "\"", "#", "%", "?", "@", "`",
        "\t", " ", "\n", "\r", "\r\n", ": ", "- ", "---", "...", "&a ", "*a", "!!str ", "<<: ", "\\",
        "\u{85}", "\u{2028}", "\u{FEFF}", "é", "e\u{301}", "\u{1F469}\u{200D}\u{1F4BB}", "\u{0}", "\u{1}",
        "~", "null", "0", "-1", "1.5.2s", "10 s", "\u{E000}", "\u{F8FF}",
        // Templates, vars, includes and depfiles.
        "${", "${item}", "${stem}", "${nope}", "$${", "$", "for: ", "files: ", "include: ", "vars: ", "depfile: ",
        "*-*", "src/*.c", "fuzz.yml",
    ].map { Array($0.utf8) }

    /// One to four random edits of `input`.
    static func mutate(_ input: [UInt8], using generator: inout Generator) -> [UInt8] {
        var bytes = input
        for _ in 0...generator.below(4) {
            bytes = mutateOnce(bytes, using: &generator)
        }
        return bytes
    }

    private static func mutateOnce(_ input: [UInt8], using generator: inout Generator) -> [UInt8] {
        var bytes = input
        let count = bytes.count
        let at = generator.below(count + 1)
        switch generator.below(12) {
        case 0:   // delete a run of bytes
            let end = min(count, at + 1 + generator.below(8))
            if at < end { bytes.removeSubrange(at..<end) }
        case 1:   // insert a random byte
            bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: at)
        case 2, 3:   // insert punctuation
            bytes.insert(contentsOf: punctuation[generator.below(punctuation.count)], at: at)
        case 4:   // duplicate a run of bytes
            let end = min(count, at + 1 + generator.below(16))
            if at < end { bytes.insert(contentsOf: bytes[at..<end], at: end) }
        case 5:   // swap two bytes
            if count > 1 { bytes.swapAt(generator.below(count), generator.below(count)) }
        case 6:   // overwrite a byte with punctuation
            if at < count { bytes[at] = punctuation[generator.below(19)][0] }
        case 7:   // truncate
            bytes.removeSubrange(at..<count)
        case 8, 9, 10:   // delete, duplicate or swap lines
            var lines = split(bytes)
            let line = generator.below(lines.count)
            switch generator.below(3) {
            case 0: if lines.count > 1 { lines.remove(at: line) }
            case 1: lines.insert(lines[line], at: generator.below(lines.count + 1))
            default: lines.swapAt(line, generator.below(lines.count))
            }
            bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
        default:   // indent or dedent a line
            var lines = split(bytes)
            let line = generator.below(lines.count)
            if generator.below(2) == 0 {
                lines[line].insert(contentsOf: generator.below(3) == 0 ? [9] : [32, 32], at: 0)
            } else if lines[line].first == 32 {
                lines[line].removeFirst()
            }
            bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
        }
        return bytes
    }

    private static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    }
}
