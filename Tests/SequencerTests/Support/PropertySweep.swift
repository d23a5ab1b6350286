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
