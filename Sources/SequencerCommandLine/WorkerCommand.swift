import ArgumentParser
import Foundation
import Sequencer
import SequencerProcess
import SequencerQueue
import SequencerRunner
import SequencerWorkflowFile
import SequencerCache
import SequencerMetrics
import CoreMetrics
import Prometheus

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run the jobs that `sequencer run --queue` submitted, from a durable queue.",
        discussion: """
            A worker serves the workflows whose files it is given: it takes their jobs from the \
            queue (never another workflow's) and runs each command in its copy of the workflow's \
            directory, with the environment the submitter read from the file added to its own. \
            Each attempt's output is kept in the queue (`sequencer show RUN --output JOB --queue \
            ...`). Any number of workers may work one queue, in any processes; a job whose \
            worker dies runs again on another once its lease expires (--lease, 30 s). Ctrl-C (or \
            SIGTERM) stops the worker: its running commands get SIGTERM and their jobs go back \
            to the queue at once; a second Ctrl-C kills them. With --drain, SIGTERM drains instead             (as an orchestrator's stop asks): the worker claims no more jobs and lets its running             commands finish within the drain's time; those still running then are stopped and go             back to the queue. A second signal stops them at once.
            """
    )

    @Option(name: .customLong("queue"), help: ArgumentHelp(
        "The durable queue: an SQLite file, sqlite:PATH, or postgres://user:password@host/database (default: $SEQUENCER_QUEUE).", valueName: "location"))
    var queueLocation: String?

    @Option(name: [.customShort("f"), .customLong("file")], help: ArgumentHelp(
        "A workflow file whose jobs this worker runs; repeat it for more (default: sequencer.yml).", valueName: "file"))
    var files: [String] = []

    @Option(name: [.customShort("j", allowingJoined: true), .long], help: "The most jobs running at once (-j 4 or -j4); the default is the number of cores.")
    var jobs: Int = RunOptions.activeProcessorCount

    @Option(help: ArgumentHelp(
        "Take only the jobs of these lanes, comma-separated (default: every job, in a lane or not): a machine with a GPU serves `--lanes gpu`.",
        valueName: "lanes"))
    var lanes: String?

    @Option(help: ArgumentHelp("How long a stopped command may take to exit after SIGTERM before it gets SIGKILL.",
                               valueName: "duration"))
    var gracePeriod = "2s"

    @Option(help: ArgumentHelp(
        "On SIGTERM, claim no more jobs and let the running ones finish within this time before stopping them (default: stop them at once).",
        valueName: "duration"))
    var drain: String?

    @Option(help: ArgumentHelp(
        "How often the worker renews its leases and hears that a run it works on was cancelled.", valueName: "duration"))
    var heartbeat = "2s"

    @Option(help: ArgumentHelp(
        "How long a job stays this worker's without a heartbeat: after it dies, its jobs run elsewhere this much later.",
        valueName: "duration"))
    var lease = "30s"

    @Option(help: ArgumentHelp(
        "Serve the queue's metrics to Prometheus at http://ADDRESS/metrics (127.0.0.1:9464; port 0 takes a free one, said on stderr).",
        valueName: "address"))
    var metrics: String?

    @Flag(help: ArgumentHelp(
        "Export each attempt as an OpenTelemetry span over OTLP/HTTP (to $OTEL_EXPORTER_OTLP_ENDPOINT), in the trace of the run that submitted it, through sequencer-otel."))
    var otel = false

    @OptionGroup(title: "Cache")
    var cache: CacheOptions

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        _ = try duration(gracePeriod, option: "--grace-period")
        if let drain { _ = try duration(drain, option: "--drain") }
        if let metrics { _ = try MetricsAddress(metrics) }
        guard try duration(heartbeat, option: "--heartbeat") < duration(lease, option: "--lease") else {
            throw ValidationError("--heartbeat must be shorter than --lease")
        }
    }

    func run() async throws {
        if otel { try Telemetry.handOverUnlessExporting() }
        signal(SIGPIPE, SIG_IGN)
        guard let location = QueueOptions.location(queueLocation) else {
            throw ValidationError("give the queue with --queue LOCATION, or in SEQUENCER_QUEUE")
        }
        var workflows: [(name: String, file: WorkflowFile)] = []
        for path in files.isEmpty ? ["sequencer.yml"] : files {
            let file = try expandOrExit(try loadOrExit(path))
            let name = QueueShellJob.workflowName(of: file)
            if let other = workflows.first(where: { $0.name == name }) {
                throw ValidationError("\(path) and \(other.file.path) are both workflow '\(name)' (the name of their directory): give one")
            }
            workflows.append((name, file))
        }
        let served = lanes.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        if let served {
            let declared = Set(workflows.flatMap { $0.file.lanes.map(\.name) })
            for lane in served where !declared.contains(lane) {
                throw ValidationError("--lanes: no workflow file given declares lane '\(lane)' (declared: \(declared.sorted().joined(separator: ", ")))")
            }
        }
        let endpoint = try await startMetrics()
        defer { if let endpoint { Task { await endpoint.close() } } }
        let store = try await QueueLocation.open(location)
        let shown = QueueLocation.shown(location)
        var options = DurableQueue.Options()
        options.heartbeat = try duration(heartbeat, option: "--heartbeat")
        options.lease = try duration(lease, option: "--lease")
        // An SQLite queue has no notification between processes: a job another process
        // released is seen at the next look, so look often (a cheap read). PostgreSQL notifies
        // (LISTEN/NOTIFY); its poll is only the fallback for a notification lost with a
        // connection.
        options.poll = QueueLocation.isPostgres(location) ? .seconds(2) : .milliseconds(200)
        let worker = "\(ProcessInfo.processInfo.hostName):\(getpid())"
        options.storeTrouble = { error in printError("worker \(worker): \(error); trying again") }
        let queue = DurableQueue(store: store, options: options)
        let runner = ProcessRunner(terminationGrace: try duration(gracePeriod, option: "--grace-period"))
        var cacheStore: (store: any CacheStore, namespaces: CacheNamespaces)?
        if let settings = cache.settings {
            do {
                cacheStore = (try await CacheStores.open(settings.location, readOnly: settings.readOnly), settings.namespaces)
            } catch {
                printError("error: the cache cannot be opened: \(error)")
                throw ExitCode(ExitStatus.invalid)
            }
        }
        let scratch = try WorkerScratch.make()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for (name, file) in workflows {
            let body = QueueShellBody(
                file: file, runner: runner, store: store, worker: worker, scratch: scratch, cache: cacheStore, warn: printError)
            let kinds: [String?] = served.map { served in file.lanes.map(\.name).filter(served.contains) } ?? file.lanes.map(\.name) + [nil]
            for lane in kinds {
                queue.register(QueueShellJob.kind(ofWorkflow: name, lane: lane)) { (job: QueueShellJob, context: JobContext) -> Int in
                    try await body.run(job, context: context)
                }
            }
            let only = served.map { _ in ", lanes " + kinds.compactMap { $0 }.joined(separator: ", ") } ?? ""
            printError("worker \(worker): serving workflow '\(name)' (\(absolutePath(file.directory)))\(only) from \(shown), \(jobs) at once")
        }
        let working = Task { try await queue.work(maxConcurrency: jobs) }
        let drainTime = try drain.map { try duration($0, option: "--drain") }
        let draining = Locked(false)
        let interrupts = Interrupts(
            first: { number in
                if number == SIGTERM, let drainTime {
                    draining.withLock { $0 = true }
                    printError("SIGTERM: draining: no more jobs are claimed; running jobs may finish within \(drain ?? ""), then go back to the queue; signal again to stop them now")
                    queue.drain(within: drainTime)
                } else {
                    printError("interrupted: stopping; running jobs go back to the queue; interrupt again to kill them")
                    working.cancel()
                }
            },
            again: {
                // While draining, the second signal stops the running jobs (the first's stop), the next kills them.
                if draining.withLock({ let was = $0; $0 = false; return was }) {
                    printError("interrupted: stopping; running jobs go back to the queue; interrupt again to kill them")
                    working.cancel()
                } else {
                    runner.signalAll(SIGKILL)
                }
            })
        defer { interrupts.stop() }
        do {
            try await working.value
            try? await queue.close()
            if interrupts.happened { throw ExitCode(ExitStatus.interrupted) }
        } catch is CancellationError {
            try? await queue.close()
            throw ExitCode(ExitStatus.interrupted)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError("error: the queue \(shown): \(error)")
            throw ExitCode(ExitStatus.failed)
        }
    }

    /// Serves the metrics at `--metrics`, and reports the process's to its registry.
    func startMetrics() async throws -> MetricsEndpoint? {
        guard let metrics else { return nil }
        let address = try MetricsAddress(metrics)
        let endpoint: MetricsEndpoint
        do {
            endpoint = try await MetricsEndpoint.start(host: address.host, port: address.port)
        } catch {
            printError("error: --metrics \(metrics): cannot listen there: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: endpoint.registry))
        let host = address.host.contains(":") ? "[\(address.host)]" : address.host
        printError("worker: metrics at http://\(host):\(endpoint.port)/metrics")
        return endpoint
    }
}

/// Where `--metrics` listens: `HOST:PORT`, `[IPv6]:PORT`, or a port alone (on 127.0.0.1).
struct MetricsAddress: Equatable {
    var host: String
    var port: Int

    init(_ text: String) throws {
        var host = "127.0.0.1"
        var port = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            port = text[text.index(after: colon)...]
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if host.isEmpty { host = "127.0.0.1" }
        }
        guard let number = Int(port), (0...65535).contains(number) else {
            throw ValidationError("--metrics \(text): give HOST:PORT, as 127.0.0.1:9464 (a port from 0 to 65535)")
        }
        self.host = host
        self.port = number
    }
}
