import Sequencer
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A job with a key runs its own body, instead of joining the key's leader, only when the leader
/// waits for it when it is taken: through the leader's unfinished children and the jobs those
/// joined. A child that has not been taken yet, or that runs its own body, has joined no one.
@Suite(.suiteTimeLimit)
struct CoalescingEscapeTests {
    /// Reduced from `ChildPropertyTests` at 5,000 seeds (269, 675, 4413 and others). `a` leads
    /// `ka` and has added `later`, with key `kb`, which waits for its need `gate`; `b` leads `kb`
    /// and adds `join`, with key `ka`. `a` does not wait for `join`: `later` has not joined `b`
    /// (and never will: `gate` fails, so it is skipped). `waits(_:for:)` counted every unfinished
    /// child with a key as waiting for its key's leader, so `join` ran a second body for `ka`.
    @Test(arguments: 0..<10)
    func aChildNotTakenYetHasJoinedNoOne(repetition: Int) async throws {
        let (added, release) = (Gate(), Gate())
        let ownBodies = LockedValue(0)
        var workflow = Workflow()
        let a = try workflow.add("a", coalesce: "ka") { ctx in
            try ctx.addChild("gate") { _ in
                await release.wait()
                throw InjectedError()
            }
            try ctx.addChild("later", needs: ["gate"], coalesce: "kb") { _ in "later" }
            added.open()
            try await ctx.waitForChildren()
            return "a"
        }
        let b = try workflow.add("b", coalesce: "kb") { ctx in
            await added.wait()
            let join = try ctx.addChild("join", coalesce: "ka") { _ in
                ownBodies.withLock { $0 += 1 }
                return "join"
            }
            return try await ctx.value(of: join)
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 2, keepGoing: true))
        await events.wait(for: .started("b/join"))  // taken while `a` leads `ka`
        release.open()
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(ownBodies.value == 0, "b/join joins a")
        #expect(report.outcome(of: "b/join")?.attempts == 0)
        #expect(report.value(of: b) == "a")
        #expect(report.value(of: a) == "a")
        #expect(report.outcome(of: "a/later")?.status == .skipped)
    }

    /// `m` leads `km` and `l` leads `kl`. `m`'s child `mj` (key `kl`) joins `l`; then `l`'s
    /// child `c` (key `km`) is taken: `m` waits for it (through `mj`, which joined `l`), so `c`
    /// runs its own body. Then `m`'s child `mj2` (key `kl`) is taken: `l` waits for `c`, but
    /// `c` waits for no one, so `mj2` joins `l`. `waits(_:for:)` followed `c` to its key's leader
    /// `m` as if it had joined it, so `mj2` ran a second body for `kl`.
    @Test(arguments: 0..<10)
    func aChildRunningItsOwnBodyHasJoinedNoOne(repetition: Int) async throws {
        let (joined, escaped, second, release) = (Gate(), Gate(), Gate(), Gate())
        let bodies = LockedValue<[String]>([])
        var workflow = Workflow()
        let l = try workflow.add("l", coalesce: "kl") { ctx in
            await joined.wait()
            let c = try ctx.addChild("c", coalesce: "km") { _ in
                bodies.withLock { $0.append("l/c") }
                escaped.open()
                await release.wait()
                return "c"
            }
            return try await ctx.value(of: c) + "l"
        }
        let m = try workflow.add("m", coalesce: "km") { ctx in
            let mj = try ctx.addChild("mj", coalesce: "kl") { _ in
                bodies.withLock { $0.append("m/mj") }
                return "mj"
            }
            async let first = ctx.value(of: mj)
            await escaped.wait()
            await second.wait()
            let mj2 = try ctx.addChild("mj2", coalesce: "kl") { _ in
                bodies.withLock { $0.append("m/mj2") }
                return "mj2"
            }
            return try await first + ctx.value(of: mj2)
        }
        var (run, events) = try EventLog.start(workflow, RunOptions(maxConcurrency: 3))
        await events.wait(for: .started("m/mj"))  // joins l
        joined.open()
        await events.wait(for: .started("l/c"))  // m waits for it: it runs its own body
        second.open()
        await events.wait(for: .started("m/mj2"))
        release.open()
        let report = try #require(await BoundedWait.report(run), "the run hangs")
        #expect(bodies.value == ["l/c"], "m/mj and m/mj2 join l; l/c runs its own body")
        #expect(report.value(of: l) == "cl")
        #expect(report.value(of: m) == "clcl")
    }
}

private struct InjectedError: Error {}
