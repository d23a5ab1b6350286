import Foundation
@testable import Sequencer
import SequencerTestHelpers
import Testing

/// Batches under real workers, over and over: runs of short jobs, most of them no-ops so that
/// workers take batches and go on with them without the lock, while the test cancels jobs,
/// cancels the run, or lets a short deadline pass, at random moments; some jobs sleep, so that
/// idle workers take back what a batch has not begun, and some add a child. In some runs each
/// job has a timeout that the sleeping ones may pass and the hanging ones must (their timeouts
/// retire workers, whose slots new workers take); in some, every job may be tried twice and a
/// few fail their first attempt, giving back the rest of their batch; in some, jobs share
/// coalescing keys, leading or joining as batches take them. Each run must end (a watchdog
/// prints every thread's stack when none has for a while), no body may run twice, and each
/// job's status must agree with what its body did: a job that succeeded ran once, after every
/// job it needs succeeded, or shares the value of a job with its key that did; a skipped job
/// never ran.
///
/// `SEQUENCER_STRESS_ROUNDS` sets the number of rounds of 1,000 runs; without it, a few dozen
/// run with the other suites. CI runs the long form in a step of its own.
@Suite struct BatchStressTests {
    static var shortForm: Int {
        #if SEQUENCER_PTHREAD_LOCK
        return 10  // the sanitized build's flag
        #else
        return 60
        #endif
    }

    @Test func batchedRunsEndAndAgreeWithWhatTheirBodiesDid() async throws {
        let size = StressSize.current
        let runs = size.rounds.map { $0 * 1_000 } ?? Self.shortForm
        let watchdog = Watchdog("batched runs", stall: size.stall)
        defer { watchdog.stop() }
        for round in 0..<runs {
            var random = SplitMix64(state: UInt64(round) &* 0x9E37_79B9)
            let count = random.int(100...1_500)
            let ran = Locked([Int](repeating: 0, count: count))
            var workflow = Workflow()
            var needs: [[Int]] = []
            // In some runs every job has a timeout (batched all the same): the sleeping ones
            // may time out inside a batch.
            let timeouts = random.chance(percent: 30)
            // With timeouts, a few jobs hang until their timeout ends them: one that succeeds
            // would say its timeout never fired.
            var hangs = [Bool](repeating: false, count: count)
            // In some, every job may be tried twice, and a few fail their first attempt. A job
            // whose first attempt was cut short by a cancel must not be tried again.
            let retries = random.chance(percent: 30)
            var failsOnce = [Bool](repeating: false, count: count)
            // In some, jobs share a few keys: a batch takes leaders and their joiners.
            let keyed = random.chance(percent: 30)
            var keys = [Int?](repeating: nil, count: count)
            var handles: [JobHandle<Int>] = []
            for index in 0..<count {
                let mine = index > 0 && random.chance(percent: 30)
                    ? Array(Set((0..<random.int(1...2)).map { _ in random.int(0...index - 1) })) : []
                needs.append(mine)
                let sleeps = random.chance(percent: 2)
                // A child may need a job taken in the same batch as its parent, whose end the
                // parent's worker holds.
                let childNeeds = index > 0 && random.chance(percent: 1) ? [JobID("j\(random.int(max(0, index - 40)...index - 1))")] : nil
                let timeout: Duration? = timeouts ? .microseconds(random.int(100...2_000)) : nil
                let hang = timeouts && random.chance(percent: 1)
                hangs[index] = hang
                let retry: RetryPolicy = retries ? .fixed(attempts: 2, delay: .microseconds(random.int(0...300))) : .none
                let fails = retries && random.chance(percent: 3)
                failsOnce[index] = fails
                keys[index] = keyed && random.chance(percent: 50) ? random.int(0...max(1, count / 20)) : nil
                let handle = try workflow.add(
                    JobID("j\(index)"), needs: mine.map { JobID("j\($0)") }, timeout: timeout, retry: retry, coalesce: keys[index].map { "k\($0)" }
                ) { context in
                    if fails, context.attempt == 1 { throw StressFailure() }
                    ran.withLock { $0[index] += 1 }
                    if let childNeeds { try context.addChild("child", needs: childNeeds) { _ in } }
                    if sleeps { try await Task.sleep(for: .microseconds(200)) }
                    if hang { try await Task.sleep(for: .seconds(30)) }
                    return index
                }
                handles.append(handle)
            }
            let deadline: Duration? = random.chance(percent: 15) ? .microseconds(random.int(100...3_000)) : nil
            let run = try workflow.start(RunOptions(
                maxConcurrency: random.int(1...4), deadline: deadline, keepGoing: random.chance(percent: 50),
                gracePeriod: .milliseconds(100)))
            switch random.int(0...9) {
            case 0..<4:
                // Cancel a few jobs as the run goes.
                for _ in 0..<random.int(1...8) {
                    for _ in 0..<random.int(0...50) { await Task.yield() }
                    run.cancel(JobID("j\(random.int(0...count - 1))"))
                }
            case 4:
                for _ in 0..<random.int(0...200) { await Task.yield() }
                run.cancel()
            default:
                break
            }
            let report = await run.report()
            watchdog.note("round \(round)")
            watchdog.progress()

            let times = ran.withLock { $0 }
            var status: [JobStatus] = []
            for index in 0..<count {
                guard let outcome = report.outcome(of: JobID("j\(index)")) else {
                    Issue.record("round \(round): j\(index) has no outcome")
                    return
                }
                status.append(outcome.status)
            }
            for index in 0..<count {
                #expect(times[index] <= 1, "round \(round): j\(index)'s body ran \(times[index]) times")
                // One that joined its key's leader ran no body, and so did not hang.
                #expect(!hangs[index] || times[index] == 0 || status[index] != .succeeded, "round \(round): j\(index) hung past its timeout and succeeded")
                switch status[index] {
                case .succeeded:
                    // Its own value, or that of the job with its key whose body ran.
                    let value = report.value(of: handles[index]) ?? -1
                    let shared = value >= 0 && value < count && keys[index] != nil && keys[value] == keys[index]
                        && times[value] == 1 && status[value] == .succeeded
                    #expect(value == index && times[index] == 1 || value != index && times[index] == 0 && shared,
                            "round \(round): j\(index) succeeded with j\(value)'s value, its body ran \(times[index]) times")
                    for need in needs[index] where status[need] != .succeeded {
                        Issue.record("round \(round): j\(index) succeeded, but its need j\(need) is \(status[need])")
                    }
                case .skipped:
                    #expect(times[index] == 0, "round \(round): j\(index) was skipped, but its body ran")
                case .cancelled, .timedOut:
                    break  // before it began (never ran) or while it ran (once)
                case .failed where failsOnce[index]:
                    break  // its retry was cut short (a cancel, the deadline)
                case .failed where times[index] == 0 && keys[index] != nil
                    && (0..<count).contains { keys[$0] == keys[index] && failsOnce[$0] && status[$0] == .failed }:
                    break  // it joined such a job, its key's leader
                case .failed, .upToDate:
                    Issue.record("round \(round): j\(index) is \(status[index]); no body fails or is up to date")
                }
            }
            if times.contains(where: { $0 > 1 }) { return }
        }
    }
}

/// The first attempt of a job that fails once.
private struct StressFailure: Error {}
