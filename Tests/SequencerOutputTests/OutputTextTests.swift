import SequencerOutput
import Testing

/// The texts every output shares: durations, and strings quoted for dot.
@Suite struct OutputTextTests {
    @Test(arguments: [
        (0.0, "0ms"), (0.0002, "<1ms"), (0.005, "5ms"), (0.0994, "99ms"), (0.0996, "0.1s"), (0.4, "0.4s"), (0.9996, "1.0s"), (1.2, "1.2s"), (9.96, "10s"),
        (42.4, "42s"), (59.6, "1m00s"), (200, "3m20s"), (3599.6, "1h00m"), (3900, "1h05m"), (-1, "0ms"),
    ])
    func aDurationIsWrittenInTheUnitThatFits(seconds: Double, text: String) {
        #expect(durationText(seconds: seconds) == text)
    }

    /// Graphviz reads character references in its strings: an `&` goes to it as `&amp;`, so
    /// that a name shows as it is written.
    @Test func dotStringsEscapeAmpersandsQuotesAndBackslashes() {
        #expect(dotQuoted("&lt;amp&gt;") == "\"&amp;lt;amp&amp;gt;\"")
        #expect(dotQuoted("a \"b\" \\c\nd") == "\"a \\\"b\\\" \\\\c\\nd\"")
    }
}
