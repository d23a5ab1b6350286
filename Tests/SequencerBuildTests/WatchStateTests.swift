import SequencerBuild
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The watch's logic as call sequences on a manual clock: debounce, a change during a run,
/// Ctrl-C at each point.
@Suite struct WatchStateTests {
    typealias State = WatchState<ManualClock.Instant>

    private func at(_ milliseconds: Int) -> ManualClock.Instant { ManualClock.Instant(offset: .milliseconds(milliseconds)) }

    /// A state whose first run has ended at 0 ms: watching.
    private func watching() -> State {
        var state = State(quiet: .milliseconds(100))
        #expect(state.start() == .run([]))
        #expect(state.runEnded(at: at(0)) == .none)
        return state
    }

    @Test func aChangeRunsOnceTheChangesHaveBeenQuiet() {
        var state = watching()
        #expect(state.changed(["/a"], at: at(10)) == .wake(at: at(110)))
        #expect(state.changed(["/b"], at: at(60)) == .wake(at: at(160)))
        // The first wake-up is early: the second change put the run off.
        #expect(state.wake(at: at(110)) == .wake(at: at(160)))
        #expect(state.wake(at: at(160)) == .run(["/a", "/b"]))
        #expect(state.isRunning)
        #expect(state.pending.isEmpty)
        #expect(state.runEnded(at: at(500)) == .none)
        #expect(state.wake(at: at(600)) == .none, "a stale timer starts nothing")
    }

    @Test func noChangeNoRun() {
        var state = watching()
        #expect(state.changed([String](), at: at(10)) == .none)
        #expect(state.wake(at: at(1_000)) == .none)
    }

    @Test func aChangeDuringARunStopsItOnceAndRunsAfterItEnded() {
        var state = watching()
        _ = state.changed(["/a"], at: at(0))
        #expect(state.wake(at: at(100)) == .run(["/a"]))
        #expect(state.changed(["/b"], at: at(150)) == .stopRun)
        #expect(state.changed(["/c"], at: at(200)) == .none, "the run is already stopping")
        #expect(state.wake(at: at(250)) == .none, "no run starts while one is going")
        // Ended 20 ms after the last change: the rest of the quiet time first.
        #expect(state.runEnded(at: at(220)) == .wake(at: at(300)))
        #expect(state.wake(at: at(300)) == .run(["/b", "/c"]))
    }

    @Test func aRunThatEndsAfterTheQuietTimeIsFollowedAtOnce() {
        var state = watching()
        _ = state.changed(["/a"], at: at(0))
        _ = state.wake(at: at(100))
        #expect(state.changed(["/a"], at: at(150)) == .stopRun)
        #expect(state.runEnded(at: at(400)) == .run(["/a"]))
    }

    @Test func theFirstRunIsStoppedByAChangeToo() {
        var state = State(quiet: .milliseconds(50))
        #expect(state.start() == .run([]))
        #expect(state.start() == .none)
        #expect(state.changed(["/a"], at: at(10)) == .stopRun)
        #expect(state.runEnded(at: at(100)) == .run(["/a"]))
    }

    @Test func ctrlCWhileWatchingFinishesAtOnce() {
        var state = watching()
        _ = state.changed(["/a"], at: at(10))
        #expect(state.stop() == .finish)
        #expect(state.wake(at: at(200)) == .none)
        #expect(state.changed(["/b"], at: at(300)) == .none)
        #expect(state.stop() == .none)
    }

    @Test func ctrlCDuringARunStopsItAndFinishesWhenItEnded() {
        var state = watching()
        _ = state.changed(["/a"], at: at(0))
        _ = state.wake(at: at(100))
        #expect(state.stop() == .stopRun)
        #expect(state.changed(["/b"], at: at(150)) == .none, "changes after Ctrl-C are no matter")
        #expect(state.runEnded(at: at(200)) == .finish)
    }

    @Test func ctrlCWhileAChangeIsStoppingTheRunFinishesWhenItEnded() {
        var state = watching()
        _ = state.changed(["/a"], at: at(0))
        _ = state.wake(at: at(100))
        #expect(state.changed(["/b"], at: at(150)) == .stopRun)
        #expect(state.stop() == .none, "the run is already stopping")
        #expect(state.runEnded(at: at(300)) == .finish)
    }

    /// Every order of the calls, over a few steps: whatever happens, at most one run is going,
    /// a stop is asked only of a running run, and after Ctrl-C no run starts and the watch
    /// finishes once no run is going.
    @Test func everySequenceOfFourCallsKeepsTheRules() {
        enum Call: CaseIterable { case change, wake, end, stop }
        func sequences(_ length: Int) -> [[Call]] {
            length == 0 ? [[]] : sequences(length - 1).flatMap { prefix in Call.allCases.map { prefix + [$0] } }
        }
        for calls in sequences(4) {
            var state = State(quiet: .milliseconds(100))
            var running = state.start() == .run([])
            var stopped = false, finished = false
            for (step, call) in calls.enumerated() {
                let now = at(100 * (step + 1))
                let action: State.Action
                switch call {
                case .change: action = state.changed(["/p\(step)"], at: now)
                case .wake: action = state.wake(at: now.advanced(by: .milliseconds(100)))
                case .end: action = running ? state.runEnded(at: now) : .none
                case .stop:
                    action = state.stop()
                    stopped = true
                }
                if call == .end { running = false }
                switch action {
                case .run:
                    #expect(!running && !stopped, "\(calls)")
                    running = true
                case .stopRun:
                    #expect(running, "\(calls)")
                case .finish:
                    #expect(!running && stopped && !finished, "\(calls)")
                    finished = true
                case .none, .wake:
                    break
                }
                #expect(state.isRunning == running, "\(calls)")
            }
        }
    }
}
