import Testing

@testable import SequencerNinja

/// Why an edge runs, told part by part from the fingerprint parts kept with its last success.
@Suite struct FingerprintExplanationTests {
    let before = ["command": "c1", "input a.c": "a1", "input b.c": "b1", "discovered a.h": "h1", "output a.o": "o1"]

    @Test func samePartsExplainNothing() {
        #expect(EdgeFingerprint.explain(before, before: before) == nil)
    }

    @Test func eachChangedPartIsNamed() {
        var now = before
        now["command"] = "c2"
        #expect(EdgeFingerprint.explain(now, before: before) == "the command changed")
        now = before
        now["input b.c"] = "b2"
        now["discovered a.h"] = "h2"
        #expect(EdgeFingerprint.explain(now, before: before) == "input a.h (from its depfile) changed; input b.c changed")
        now = before
        now["output a.o"] = "o2"
        #expect(EdgeFingerprint.explain(now, before: before) == "output a.o changed since it was built")
    }

    @Test func addedAndRemovedInputsAreSaid() {
        var now = before
        now["input c.c"] = "c"
        now["input a.c"] = nil
        #expect(EdgeFingerprint.explain(now, before: before) == "input a.c is gone from the edge; input c.c is new")
    }

    @Test func manyChangesAreCountedAfterTheFirstThree() {
        var now = before
        for key in before.keys { now[key] = "changed" }
        let text = EdgeFingerprint.explain(now, before: before)
        #expect(text == "the command changed; input a.h (from its depfile) changed; input a.c changed; and 2 more")
    }

    @Test func manyDepfileInputsAreOnePart() {
        var now = before
        now["discovered"] = "200 aaaa"
        var earlier = before
        earlier["discovered"] = "200 bbbb"
        #expect(EdgeFingerprint.explain(now, before: earlier) == "an input its depfile lists changed (of 200)")
        #expect(EdgeFingerprint.explain(now, before: now) == nil)
    }
}
