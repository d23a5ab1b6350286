import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

// Helpers shared by the property sweeps (`ResiliencePropertyTests`, `ChildPropertyTests`).

/// Records a failed property with the seed that reproduces it, and counts them.
final class Checker {
    let seed: UInt64
    private(set) var failures = 0

    init(seed: UInt64) { self.seed = seed }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard !condition else { return }
        failures += 1
        Issue.record("seed \(seed): \(message())", sourceLocation: sourceLocation)
    }
}

/// The seeds a property sweep runs: `defaults`, unless the environment variable `SEQUENCER_SEEDS`
/// lists others (see ``seeds(listedIn:)``), e.g. `SEQUENCER_SEEDS=269,675` or
/// `SEQUENCER_SEEDS=0..<5000`, to reproduce a seed or to widen a sweep locally.
func sweepSeeds(default defaults: Range<UInt64>) -> [UInt64] {
    ProcessInfo.processInfo.environment["SEQUENCER_SEEDS"].map(seeds(listedIn:)) ?? Array(defaults)
}

/// The seeds in `list`: comma-separated numbers and half-open ranges (`269, 675, 1000..<1200`). A
/// seed may be listed more than once, to run it again (the interleaving differs from run to run).
func seeds(listedIn list: String) -> [UInt64] {
    list.split(separator: ",").flatMap { item -> [UInt64] in
        let item = item.trimmingCharacters(in: .whitespaces)
        if let number = UInt64(item) { return [number] }
        let bounds = item.components(separatedBy: "..<")
        guard bounds.count == 2, let low = UInt64(bounds[0]), let high = UInt64(bounds[1]), low <= high else {
            preconditionFailure("SEQUENCER_SEEDS: '\(item)' is neither a number nor a range like 0..<5000")
        }
        return Array(low..<high)
    }
}
