import Sequencer

/// `sequencer-bench --queue N`: one `JobQueue` fed N no-op jobs in batches, each batch added
/// while the one before still runs, as an app's background queue is fed over its lifetime.
/// Every tenth job needs the job added five before it. Prints the time per job and the
/// resident memory as the jobs go by: a queue keeps only what can still be asked for, so the
/// memory must stay flat however many jobs went through.
enum QueueSoak {
    static func run(jobs: Int, batch: Int) async -> Int32 {
        let keepFinished = 10_000
        let queue = JobQueue(RunOptions(), keepFinished: keepFinished)
        let clock = ContinuousClock()
        let start = clock.now
        var previous: JobHandle<Void>?
        var added = 0
        var nextReport = min(jobs, max(batch, 100_000))
        print("jobs        µs/job   resident MB   peak MB")
        do {
            while added < jobs {
                let count = min(batch, jobs - added)
                var last: JobHandle<Void>?
                for offset in 0..<count {
                    let number = added + offset
                    let needs = number % 10 == 9 ? [JobID("j\(number - 5)")] : []
                    last = try queue.add(JobID("j\(number)"), needs: needs) { _ in }
                }
                added += count
                // The batch before must end before the next is added: the queue always has
                // work, and at most two batches are in it.
                if let previous { try await queue.value(of: previous) }
                previous = last
                if added >= nextReport || added == jobs {
                    let elapsed = start.duration(to: clock.now)
                    let perJob = Double(elapsed.components.seconds) * 1e6 / Double(added)
                        + Double(elapsed.components.attoseconds) / 1e12 / Double(added)
                    print(
                        "\(String(added).padding(toLength: 10, withPad: " ", startingAt: 0))"
                            + "  \(format(perJob))   \(format(megabytes(Memory.residentBytes())))"
                            + "        \(format(megabytes(Memory.peakBytes())))")
                    // Every decade up to a million, then every million: a leak shows as a slope.
                    nextReport = min(jobs, nextReport < 1_000_000 ? nextReport * 10 : nextReport + 1_000_000)
                }
            }
            queue.close()
            let report = await queue.report()
            guard report.status == .succeeded, report.count(.succeeded) == jobs else {
                printError("sequencer-bench: the queue reported \(report.status), \(report.count(.succeeded)) of \(jobs) succeeded")
                return 1
            }
            print("kept at the end: \(report.outcomes.count) jobs (keepFinished \(keepFinished))")
            return 0
        } catch {
            printError("sequencer-bench: \(error)")
            return 1
        }
    }

    private static func megabytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

    private static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return String(describing: rounded).padding(toLength: 8, withPad: " ", startingAt: 0)
    }
}
