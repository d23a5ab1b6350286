import Foundation
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `kill -9` of `sequencer run` (and of `sequencer resume`) at random moments, each followed
/// by a resume, until the run succeeds. After every kill: the journal passes
/// `PRAGMA integrity_check`, and no job the journal had recorded as succeeded ran again. At
/// the end every job succeeded, started after the jobs it needs ended, and its last run came
/// after its needs' last runs.
///
/// CI runs 60 kill points; `SEQUENCER_KILL_POINTS=300` runs more.
@Suite(.suiteTimeLimit) struct KillResumeTests {
    static let killPoints = Int(ProcessInfo.processInfo.environment["SEQUENCER_KILL_POINTS"] ?? "") ?? 60
    static let jobCount = 24

    /// A random graph of shell jobs: each sleeps a little, then appends its name to `ran.log`.
    static func workflow(seed: UInt64) -> (yaml: String, needs: [String: [String]]) {
        var random = SplitMix64(state: seed)
        var yaml = "version: 1\njobs:\n"
        var needs: [String: [String]] = [:]
        for job in 0..<jobCount {
            let name = "j\(job)"
            var mine: [String] = []
            if job > 0 {
                for _ in 0..<random.below(3) { mine.append("j\(random.below(job))") }
            }
            mine = Array(Set(mine)).sorted()
            needs[name] = mine
            yaml += "  \(name):\n    run: sleep 0.0\(random.below(3)); echo \(name) >> ran.log\n"
            if !mine.isEmpty { yaml += "    needs: [\(mine.joined(separator: ", "))]\n" }
        }
        return (yaml, needs)
    }

    @Test func killedRunsResumeWithoutRunningASucceededJobAgain() async throws {
        var random = SplitMix64(state: 0x5EED_0001)
        var tally = Tally()
        // Kills are spread over the time a whole run takes here, measured first.
        let calibration = try CLI()
        defer { try? FileManager.default.removeItem(at: calibration.directory) }
        try calibration.write("sequencer.yml", Self.workflow(seed: 1).yaml)
        let start = ContinuousClock.now
        #expect(try await calibration.run(["run", "--jobs", "4"]).status == 0)
        // The time a run takes changes with the machine's load: each session that ends on its
        // own before its kill moves the window halfway to its own length.
        var window = Int((ContinuousClock.now - start) / .milliseconds(1)) + 20
        while tally.kills < Self.killPoints {
            try await killAndResume(seed: random.next(), maxKills: 8, window: &window, random: &random, tally: &tally)
        }
        // The kills must land while jobs run, not only before or after the run.
        #expect(tally.midRun * 4 >= tally.kills, "\(tally)")
        print("kill harness: \(tally)")
    }

    struct Tally: CustomStringConvertible {
        var workflows = 0
        var kills = 0
        /// Kills that landed after some of the session's jobs ran, before the run was recorded
        /// as finished.
        var midRun = 0
        var description: String { "\(kills) kills of \(workflows) workflows, \(midRun) mid-run" }
    }

    /// One workflow killed up to `maxKills` times, then resumed to the end.
    private func killAndResume(
        seed: UInt64, maxKills: Int, window: inout Int, random: inout SplitMix64, tally: inout Tally
    ) async throws {
        tally.workflows += 1
        let cli = try CLI()
        defer { try? FileManager.default.removeItem(at: cli.directory) }
        let (yaml, needs) = Self.workflow(seed: seed)
        try cli.write("sequencer.yml", yaml)
        let journalPath = cli.path(".sequencer/journal.sqlite")
        var kills = 0
        var session = 0
        while true {
            session += 1
            #expect(session < 30, "seed \(seed): the run never finished")
            guard session < 30 else { return }
            let hasJournal = FileManager.default.fileExists(atPath: journalPath)
            // Blocking reads (SQLite may wait for a lock) go on threads of their own, never on
            // Swift's pool: other suites run beside this one.
            let hasRun = try await blocking { try hasJournal && !SQLiteJournal(path: journalPath).runs(limit: 1).isEmpty }
            let arguments = hasRun ? ["resume", "--jobs", "4"] : ["run", "--jobs", "4"]
            let before = try await blocking { try succeeded(journalPath) }
            let countsBefore = counts(cli)
            let began = ContinuousClock.now
            let (process, stdout, stderr) = try cli.start(arguments)
            let killing = kills < maxKills
            if killing {
                if random.chance(percent: 50) {
                    // At a random moment: from before the journal opens to after the run ends.
                    try await Task.sleep(for: .milliseconds(random.below(window)))
                } else {
                    // After a random number of this session's jobs ran: while the run runs,
                    // however slowly the binary starts (a sanitized one starts slowly).
                    let left = Self.jobCount - before.count
                    let target = countsBefore.values.reduce(0, +) + 1 + random.below(max(1, left - 1))
                    _ = await eventually(within: .seconds(30)) {
                        !process.isRunning || counts(cli).values.reduce(0, +) >= target
                    }
                }
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    kills += 1
                    tally.kills += 1
                } else {
                    let took = Int((ContinuousClock.now - began) / .milliseconds(1))
                    window = max(20, (window + took) / 2)
                }
            }
            let result = try await cli.finish(process, stdout, stderr)
            let directory = cli.directory.path
            await onThread { killOrphans(in: directory) }
            // Jobs recorded as succeeded before this session must not have run in it.
            let countsAfter = counts(cli)
            let recorded = try await blocking { try succeeded(journalPath).count }
            let ranHere = countsAfter.values.reduce(0, +) > countsBefore.values.reduce(0, +)
            if killing, result.status != 0, ranHere, recorded < Self.jobCount { tally.midRun += 1 }
            for job in before {
                #expect(countsAfter[job, default: 0] == countsBefore[job, default: 0],
                        "seed \(seed), session \(session): \(job) had succeeded, yet ran again")
            }
            if FileManager.default.fileExists(atPath: journalPath) {
                #expect(try await blocking { try SQLiteJournal(path: journalPath).integrityProblems() } == [], "seed \(seed)")
            }
            if result.status == 0 || (!killing && result.status != 0) {
                #expect(result.status == 0, "seed \(seed): \(arguments) exited \(result.status): \(result.output)")
                break
            }
        }
        // Nothing writes the journal any more: reading it cannot wait.
        try checkFinalRun(cli, journalPath: journalPath, needs: needs, seed: seed)
    }

    /// Runs a blocking call that may throw on a thread of its own.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await onThread { Result { try body() } }.get()
    }

    private func checkFinalRun(_ cli: CLI, journalPath: String, needs: [String: [String]], seed: UInt64) throws {
        let journal = try SQLiteJournal(path: journalPath)
        let runs = try journal.runs()
        #expect(runs.count == 1 && runs.first?.status == "succeeded", "seed \(seed): \(runs)")
        let jobs = try journal.jobs(of: try #require(runs.first).id)
        let byName = Dictionary(uniqueKeysWithValues: jobs.map { ($0.name, $0) })
        #expect(byName.count == Self.jobCount)
        for (name, job) in byName {
            #expect(job.status == "succeeded", "seed \(seed): \(name) is \(job.status)")
            for need in needs[name] ?? [] {
                let needEnd = try #require(byName[need]?.endedAt)
                #expect(try #require(job.startedAt) >= needEnd, "seed \(seed): \(name) started before \(need) ended")
            }
        }
        // In the side-effect log, each job's last line comes after its needs' last lines.
        let lines = (cli.read("ran.log") ?? "").split(separator: "\n").map(String.init)
        var last: [String: Int] = [:]
        for (index, line) in lines.enumerated() { last[line] = index }
        #expect(last.count == Self.jobCount, "seed \(seed): not every job ran")
        for (name, position) in last {
            for need in needs[name] ?? [] {
                #expect((last[need] ?? Int.max) < position, "seed \(seed): \(name) last ran before \(need)")
            }
        }
    }

    /// The jobs the journal records as succeeded in its latest run.
    private func succeeded(_ path: String) throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let journal = try SQLiteJournal(path: path)
        guard let run = try journal.runs(limit: 1).first else { return [] }
        return Set(try journal.jobs(of: run.id).filter { $0.status == "succeeded" }.map(\.name))
    }

    private func counts(_ cli: CLI) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in (cli.read("ran.log") ?? "").split(separator: "\n") { counts[String(line), default: 0] += 1 }
        return counts
    }

    /// `kill -9` leaves the jobs' processes running (each in its own process group): kill every
    /// process working in the test's directory, so none appends to `ran.log` later.
    private func killOrphans(in directory: String) {
        let resolved = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        for _ in 0..<3 {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            var found = false
            for entry in entries {
                guard let pid = Int32(entry), pid != getpid() else { continue }
                guard let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/cwd"),
                      cwd == resolved || cwd == directory else { continue }
                kill(pid, SIGKILL)
                found = true
            }
            guard found else { return }
            usleep(20_000)  // let the killed processes go before looking again
        }
    }
}
