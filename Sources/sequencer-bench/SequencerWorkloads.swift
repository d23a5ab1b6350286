import Foundation
import Sequencer
import SequencerJournal
import Synchronization

/// Job options turned on for the options-overhead rows.
struct JobSettings: OptionSet, Sendable {
    let rawValue: Int
    /// Jobs spread round-robin over 4 ordered lanes of width 2.
    static let lanes = JobSettings(rawValue: 1)
    /// Priorities round-robin over `.background ... .userInteractive`.
    static let priorities = JobSettings(rawValue: 2)
    /// `retry: .exponential(attempts: 3)` on every job.
    static let retry = JobSettings(rawValue: 4)
    /// `timeout: .seconds(60)` on every job: never reached, but a timer per attempt.
    static let timeout = JobSettings(rawValue: 8)
    /// A coalescing key of its own on every job: nothing is shared.
    static let distinctKeys = JobSettings(rawValue: 16)
    /// One coalescing key on every job: one body runs, every other job shares its result.
    static let sharedKey = JobSettings(rawValue: 32)
    /// Recorded in an SQLite journal (a temporary file): every job's start and end.
    static let journal = JobSettings(rawValue: 64)
}

/// The workloads run through Sequencer. Each timing covers building the workflow, the run,
/// reading the report, and freeing it all: what a caller pays.
enum SequencerWorkloads {
    static let laneNames = ["lane0", "lane1", "lane2", "lane3"]
    /// How many children each parent adds in ``children(count:perParent:)`` for the children row.
    static let childrenPerParent = 100

    /// `count` independent no-op jobs named `j0`, `j1`, ...
    /// - Returns: the number of jobs that succeeded.
    /// - Throws: when the workflow is invalid or the run did not succeed.
    static func flat(count: Int, settings: JobSettings) async throws -> Int {
        var workflow = Workflow()
        let options = Options(settings, workflow: &workflow)
        for job in 0..<count {
            try workflow.add(
                JobID("j\(job)"), lane: options.lane(job), priority: options.priority(job), timeout: options.timeout,
                retry: options.retry, coalesce: options.key(job), options.body
            )
        }
        return try await runToEnd(workflow, expecting: count, options: options)
    }

    /// The jobs of `dag`, named `j0`, `j1`, ..., each needing its graph needs by ID.
    /// - Returns: the number of jobs that succeeded.
    /// - Throws: when the workflow is invalid or the run did not succeed.
    static func dag(_ dag: RandomDAG, settings: JobSettings) async throws -> Int {
        var workflow = Workflow()
        let options = Options(settings, workflow: &workflow)
        let ids = (0..<dag.count).map { JobID("j\($0)") }
        for job in 0..<dag.count {
            try workflow.add(
                ids[job], needs: dag.needs(of: job).map { ids[Int($0)] },
                lane: options.lane(job), priority: options.priority(job), timeout: options.timeout,
                retry: options.retry, coalesce: options.key(job), options.body
            )
        }
        return try await runToEnd(workflow, expecting: dag.count, options: options)
    }

    /// What ``flat(count:settings:)`` does before it runs: builds the workflow and compiles it
    /// (`validate()`). Returns the number of jobs.
    static func buildFlat(count: Int) throws -> Int {
        var workflow = Workflow()
        for job in 0..<count { try workflow.add(JobID("j\(job)")) { _ in } }
        try workflow.validate()
        return workflow.count
    }

    /// What ``dag(_:settings:)`` does before it runs: builds the workflow and compiles it.
    /// Returns the number of jobs.
    static func buildDAG(_ dag: RandomDAG) throws -> Int {
        var workflow = Workflow()
        let ids = (0..<dag.count).map { JobID("j\($0)") }
        for job in 0..<dag.count {
            try workflow.add(ids[job], needs: dag.needs(of: job).map { ids[Int($0)] }) { _ in }
        }
        try workflow.validate()
        return workflow.count
    }

    /// `count` no-op jobs, parents and children: parents `p0`, `p1`, ... each add up to
    /// `perParent` children (`p0/c0`, ...) and wait for them. With one child a parent, half the
    /// jobs are parents; with many, `count` are children.
    /// - Returns: the number of jobs that succeeded.
    /// - Throws: when the run did not succeed or a parent saw a child that did not succeed.
    static func children(count: Int, perParent: Int) async throws -> Int {
        let names = (0..<perParent).map { JobID("c\($0)") }
        let childCount = perParent == 1 ? count / 2 : count
        let parents = (childCount + perParent - 1) / perParent
        var workflow = Workflow()
        for parent in 0..<parents {
            let children = names.prefix(childCount - parent * perParent)
            try workflow.add(JobID("p\(parent)")) { ctx in
                for name in children { try ctx.addChild(name) { _ in } }
                let outcomes = try await ctx.waitForChildren()
                guard outcomes.count == children.count, outcomes.allSatisfy({ $0.status == .succeeded }) else {
                    throw BenchFailure("\(ctx.id): \(outcomes.count) children ended, not all succeeded; \(children.count) added")
                }
            }
        }
        _ = try await runToEnd(workflow, expecting: childCount + parents, options: nil)
        return perParent == 1 ? childCount + parents : count
    }

    private static func runToEnd(_ workflow: Workflow, expecting count: Int, options: Options?) async throws -> Int {
        var runOptions = RunOptions()
        if options?.settings.contains(.journal) == true {
            runOptions.recorder = try journal().beginRun(workflow: "bench")
        }
        // The report comes after the journal's last write.
        let report = try await workflow.start(runOptions).report()
        let succeeded = report.count(.succeeded)
        guard report.status == .succeeded, succeeded == count else {
            throw BenchFailure("run ended \(report.status) with \(succeeded) of \(count) jobs succeeded")
        }
        if let expected = options?.expectedBodyRuns(jobs: count), let ran = options?.bodyRuns.value, ran != expected {
            throw BenchFailure("\(ran) bodies ran for \(count) jobs with coalescing keys; expected \(expected)")
        }
        return succeeded
    }

    /// Each job's lane, priority, timeout, retry policy, coalescing key and body under some
    /// ``JobSettings``.
    private struct Options {
        let lanes: [String]
        let priorities: [Priority]
        let timeout: Duration?
        let retry: RetryPolicy
        let settings: JobSettings
        /// How many bodies ran; counted only with coalescing keys, where it tells one shared
        /// run from one run a job (one relaxed atomic add a body).
        let bodyRuns = Counter()
        /// The no-op body; with coalescing keys, one that counts its runs.
        let body: @Sendable (JobContext) async throws -> Void

        init(_ settings: JobSettings, workflow: inout Workflow) {
            self.settings = settings
            lanes = settings.contains(.lanes) ? SequencerWorkloads.laneNames : []
            for lane in lanes { workflow.lane(lane, width: 2) }
            priorities = settings.contains(.priorities) ? Priority.allCases : []
            timeout = settings.contains(.timeout) ? .seconds(60) : nil
            retry = settings.contains(.retry) ? .exponential(attempts: 3) : .none
            let counter = bodyRuns
            if settings.isDisjoint(with: [.distinctKeys, .sharedKey]) {
                body = { @Sendable _ in }
            } else {
                body = { @Sendable _ in counter.add() }
            }
        }

        func lane(_ job: Int) -> String? { lanes.isEmpty ? nil : lanes[job % lanes.count] }
        func priority(_ job: Int) -> Priority { priorities.isEmpty ? .utility : priorities[job % priorities.count] }

        func key(_ job: Int) -> String? {
            if settings.contains(.sharedKey) { return "shared" }
            return settings.contains(.distinctKeys) ? "k\(job)" : nil
        }

        /// How many bodies must have run for `jobs` jobs, or nil when they are not counted.
        func expectedBodyRuns(jobs: Int) -> Int? {
            if settings.contains(.sharedKey) { return 1 }
            return settings.contains(.distinctKeys) ? jobs : nil
        }
    }

    /// The journal of the journaled rows: a temporary file, deleted when the process exits.
    static func journal() throws -> SQLiteJournal {
        if let journal = sharedJournal.withLock({ $0 }) { return journal }
        let directory = NSTemporaryDirectory() + "sequencer-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "sequencer-bench-\(getpid())") }
        let journal = try SQLiteJournal(path: directory + "/journal.sqlite")
        sharedJournal.withLock { $0 = journal }
        return journal
    }

    private static let sharedJournal = Mutex<SQLiteJournal?>(nil)

    /// A count shared by the bodies of a run.
    private final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }
}
