import Testing

// Helpers shared by the property sweeps (`ResiliencePropertyTests`, `ChildPropertyTests`).

/// SplitMix64: a generator whose whole state is one number, so a seed reproduces a scenario on
/// any platform (it avoids the standard library's `random(in:using:)`, whose algorithm may change).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range` (by modulo: the bias is negligible for ranges this small).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func chance(percent: Int) -> Bool { int(0...99) < percent }

    mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }
}

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
