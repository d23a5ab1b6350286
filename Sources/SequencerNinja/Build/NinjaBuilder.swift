import Foundation
import Sequencer
import SequencerJournal
import SequencerProcess
import Synchronization
import SequencerHistory
import SequencerCache

/// Runs the edges a scan found out of date on Sequencer's engine: an edge is a job, its inputs'
/// edges are its needs, a pool is a lane. Each job decides again, once its needs have ended,
/// whether its edge still has to run (an input that came out the same does not rerun it).
struct NinjaBuilder: Sendable {
    typealias EdgeID = NinjaGraph.EdgeID

    let graph: NinjaGraph
    let plan: BuildPlan
    let scan: UpToDateScan
    let facts: [EdgeID: EdgeFacts]
    /// For each scheduled edge, the scheduled edges that write an input its last run
    /// discovered (``BuildRound/discoveredProducers``).
    let discoveredProducers: [EdgeID: [EdgeID]]
    let hashes: BuildStateStore
    let records: any BuildRecords
    let status: BuildStatus
    let options: NinjaOptions
    let parallelism: Int
    let explain: @Sendable (String) -> Void
    /// Where commands' output is collected while they run (files used again and again).
    let scratchDirectory: String
    /// Where a recorded build keeps what its commands printed.
    let outputDirectory: String
    let environment: [String: String]
    /// The status line's count of commands still to run, dyndep rounds to come included.
    let commandsToRun: Int
    /// Records the build in the journal (nil: not recorded).
    let history: NinjaHistory.Session?
    /// The shared output cache (`SEQUENCER_CACHE`), if any.
    let cache: NinjaCache?
    var recorder: JournalRecorder? { history?.recorder }

    /// How the build ended, in ninja's words (`build stopped: …`), nil when it succeeded.
    enum Ending: Equatable {
        case succeeded
        case failed(String)
        case interrupted
    }

    /// Shared by the jobs: failures so far, and whether new edges may still start.
    final class Progress: Sendable {
        let failures = Atomic(0)
        let stopped = Atomic(false)
        let outputs = Atomic(0)
        /// Commands running now (for `-l`).
        let running = Atomic(0)
        let scratch: ScratchFiles

        init(scratchDirectory: String) { scratch = ScratchFiles(directory: scratchDirectory) }
    }

    struct NotStarted: Error, CustomStringConvertible {
        var description: String { "not started: the build stopped after a failure" }
    }
    struct CommandFailed: Error, CustomStringConvertible {
        var exit: String
        var description: String { "the command failed (\(exit))" }
    }

    func run(runner: ProcessRunner, interrupted: Interrupted) async -> Ending {
        var workflow = Workflow()
        for (name, pool) in graph.pools where pool.depth > 0 {
            workflow.lane("pool:" + name, width: pool.depth, ordered: false)
        }
        let progress = Progress(scratchDirectory: scratchDirectory)
        let cleaning = EagerCleaning(graph: graph, plan: plan, scan: scan)
        var total = 0
        var journalJobs: [HistoryGraph.Job] = []
        for edgeID in startOrder() {
            let edge = graph.edges[Int(edgeID)]
            var needs: [JobID] = []
            var seen = Set<EdgeID>()
            for input in edge.inputs {
                guard let producer = graph.nodes[Int(input)].inEdge, scan.isScheduled(producer), seen.insert(producer).inserted else { continue }
                needs.append(jobID(producer))
            }
            // The inputs its last run discovered are inputs too (ninja adds them to the graph):
            // a generated header that is rebuilt is waited for, and then read.
            for producer in discoveredProducers[edgeID] ?? [] where seen.insert(producer).inserted {
                needs.append(jobID(producer))
            }
            if !edge.isPhony, scan.counts(edgeID) { total += 1 }
            let pool = graph.pools[edge.pool]
            let lane = (pool?.depth ?? 0) > 0 ? "pool:" + edge.pool : nil
            let body = makeBody(edgeID, progress: progress, cleaning: cleaning, runner: runner)
            if recorder != nil {
                journalJobs.append(HistoryGraph.Job(
                    name: jobID(edgeID).rawValue, needs: needs.map(\.rawValue), lane: lane,
                    run: edge.isPhony ? "" : facts[edgeID]?.command ?? "", directory: nil))
            }
            do {
                try workflow.add(jobID(edgeID), needs: needs, lane: lane, body)
            } catch {
                return .failed(String(describing: error))
            }
        }
        status.planHasTotal(status.finishedCount + max(total, commandsToRun))
        let run: Run
        do {
            var runOptions = RunOptions(maxConcurrency: parallelism, keepGoing: options.failuresAllowed > 1)
            runOptions.readyOrder = .firstAdded
            if let recorder {
                let lanes = graph.pools.filter { $0.value.depth > 0 }.map { HistoryGraph.Lane(name: "pool:" + $0.key, width: $0.value.depth) }
                recorder.recordGraph(HistoryGraph(lanes: lanes.sorted { $0.name < $1.name }, jobs: journalJobs))
                recorder.willRecordChecks()
                runOptions.recorder = recorder
            }
            run = try workflow.start(runOptions)
        } catch {
            return .failed(String(describing: error))
        }
        interrupted.attach(run)
        let report = await run.report()
        status.buildFinished()
        records.flush()
        hashes.flush()
        let failures = progress.failures.load(ordering: .relaxed)
        if interrupted.isCancelled { return .interrupted }
        if failures == 0 { return report.status == .succeeded ? .succeeded : .failed("stuck [this is a bug]") }
        if failures >= options.failuresAllowed {
            return .failed(options.failuresAllowed > 1 ? "subcommands failed" : "subcommand failed")
        }
        return .failed("cannot make progress due to previous errors")
    }

    /// The scheduled edges in the order they are added (the order ready jobs start in): the
    /// manifest's, as ninja starts ready edges lowest first; but when more of a pool's edges
    /// are ready from the start than it has slots, ninja gives the slots to the first its walk
    /// reaches (they start lowest first), and the rest wait in the pool (lowest first).
    func startOrder() -> [EdgeID] {
        var order = plan.order.sorted().filter { scan.isScheduled($0) }
        var walkIndex: [EdgeID: Int] = [:]
        for (index, edgeID) in plan.order.enumerated() { walkIndex[edgeID] = index }
        var places: [String: [Int]] = [:]
        for (place, edgeID) in order.enumerated() {
            let edge = graph.edges[Int(edgeID)]
            let readyAtStart = !edge.inputs.contains { graph.nodes[Int($0)].inEdge.map { scan.isScheduled($0) } ?? false }
            if readyAtStart, (graph.pools[edge.pool]?.depth ?? 0) > 0 { places[edge.pool, default: []].append(place) }
        }
        for (pool, indices) in places {
            // The first `depth` the walk reaches get the slots, and start lowest first; the
            // rest wait in the pool, lowest first.
            let depth = graph.pools[pool]?.depth ?? 1
            guard indices.count > depth else { continue }
            let walked = indices.map { order[$0] }.sorted { walkIndex[$0, default: 0] < walkIndex[$1, default: 0] }
            let admitted = walked.prefix(depth).sorted() + walked.dropFirst(depth).sorted()
            for (place, edgeID) in zip(indices, admitted) { order[place] = edgeID }
        }
        return order
    }

    func jobID(_ edge: EdgeID) -> JobID {
        JobID(graph.nodes[Int(graph.edges[Int(edge)].outputs.first ?? 0)].path)
    }

    private func makeBody(
        _ edgeID: EdgeID, progress: Progress, cleaning: EagerCleaning, runner: ProcessRunner
    ) -> @Sendable (JobContext) async throws -> Void {
        let builder = self
        return { context in try await builder.runEdge(edgeID, context: context, progress: progress, cleaning: cleaning, runner: runner) }
    }

    /// Whether a waiting edge is up to date now that its inputs' edges have ended (then it
    /// leaves the status line's total, and its check is recorded).
    private func decideUpToDate(_ edgeID: EdgeID) -> Bool {
        guard !options.dryRun, !scan.forced[Int(edgeID)], case .waiting? = scan.verdicts[Int(edgeID)], let facts = facts[edgeID] else {
            return false
        }
        let outputs = graph.edges[Int(edgeID)].outputs.map { graph.nodes[Int($0)].path }
        guard let before = hashes.fingerprint(of: outputs[0]),
            EdgeFingerprint(graph: graph, hashes: hashes)
                .current(edgeID, facts: facts, discovered: records.discoveredInputs(outputs: outputs, facts: facts)) == before
        else { return false }
        recorder?.recordCheck(job: outputs[0], fingerprint: before.short, reason: nil)
        status.oneFewer()
        return true
    }

    private func runEdge(
        _ edgeID: EdgeID, context: JobContext, progress: Progress, cleaning: EagerCleaning, runner: ProcessRunner
    ) async throws {
        let edge = graph.edges[Int(edgeID)]
        let decidedEarly = cleaning.start(edgeID)
        if edge.isPhony || scan.verdicts[Int(edgeID)] == .passThrough { return }
        if progress.stopped.load(ordering: .relaxed) { throw NotStarted() }
        guard var facts = facts[edgeID] else { return }
        let outputs = edge.outputs.map { graph.nodes[Int($0)].path }
        let fingerprint = EdgeFingerprint(graph: graph, hashes: hashes)
        // Found up to date when an input's edge ended (``EagerCleaning``), or now that they all have.
        if decidedEarly == true {
            context.markUpToDate()
            return
        }
        if decidedEarly == nil, decideUpToDate(edgeID) {
            context.markUpToDate()
            cleaning.ended(edgeID) { decideUpToDate($0) }
            return
        }
        if let history {
            let before = hashes.fingerprint(of: outputs[0])?.short ?? ""
            let reason = self.reason(edgeID, facts: facts, outputs: outputs, history: history.history, before: before)
            history.recorder.recordCheck(job: outputs[0], fingerprint: before, reason: reason ?? "it runs")
            if case .waiting = scan.verdicts[Int(edgeID)], options.explain, let reason { explain("\(outputs[0]) runs: \(reason)") }
        } else if case .waiting(let reason) = scan.verdicts[Int(edgeID)], options.explain {
            explain("\(outputs[0]) runs: \(reason)")
        }
        let console = edge.pool == "console"
        // Expanded now: the scan leaves it out, as most edges of a build do not run.
        facts.description = (try? graph.description(of: edgeID)) ?? ""
        status.edgeStarted(description: facts.description, command: facts.command, console: console)
        let start = status.elapsed
        if options.dryRun {
            status.edgeFinished(description: facts.description, command: facts.command, outputs: outputs, success: true, output: [], console: console)
            return
        }
        // The engine's clock, which its job records use: from the run's start.
        let recordedStart = context.elapsed
        // A restat edge that rewrites nothing frees what waits on it at once.
        let outputsBefore = facts.restat ? outputs.map { hashes.digest($0) } : []
        // Restored from the cache, or run (and then stored, with `ticket`).
        var ticket: (action: CacheAction, ticket: ActionCache.Ticket)?
        var restored: (key: CacheDigest, discovered: [String])?
        var exit: ProcessExit?, output: [UInt8] = [], outputPath: String?
        if let cache, NinjaCache.caches(edge, facts: facts) {
            let action = cache.action(edge, graph: graph, facts: facts, outputs: outputs)
            let printed = progress.scratch.take()
            defer { progress.scratch.give(printed) }
            // A scratch file holds the last command's output: a result that printed nothing writes none.
            unlink(printed)
            switch await cache.cache.lookUp(action, printedPath: printed) {
            case .restored(let key, let result):
                restored = (key, cache.discovered(in: result))
                exit = .exited(0)
                output = FileManager.default.contents(atPath: printed).map { [UInt8]($0) } ?? []
                outputPath = recorder == nil ? nil : outputDirectory + "/\(progress.outputs.add(1, ordering: .relaxed).newValue)"
            case .missed(let missed):
                ticket = (action, missed)
            }
        }
        if restored == nil {
            (exit, output, outputPath) = await execute(
                facts, outputs: outputs, console: console, progress: progress, runner: runner,
                environment: ticket != nil ? cache?.environment ?? environment : environment)
        }
        var success = exit?.succeeded ?? false
        var discovered: [String] = restored?.discovered ?? []
        // Even after a failure, as ninja: the output loses its include lines, the depfile goes.
        if !facts.deps.isEmpty, restored == nil {
            do {
                (discovered, output) = try DiscoveredInputs.extract(facts: facts, output: output, keepDepfile: options.keepDepfiles)
            } catch {
                if success {
                    if !output.isEmpty { output.append(UInt8(ascii: "\n")) }
                    output += Array(error.message.utf8)
                    success = false
                }
            }
        }
        let end = status.elapsed
        if let recorder {
            recorder.recordAttempt(NewAttempt(
                job: outputs[0], attempt: 1, startedAt: recorder.time(at: recordedStart), endedAt: recorder.time(at: context.elapsed),
                end: success ? .succeeded : .failed,
                exit: restored.map { HistoryAttempt.restoredExit(key: $0.key.short) }
                    ?? (success ? "exit code 0" : exit.map { $0.succeeded ? "depfile unreadable" : $0.description } ?? "could not start"),
                exitCode: exit.flatMap { if case .exited(let code) = $0 { Int(code) } else { nil } },
                signal: exit.flatMap { if case .signaled(let signal) = $0 { Int(signal) } else { nil } },
                output: keep(output, at: outputPath).map { .file($0) } ?? .none))
        }
        status.edgeFinished(description: facts.description, command: facts.command, outputs: outputs, success: success, output: output, console: console)
        guard success else {
            // The last success's fingerprint stays: the inputs that made this run, or an output
            // it changed, differ from it, so the edge runs again; an edge that never succeeded
            // is marked, so that ninja's files cannot pass it for up to date.
            if hashes.fingerprint(of: outputs[0]) == nil { hashes.record(outputs[0], fingerprint: .failed) }
            let failures = progress.failures.add(1, ordering: .relaxed).newValue
            if failures >= options.failuresAllowed { progress.stopped.store(true, ordering: .relaxed) }
            throw CommandFailed(exit: exit.map { $0.succeeded ? "its depfile could not be read" : $0.description } ?? "could not start")
        }
        if let ticket, let cache {
            await store(ticket, cache: cache, edge: edge, facts: facts, outputs: outputs, discovered: discovered, output: output,
                        progress: progress, duration: .milliseconds(end - start))
        }
        for output in outputs { hashes.forget(output) }
        // A generator (CMake's re-run) rewrites some of its own inputs (CMakeCache.txt): its
        // fingerprint is taken of them as it left them.
        if facts.generator { for input in edge.inputs { hashes.forget(graph.nodes[Int(input)].path) } }
        if !facts.deps.isEmpty { records.recordDiscovered(outputs: outputs, inputs: discovered) }
        if !facts.responseFile.isEmpty, !options.keepResponseFiles { unlink(facts.responseFile) }
        let known = facts.deps.isEmpty ? records.discoveredInputs(outputs: outputs, facts: facts) : discovered
        let now = fingerprint.current(edgeID, facts: facts, discovered: known)
        hashes.record(outputs[0], fingerprint: now)
        if let recorder, let now {
            recorder.recordFingerprint(
                job: outputs[0], fingerprint: now.short, parts: fingerprint.parts(edgeID, facts: facts, discovered: known), outputs: [:])
        }
        records.recordCommand(outputs: outputs, facts: facts, start: start, end: end)
        if facts.restat, outputs.map({ hashes.digest($0) }) == outputsBefore {
            cleaning.ended(edgeID) { decideUpToDate($0) }
        }
    }

    /// Runs the command: makes its outputs' directories, writes its response file, and returns
    /// how it ended (nil: it could not start), what it printed, and the file that holds it
    /// while the build is recorded (else the file is gone).
    private func execute(
        _ facts: EdgeFacts, outputs: [String], console: Bool, progress: Progress, runner: ProcessRunner, environment: [String: String]
    ) async -> (ProcessExit?, [UInt8], String?) {
        for output in outputs {
            // The directory part, made when missing (ninja makes them before each command).
            guard let slash = output.utf8.lastIndex(of: UInt8(ascii: "/")), slash != output.utf8.startIndex else { continue }
            let directory = String(output[..<slash])
            if !FileStamp.of(directory).exists { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        }
        if !facts.responseFile.isEmpty {
            guard FileManager.default.createFile(atPath: facts.responseFile, contents: Data(facts.responseFileContent.utf8)) else {
                return (nil, Array("ninja: error: writing response file \(facts.responseFile)\n".utf8), nil)
            }
        }
        await waitForLoad(progress)
        progress.running.add(1, ordering: .relaxed)
        defer { progress.running.subtract(1, ordering: .relaxed) }
        // Into a scratch file of the build's, taken back for the next command: ninja reads a
        // pipe; creating and deleting a file per command costs the file system more than the
        // command on a large build.
        let outputPath = progress.scratch.take()
        defer { progress.scratch.give(outputPath) }
        let directory = FileManager.default.currentDirectoryPath
        var command = ProcessCommand.shell(facts.command, environment: environment, directory: directory)
        command.usesTerminal = console
        var exit: ProcessExit
        do {
            exit = try await runner.run(command, outputPath: outputPath)
        } catch {
            // Run by the shell, as ninja runs every command, for the shell's own message.
            command = ProcessCommand(arguments: ["/bin/sh", "-c", facts.command], environment: environment, directory: directory)
            command.usesTerminal = console
            do {
                exit = try await runner.run(command, outputPath: outputPath)
            } catch {
                return (nil, Array("\(error)\n".utf8), nil)
            }
        }
        let output = FileManager.default.contents(atPath: outputPath).map { [UInt8]($0) } ?? []
        // Kept with the run when it is recorded and printed something (see `keep`).
        let number = progress.outputs.add(1, ordering: .relaxed).newValue
        return (exit, output, recorder == nil ? nil : outputDirectory + "/\(number)")
    }

    /// Stores the result of an edge that just succeeded in the cache, with what it printed (its
    /// include lines taken out) and the inputs its depfile found.
    private func store(
        _ ticket: (action: CacheAction, ticket: ActionCache.Ticket), cache: NinjaCache, edge: NinjaGraph.Edge, facts: EdgeFacts,
        outputs: [String], discovered: [String], output: [UInt8], progress: Progress, duration: Duration
    ) async {
        var found = discovered
        // A depfile without `deps` stays for the next build to read: what it names is found now.
        if facts.deps.isEmpty, !facts.depfile.isEmpty { found = (try? DiscoveredInputs.readDepfile(facts.depfile)) ?? [] }
        let printed = progress.scratch.take()
        defer { progress.scratch.give(printed) }
        guard FileManager.default.createFile(atPath: printed, contents: Data(output)) else {
            cache.cache.warnNotStored(outputs[0], "what it printed cannot be written to \(printed)")
            return
        }
        await cache.cache.store(
            ticket.action, ticket: ticket.ticket, after: cache.action(edge, graph: graph, facts: facts, outputs: outputs, rereading: true).declared,
            discovered: found.map(cache.absolute), outputs: cache.storedFiles(facts, outputs: outputs), printedPath: printed,
            duration: duration)
    }

    /// Files for commands' output, each used by one command at a time and then by the next.
    final class ScratchFiles: Sendable {
        private let directory: String
        private let files = Locked<(free: [String], made: Int)>(([], 0))

        init(directory: String) { self.directory = directory }

        func take() -> String {
            files.withLock { files in
                if let path = files.free.popLast() { return path }
                files.made += 1
                return directory + "/\(files.made)"
            }
        }

        func give(_ path: String) { files.withLock { $0.free.append(path) } }
    }

    /// `-l N`: while other commands run and the load average is N or more, a new one waits
    /// (as ninja, one always runs; `-l 0` sets no limit).
    private func waitForLoad(_ progress: Progress) async {
        guard let limit = options.maxLoadAverage, limit > 0 else { return }
        while progress.running.load(ordering: .relaxed) > 0, !progress.stopped.load(ordering: .relaxed) {
            var load = [Double](repeating: 0, count: 1)
            guard getloadavg(&load, 1) == 1, load[0] >= limit else { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Why an edge runs: its verdict's reason, told part by part when its fingerprint changed
    /// (or an input's edge ran and changed what it wrote) and the journal kept the parts of its
    /// last success.
    private func reason(_ edgeID: EdgeID, facts: EdgeFacts, outputs: [String], history: NinjaHistory, before: String) -> String? {
        let reason: String? =
            switch scan.verdicts[Int(edgeID)] {
            case .dirty(let reason)?, .waiting(let reason)?: reason
            default: nil
            }
        var changed = reason == UpToDateScan.changed(outputs[0])
        if case .waiting? = scan.verdicts[Int(edgeID)] { changed = true }
        guard changed, let stored = history.storedParts(of: outputs[0], fingerprint: before) else { return reason }
        let now = EdgeFingerprint(graph: graph, hashes: hashes)
            .parts(edgeID, facts: facts, discovered: records.discoveredInputs(outputs: outputs, facts: facts))
        return EdgeFingerprint.explain(now, before: stored) ?? reason
    }

    /// The recorded output's file, written with what the build printed of it (include lines
    /// taken out); nil, and no file, when it printed nothing.
    private func keep(_ output: [UInt8], at path: String?) -> String? {
        guard let path, !output.isEmpty else { return nil }
        return FileManager.default.createFile(atPath: path, contents: Data(output)) ? path : nil
    }
}
