/// SplitMix64: a random number generator whose whole state is one number, so a seed reproduces
/// a test's scenario on any platform (unlike the standard library's `random(in:using:)`, whose
/// algorithm may change).
///
/// ```swift
/// var random = SplitMix64(state: 42)
/// let jobs = random.int(1...20)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The whole state: the seed, then advanced by each draw.
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range` (by modulo: the bias is negligible for the small ranges of tests).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A number in `0..<bound`, or 0 if the bound is not positive.
    public mutating func below(_ bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }

    /// True `percent` times in a hundred.
    public mutating func chance(percent: Int) -> Bool { int(0...99) < percent }

    /// One of `values`, which must not be empty.
    public mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }
}
