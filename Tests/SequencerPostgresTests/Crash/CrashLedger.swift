import Foundation
import SequencerQueue

/// The crash harness's ledger (written by `queue-crash-worker`, see its `Ledger.swift`), read as
/// it grows, and the checks that hold it against the store.
///
/// Events are ordered by their place in the file: every line is one `write(2)` with `O_APPEND`,
/// and the driver writes `kill PID` only once the process is gone, so a body of a killed process
/// ends, at the latest, at its `kill` line.
struct CrashLedger {
    enum Event: Equatable {
        case ready(pid: Int)
        case start(job: Int64, attempt: Int, pid: Int)
        case end(job: Int64, attempt: Int, pid: Int, ok: Bool)
        /// The process ended: killed by the driver, or by itself (the poison body).
        case gone(pid: Int)
    }

    /// What a seed enqueued: how each job must end, and what it needs.
    struct Planned {
        var expect: String
        var needs: [Int64]
    }

    let path: String
    private(set) var events: [Event] = []
    /// When each event happened: microseconds on the machine's monotonic clock.
    private(set) var times: [Int64] = []
    /// The workers' lease (`queue-crash-worker`'s options), in microseconds.
    static let lease: Int64 = 1_000_000
    private(set) var unreadable: [String] = []
    /// The processes that wrote `ready`.
    private(set) var ready: Set<Int> = []
    private var offset: UInt64 = 0
    private var partial = Data()

    init(path: String) { self.path = path }

    /// Reads the lines appended since the last call.
    mutating func read() throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let data = try handle.readToEnd() ?? Data()
        offset += UInt64(data.count)
        partial.append(data)
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)
            partial = Data(partial[(newline + 1)...])
            guard let event = Self.event(line) else {
                unreadable.append(line)
                continue
            }
            events.append(event)
            times.append(line.split(separator: " ").last.flatMap { Int64($0) } ?? 0)
            if case .ready(let pid) = event { ready.insert(pid) }
        }
    }

    static func event(_ line: String) -> Event? {
        let words = line.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("ready", 3): return Int(words[1]).map { .ready(pid: $0) }
        case ("kill", 3), ("died", 4): return Int(words[1]).map { .gone(pid: $0) }
        case ("start", 5):
            guard let job = Int64(words[1]), let attempt = Int(words[2]), let pid = Int(words[3]) else { return nil }
            return .start(job: job, attempt: attempt, pid: pid)
        case ("end", 6):
            guard let job = Int64(words[1]), let attempt = Int(words[2]), let pid = Int(words[3]) else { return nil }
            return .end(job: job, attempt: attempt, pid: pid, ok: words[4] == "ok")
        default: return nil
        }
    }

    /// The first body of `pid`'s that ended after event number `after`: its job and attempt.
    func firstEnd(of pid: Int, after: Int) -> (job: Int64, attempt: Int)? {
        for event in events[min(after, events.count)...] {
            if case .end(let job, let attempt, pid, _) = event { return (job, attempt) }
        }
        return nil
    }

    // MARK: - Checks

    /// Everything the harness promises, for every job in `jobs` (a snapshot of the whole store
    /// with no live job) against the ledger read after it. Returns the problems found.
    func problems(jobs: [DurableJob], planned: [Int64: Planned]) -> [String] {
        var problems = unreadable.map { "an unreadable ledger line: '\($0)'" }
        let byID = Dictionary(jobs.map { ($0.id.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        let runs = runs()
        let starts = Dictionary(grouping: runs, by: \.job)
        for (id, plan) in planned {
            guard let job = byID[id] else {
                problems.append("job \(id) is lost: the store no longer has it")
                continue
            }
            let ended =
                switch plan.expect {
                case "succeeded": job.state == .succeeded
                case "failed": job.state == .failed && job.errorCode == "failed"
                case "crashed": job.state == .failed && job.errorCode == "crashed"
                default: job.state == .skipped && job.errorCode == "needFailed"
                }
            if !ended { problems.append("job \(id) must end \(plan.expect), but is \(job.state) (\(job.errorCode ?? "-"): \(job.error ?? "-"))") }
        }
        for job in jobs {
            let id = job.id.rawValue
            if job.state.isLive { problems.append("job \(id) is still \(job.state)") }
            if planned[id] == nil, !(job.key?.hasPrefix("hot-") == true && job.state == .succeeded) {
                problems.append("job \(id) was not planned, and is \(job.state) with key \(job.key ?? "none")")
            }
            problems += attemptProblems(job, starts[id] ?? [])
        }
        for (id, plan) in planned {
            guard let first = starts[id]?.map(\.start).min() else { continue }
            for need in plan.needs {
                guard let done = byID[need], done.state == .succeeded,
                    let end = starts[need]?.first(where: { $0.attempt == done.attempts && $0.finished })?.end, end < first
                else {
                    problems.append("job \(id) started (ledger event \(first)) before its need \(need)'s recorded success ended")
                    continue
                }
            }
        }
        problems += overlaps(runs, by: { "job \($0.job)" })
        let keys = Dictionary(jobs.compactMap { job in job.key.map { (job.id.rawValue, $0) } }, uniquingKeysWith: { first, _ in first })
        problems += overlaps(runs.filter { keys[$0.job] != nil }, by: { "key \(keys[$0.job] ?? "")" })
        let lanes = Set(jobs.filter { $0.lane != nil }.map(\.id.rawValue))
        problems += overlaps(runs.filter { lanes.contains($0.job) }, by: { _ in "the narrow lane" })
        return problems
    }

    /// A body's run: from its `start` line to its `end` line, or to its process's `kill` line.
    struct Run {
        var job: Int64
        var attempt: Int
        var pid: Int
        var start: Int
        /// The event that ended it (Int.max: not ended yet).
        var end = Int.max
        var ok = false
        /// Whether it reached its `end` line (not killed first).
        var finished = false
    }

    func runs() -> [Run] {
        var runs: [Run] = []
        var open: [Int: [Int]] = [:]  // pid -> indexes in runs
        for (index, event) in events.enumerated() {
            switch event {
            case .ready: break
            case .start(let job, let attempt, let pid):
                open[pid, default: []].append(runs.count)
                runs.append(Run(job: job, attempt: attempt, pid: pid, start: index))
            case .end(let job, let attempt, let pid, let ok):
                guard let at = open[pid]?.firstIndex(where: { runs[$0].job == job && runs[$0].attempt == attempt }),
                    let run = open[pid]?.remove(at: at)
                else { continue }
                runs[run].end = index
                runs[run].ok = ok
                runs[run].finished = true
            case .gone(let pid):
                for run in open.removeValue(forKey: pid) ?? [] { runs[run].end = index }
            }
        }
        return runs
    }

    /// How many processes ended while one of their bodies ran.
    func endsMidBody() -> Int {
        Set(runs().filter { !$0.finished && $0.end != Int.max }.map(\.end)).count
    }

    /// A job's attempts in the ledger against the store: no attempt ran twice, none ran after
    /// the recorded end, and a recorded success is the end of a body that returned.
    private func attemptProblems(_ job: DurableJob, _ runs: [Run]) -> [String] {
        let id = job.id.rawValue
        var problems: [String] = []
        let attempts = runs.map(\.attempt)
        if Set(attempts).count != attempts.count { problems.append("job \(id): one attempt started twice (\(attempts))") }
        if let late = runs.first(where: { $0.attempt > job.attempts }) {
            problems.append("job \(id) ran attempt \(late.attempt) after its end (\(job.state)) was recorded for attempt \(job.attempts)")
        }
        switch job.state {
        case .succeeded:
            if !runs.contains(where: { $0.attempt == job.attempts && $0.finished && $0.ok }) {
                problems.append("job \(id)'s recorded success (attempt \(job.attempts)) is not the end of a body that returned")
            }
        case .skipped, .cancelled:
            if !runs.isEmpty { problems.append("job \(id) is \(job.state), but ran \(runs.count) times") }
        default: break
        }
        return problems
    }

    /// Runs of one group (the same job, key or lane) that overlap.
    ///
    /// One overlap is allowed, as leases allow it: a body that still ran a whole lease after it
    /// started, in another process. Bodies here take at most 400 ms, so its process was paused
    /// (by a loaded machine) and renewed nothing meanwhile: its lease expired, another worker
    /// took the job, and the fence refuses the paused attempt's end (which `attemptProblems`
    /// checks). Any other overlap is a failure of the leases.
    private func overlaps(_ runs: [Run], by group: (Run) -> String) -> [String] {
        var problems: [String] = []
        for (name, members) in Dictionary(grouping: runs, by: group) {
            var latest: Run?  // of the runs so far, the one that ends last
            for run in members.sorted(by: { $0.start < $1.start }) {
                if let earlier = latest, run.start < earlier.end,
                    earlier.pid == run.pid || times[run.start] - times[earlier.start] < Self.lease
                {
                    problems.append(
                        "\(name): job \(run.job) attempt \(run.attempt) (pid \(run.pid)) started while job \(earlier.job) attempt \(earlier.attempt) (pid \(earlier.pid)) ran")
                }
                if run.end > latest?.end ?? -1 { latest = run }
            }
        }
        return problems
    }
}
