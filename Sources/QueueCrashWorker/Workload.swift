#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Sequencer
import SequencerQueue
import SequencerTestHelpers
import SequencerTestSupport

/// What a `work` job does: sleeps a random 0 to `sleep` milliseconds, so that kills land in
/// the middle of bodies (a few sleep up to 400 ms, across heartbeats), and fails its first
/// `failures` attempts (all of them when `doomed`).
struct Work: Codable, Sendable {
    var sleep: Int = 20
    var failures: Int = 0
    var doomed: Bool = false
}

/// What a `hold` job does: runs until the file `\(release)-N` exists (N its attempt's
/// number), deaf to cancellation (a body slow to notice that its worker lost the lease), and
/// returns its process's ID.
struct Hold: Codable, Sendable {
    var release: String
}

struct PlannedFailure: Error, CustomStringConvertible {
    let description: String
}

/// The harness's kinds: `work`; `poison`, whose body kills its own process every time; `hold`.
enum Workload {
    /// The lane whose width is 1: its jobs never run two at a time, in any process.
    static let narrowLane = "narrow"
    /// The keys each worker enqueues a job under when it starts (coalesced while one is live),
    /// so that one key gets many jobs over a run, each of which must run alone.
    static let hotKeys = ["hot-0", "hot-1", "hot-2"]

    static func register(on queue: DurableQueue, ledger: Ledger) {
        let pid = String(getpid())
        queue.register("work") { (work: Work, context: JobContext) async throws -> Int in
            let (job, attempt) = try attempt(of: context)
            ledger.append("start", job, attempt, pid)
            do {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...max(0, work.sleep))))
            } catch {
                // Cancelled by its worker (its lease was lost): the body ends here.
                ledger.append("end", job, attempt, pid, "cancelled")
                throw error
            }
            guard !work.doomed, (Int(attempt) ?? 0) > work.failures else {
                ledger.append("end", job, attempt, pid, "failed")
                throw PlannedFailure(description: "attempt \(attempt) of job \(job) fails, as planned")
            }
            ledger.append("end", job, attempt, pid, "ok")
            return 1
        }
        queue.register("hold") { (hold: Hold, context: JobContext) async throws -> Int in
            let (job, attempt) = try attempt(of: context)
            ledger.append("start", job, attempt, pid)
            while !FileManager.default.fileExists(atPath: "\(hold.release)-\(attempt)") {
                // A task of its own: not cancelled with the body, so the wait goes on.
                await Task { try? await Task.sleep(for: .milliseconds(5)) }.value
            }
            ledger.append("end", job, attempt, pid, "ok")
            return Int(getpid())
        }
        queue.register("poison") { (_: Int, context: JobContext) async throws -> Int in
            let (job, attempt) = try attempt(of: context)
            ledger.append("start", job, attempt, pid)
            kill(getpid(), SIGKILL)
            return 0
        }
    }

    /// The durable job's number and attempt.
    static func attempt(of context: JobContext) throws -> (job: String, attempt: String) {
        guard let (id, attempt) = context.durableJob else { throw PlannedFailure(description: "\(context.id) is not a durable job") }
        return (String(id.rawValue), String(attempt))
    }

    /// Enqueues round `round` of the workload: 200 `work` jobs, some needing earlier ones, some
    /// sharing keys (coalesced), some in the narrow lane, some failing and retrying, a few
    /// failing for good. Returns the manifest: one line per distinct job, `job ID expect STATE
    /// needs ID...`, STATE being how it must end (succeeded, failed or skipped).
    static func seed(_ queue: DurableQueue, round: Int) async throws -> [String] {
        try await queue.lane(narrowLane, width: 1)
        var random = SplitMix64(state: UInt64(round) &* 0x9E37_79B9 &+ 1)
        var ids: [DurableJobID] = []
        var expected: [DurableJobID: String] = [:]
        var lines: [String] = []
        for index in 0..<200 {
            var work = Work()
            // A few slow bodies hold their lease across heartbeats.
            if random.chance(percent: 8) { work.sleep = 400 }
            work.doomed = random.chance(percent: 4)
            work.failures = random.chance(percent: 15) ? random.int(1...2) : 0
            let retry: RetryPolicy =
                work.doomed ? .exponential(attempts: 2, initial: .milliseconds(5))
                : work.failures > 0 ? .exponential(attempts: 20, initial: .milliseconds(5), max: .milliseconds(50)) : .none
            var needs: [DurableJobID] = []
            if index > 0, random.chance(percent: 40) {
                for _ in 0..<random.int(1...3) { needs.append(ids[max(0, index - 1 - random.below(20))]) }
            }
            let key = random.chance(percent: 15) ? "r\(round)-k\(random.below(5))" : nil
            let id = try await queue.enqueue(
                "work", work, key: key, needs: needs, priority: random.pick([.background, .utility, .userInitiated]),
                lane: random.chance(percent: 10) ? narrowLane : nil, retry: retry)
            ids.append(id)
            guard expected[id] == nil else { continue }  // coalesced with a live job of its key
            // A need that does not succeed skips the job before it could fail.
            let state =
                needs.contains { expected[$0] != "succeeded" } ? "skipped" : work.doomed ? "failed" : "succeeded"
            expected[id] = state
            lines.append((["job", "\(id.rawValue)", "expect", state, "needs"] + needs.map { "\($0.rawValue)" }).joined(separator: " "))
        }
        return lines
    }

    /// Enqueues the poison job, a job that needs it and one that needs that one; returns their
    /// manifest (the poison job must end `crashed`, the others `skipped`). Nothing else is
    /// enqueued: a job claimed beside the poison one would die with it, and count crashes too.
    static func seedPoison(_ queue: DurableQueue) async throws -> [String] {
        let poison = try await queue.enqueue("poison", 0)
        let dependent = try await queue.enqueue("work", Work(), needs: [poison])
        let transitive = try await queue.enqueue("work", Work(), needs: [dependent])
        return [
            "job \(poison.rawValue) expect crashed needs",
            "job \(dependent.rawValue) expect skipped needs \(poison.rawValue)",
            "job \(transitive.rawValue) expect skipped needs \(dependent.rawValue)",
        ]
    }
}
