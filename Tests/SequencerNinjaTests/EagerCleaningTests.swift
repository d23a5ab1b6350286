import Testing

@testable import SequencerNinja

/// ``EagerCleaning`` as call sequences: which waiting edges an ended edge frees, and when.
@Suite struct EagerCleaningTests {
    /// 1 and 2 end; 3 waits on both; 4 (phony) waits on 3; 5 waits on 4; 6 waits on 1 only.
    let cleaning = EagerCleaning(producers: [3: [1, 2], 4: [3], 5: [4], 6: [1]], phony: [4])

    @Test func anEdgeIsDecidedOnlyOnceEveryInputsEdgeLeftItsOutputsAlone() {
        var asked: [NinjaGraph.EdgeID] = []
        cleaning.ended(1) { asked.append($0); return true }
        // 3 still waits for 2; 6 is freed by 1 alone.
        #expect(asked == [6])
        cleaning.ended(2) { asked.append($0); return true }
        // 3 is up to date, so is 4 (phony, never asked), and 5 after it.
        #expect(asked == [6, 3, 5])
        #expect(cleaning.start(3) == true)
        #expect(cleaning.start(5) == true)
        #expect(cleaning.start(6) == true)
        #expect(cleaning.start(2) == nil)
    }

    @Test func anEdgeFoundToRunFreesNothing() {
        var asked: [NinjaGraph.EdgeID] = []
        cleaning.ended(1) { _ in true }
        cleaning.ended(2) { asked.append($0); return $0 != 3 }
        #expect(asked == [3])
        #expect(cleaning.start(3) == false)
        #expect(cleaning.start(5) == nil)
    }

    @Test func anEdgeAlreadyStartedIsNotDecided() {
        var asked: [NinjaGraph.EdgeID] = []
        #expect(cleaning.start(6) == nil)
        cleaning.ended(1) { asked.append($0); return true }
        #expect(asked.isEmpty)
    }

    @Test func anEdgeThatChangedItsOutputsIsNeverReported() {
        // 2 ran and changed what it wrote: it never calls ended, and 3 is decided when it starts.
        var asked: [NinjaGraph.EdgeID] = []
        cleaning.ended(1) { asked.append($0); return true }
        #expect(asked == [6])
        #expect(cleaning.start(3) == nil)
    }
}
