import Foundation
import Sequencer
import SequencerProcess
import Synchronization

/// Runs the edges a scan found out of date on Sequencer's engine: an edge is a job, its inputs'
/// edges are its needs, a pool is a lane. Each job decides again, once its needs have ended,
/// whether its edge still has to run (an input that came out the same does not rerun it).
struct NinjaBuilder: Sendable {
    typealias EdgeID = NinjaGraph.EdgeID

    let graph: NinjaGraph
    let plan: BuildPlan
    let scan: UpToDateScan
    let facts: [EdgeID: EdgeFacts]
    let hashes: BuildStateStore
    let records: any BuildRecords
    let status: BuildStatus
    let options: NinjaOptions
    let parallelism: Int
    let explain: @Sendable (String) -> Void
    /// Where commands' output is collected while they run.
    let outputDirectory: String
    let environment: [String: String]
    /// The status line's count of commands still to run, dyndep rounds to come included.
    let commandsToRun: Int

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
    }

    struct NotStarted: Error {}
    struct CommandFailed: Error {}

    func run(runner: ProcessRunner, interrupted: Interrupted) async -> Ending {
        var workflow = Workflow()
        for (name, pool) in graph.pools where pool.depth > 0 {
            workflow.lane("pool:" + name, width: pool.depth, ordered: false)
        }
        let progress = Progress()
        var total = 0
        // In the order of the manifest, as ninja starts ready edges (lowest first).
        for edgeID in plan.order.sorted() where scan.isScheduled(edgeID) {
            let edge = graph.edges[Int(edgeID)]
            var needs: [JobID] = []
            var seen = Set<EdgeID>()
            for input in edge.inputs {
                guard let producer = graph.nodes[Int(input)].inEdge, scan.isScheduled(producer), seen.insert(producer).inserted else { continue }
                needs.append(jobID(producer))
            }
            if !edge.isPhony, scan.counts(edgeID) { total += 1 }
            let pool = graph.pools[edge.pool]
            let lane = (pool?.depth ?? 0) > 0 ? "pool:" + edge.pool : nil
            let body = makeBody(edgeID, progress: progress, runner: runner)
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

    func jobID(_ edge: EdgeID) -> JobID {
        JobID(graph.nodes[Int(graph.edges[Int(edge)].outputs.first ?? 0)].path)
    }

    private func makeBody(_ edgeID: EdgeID, progress: Progress, runner: ProcessRunner) -> @Sendable (JobContext) async throws -> Void {
        let builder = self
        return { context in try await builder.runEdge(edgeID, context: context, progress: progress, runner: runner) }
    }

    private func runEdge(_ edgeID: EdgeID, context: JobContext, progress: Progress, runner: ProcessRunner) async throws {
        let edge = graph.edges[Int(edgeID)]
        if edge.isPhony || scan.verdicts[Int(edgeID)] == .passThrough { return }
        if progress.stopped.load(ordering: .relaxed) { throw NotStarted() }
        guard let facts = facts[edgeID] else { return }
        let outputs = edge.outputs.map { graph.nodes[Int($0)].path }
        let fingerprint = EdgeFingerprint(graph: graph, hashes: hashes)
        // Decided again now that the inputs' edges have ended.
        if case .waiting = scan.verdicts[Int(edgeID)], !scan.forced[Int(edgeID)], !options.dryRun,
            let before = hashes.fingerprint(of: outputs[0]),
            fingerprint.current(edgeID, facts: facts, discovered: records.discoveredInputs(outputs: outputs, facts: facts)) == before
        {
            status.oneFewer()
            context.markUpToDate()
            return
        }
        if case .waiting(let reason) = scan.verdicts[Int(edgeID)], options.explain { explain("\(outputs[0]) runs: \(reason)") }
        let console = edge.pool == "console"
        status.edgeStarted(description: facts.description, command: facts.command, console: console)
        let start = status.elapsed
        if options.dryRun {
            status.edgeFinished(description: facts.description, command: facts.command, outputs: outputs, success: true, output: [], console: console)
            return
        }
        var (success, output) = await execute(facts, outputs: outputs, console: console, progress: progress, runner: runner)
        var discovered: [String] = []
        // Even after a failure, as ninja: the output loses its include lines, the depfile goes.
        if !facts.deps.isEmpty {
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
        status.edgeFinished(description: facts.description, command: facts.command, outputs: outputs, success: success, output: output, console: console)
        guard success else {
            // The last success's fingerprint stays: the inputs that made this run, or an output
            // it changed, differ from it, so the edge runs again; an edge that never succeeded
            // is marked, so that ninja's files cannot pass it for up to date.
            if hashes.fingerprint(of: outputs[0]) == nil { hashes.record(outputs[0], fingerprint: .failed) }
            let failures = progress.failures.add(1, ordering: .relaxed).newValue
            if failures >= options.failuresAllowed { progress.stopped.store(true, ordering: .relaxed) }
            throw CommandFailed()
        }
        for output in outputs { hashes.forget(output) }
        // A generator (CMake's re-run) rewrites some of its own inputs (CMakeCache.txt): its
        // fingerprint is taken of them as it left them.
        if facts.generator { for input in edge.inputs { hashes.forget(graph.nodes[Int(input)].path) } }
        if !facts.deps.isEmpty { records.recordDiscovered(outputs: outputs, inputs: discovered) }
        if !facts.responseFile.isEmpty, !options.keepResponseFiles { unlink(facts.responseFile) }
        let known = facts.deps.isEmpty ? records.discoveredInputs(outputs: outputs, facts: facts) : discovered
        hashes.record(outputs[0], fingerprint: fingerprint.current(edgeID, facts: facts, discovered: known))
        records.recordCommand(outputs: outputs, facts: facts, start: start, end: end)
    }

    /// Runs the command: makes its outputs' directories, writes its response file, and returns
    /// whether it succeeded and what it printed.
    private func execute(_ facts: EdgeFacts, outputs: [String], console: Bool, progress: Progress, runner: ProcessRunner) async -> (Bool, [UInt8]) {
        for output in outputs {
            // The directory part, made when missing (ninja makes them before each command).
            guard let slash = output.utf8.lastIndex(of: UInt8(ascii: "/")), slash != output.utf8.startIndex else { continue }
            let directory = String(output[..<slash])
            if !FileStamp.of(directory).exists { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        }
        if !facts.responseFile.isEmpty {
            guard FileManager.default.createFile(atPath: facts.responseFile, contents: Data(facts.responseFileContent.utf8)) else {
                return (false, Array("ninja: error: writing response file \(facts.responseFile)\n".utf8))
            }
        }
        let number = progress.outputs.add(1, ordering: .relaxed).newValue
        let outputPath = outputDirectory + "/\(number)"
        defer { unlink(outputPath) }
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
                return (false, Array("\(error)\n".utf8))
            }
        }
        let output = FileManager.default.contents(atPath: outputPath).map { [UInt8]($0) } ?? []
        return (exit.succeeded, output)
    }
}
