import Testing
@testable import SequencerWorkflowFile

/// The order a run adds a file's jobs in: longest remaining path first, by recorded durations.
@Suite struct StartOrderTests {
    private func jobs(_ text: String) throws -> [WorkflowFile.Job] {
        try WorkflowFile.parse(text, path: "/nonexistent/sequencer.yml").jobs
    }

    private func paths(_ jobs: [WorkflowFile.Job], _ seconds: [String: Int]) -> [String: Duration] {
        let paths = StartOrder.remainingPaths(of: jobs, durations: seconds.mapValues { .seconds($0) })
        return Dictionary(uniqueKeysWithValues: zip(jobs.map(\.name), paths))
    }

    @Test func aChainAddsEachJobsDurationToThoseAfterIt() throws {
        let chain = try jobs("""
            jobs:
              c: { run: "true", needs: [b] }
              b: { run: "true", needs: [a] }
              a: "true"
            """)
        #expect(paths(chain, ["a": 1, "b": 2, "c": 4]) == ["a": .seconds(7), "b": .seconds(6), "c": .seconds(4)])
    }

    @Test func aDiamondTakesTheLongerBranch() throws {
        let diamond = try jobs("""
            jobs:
              top: "true"
              left: { run: "true", needs: [top] }
              right: { run: "true", needs: [top] }
              bottom: { run: "true", needs: [left, right] }
            """)
        #expect(paths(diamond, ["top": 1, "left": 5, "right": 2, "bottom": 3])
                == ["top": .seconds(9), "left": .seconds(8), "right": .seconds(5), "bottom": .seconds(3)])
    }

    @Test func aJobWithoutHistoryCountsAsTheAverageOfTheRecordedOnes() throws {
        let file = try jobs("""
            jobs:
              old-1: "true"
              old-2: "true"
              new: "true"
              after-new: { run: "true", needs: [new] }
            """)
        // Recorded: 1s, 3s and 5s; average 3s.
        #expect(paths(file, ["old-1": 1, "old-2": 3, "after-new": 5])
                == ["old-1": .seconds(1), "old-2": .seconds(3), "new": .seconds(8), "after-new": .seconds(5)])
        // With nothing recorded, every path is 0 and the order is the file's, needs first.
        #expect(paths(file, [:]).values.allSatisfy { $0 == .zero })
        #expect(StartOrder.ordered(file, durations: [:]).map(\.name) == ["old-1", "old-2", "new", "after-new"])
    }

    @Test func theLongestRemainingPathComesFirstWithTiesInFileOrder() throws {
        let file = try jobs("""
            jobs:
              compile-a: "true"
              compile-b: "true"
              compile-lvm: "true"
              compile-z: "true"
              link: { run: "true", needs: [compile-a, compile-b, compile-lvm, compile-z] }
            """)
        let order = StartOrder.ordered(file, durations: [
            "compile-a": .milliseconds(200), "compile-b": .milliseconds(300), "compile-lvm": .seconds(1),
            "compile-z": .milliseconds(300), "link": .milliseconds(100),
        ])
        #expect(order.map(\.name) == ["compile-lvm", "compile-b", "compile-z", "compile-a", "link"])
    }

    @Test func aLaneKeepsItsFileOrderAndANeedStaysBeforeItsDependents() throws {
        let file = try jobs("""
            lanes:
              serial: 1
            jobs:
              short: { run: "true", lane: serial }
              uses-setup: { run: "true", lane: serial, needs: [setup] }
              long: { run: "true", lane: serial }
              free: "true"
              setup: "true"
            """)
        let order = StartOrder.ordered(file, durations: [
            "short": .seconds(1), "long": .seconds(9), "free": .seconds(5), "setup": .seconds(1), "uses-setup": .seconds(1),
        ])
        // `short` and `uses-setup` move ahead with `long`, the latest job of their lane, and
        // `setup` with `uses-setup`, which needs it; `free` (5s) comes after them all.
        #expect(order.map(\.name) == ["short", "setup", "uses-setup", "long", "free"])
        // By remaining path alone, `free` would start second and `setup` last.
        #expect(paths(file, ["short": 1, "long": 9, "free": 5, "setup": 1, "uses-setup": 1])
                == ["short": .seconds(1), "uses-setup": .seconds(1), "long": .seconds(9), "free": .seconds(5), "setup": .seconds(2)])
    }
}
