import Foundation

/// The parent process: plans the measurements, runs each in a fresh child process, one after
/// another, and prints the table (or the JSON object).
struct Driver {
    let arguments: BenchArguments

    /// The longest a single run of a baseline that may grow faster than linearly (the
    /// `OperationQueue` ones) is allowed to take, by estimate, before its size is skipped.
    static let runBudgetSeconds = 60.0
    /// A child still running after this long is killed and its row marked failed.
    static let childTimeoutSeconds = 900.0
    /// The size of the options-overhead rows.
    static let optionsSize = 100_000

    /// One planned row: a request to measure, or the reason it is skipped.
    struct Step {
        var request: MeasurementRequest
        var skipReason: String?
    }

    /// Runs every measurement and prints the results.
    /// - Returns: the exit status: 0 when every measurement ran, 1 when one failed.
    func run() -> Int32 {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        printError("sequencer-bench: \(cores) cores, \(String(format: "%.1f", memory)) GB; sizes \(arguments.sizes.map(String.init).joined(separator: ", "))")
        let loadAtStart = Self.loadAverage()
        let graphs = arguments.sizes.map { GraphCheck(RandomDAG(count: $0)) }
        for graph in graphs { printError("graph check: \(graph.summary)") }

        // Each round measures every row once; rounds alternate the implementations over time,
        // so a slow spell of a shared machine does not land on one of them only. A row keeps
        // its best round.
        var rows: [Row] = []
        for round in 1...arguments.rounds {
            if arguments.rounds > 1 { printError("round \(round) of \(arguments.rounds)") }
            var measured: [Row] = []
            for planned in plan() {
                let row = measure(budgeted(planned, measured: measured))
                measured.append(row)
            }
            rows = rows.isEmpty ? measured : zip(rows, measured).map { $0.better($1) }
        }

        var summary = Summary(rows: rows, graphs: graphs, sizes: arguments.sizes, cores: cores, memoryGB: memory)
        summary.loadAverage = [loadAtStart, Self.loadAverage()].compactMap { $0 }
        if arguments.json {
            print(summary.json())
        } else {
            print(summary.table())
        }
        return rows.contains { $0.status == .failed } ? 1 : 0
    }

    /// Measures one step in a child process, or records why it is skipped.
    private func measure(_ step: Step) -> Row {
        let request = step.request
        let label = "\(request.workload.rawValue) N=\(request.size) \(request.implementation.rawValue)"
        if let reason = step.skipReason {
            printError("\(label): \(reason)")
            return Row(request: request, status: .skipped, reason: reason)
        }
        printError("\(label) ...")
        switch measureInChild(request) {
        case .success(let measurement):
            let row = Row(measurement)
            printError("\(label): \(String(format: "%.1f", row.nanosecondsPerJob ?? 0)) ns/job, peak \(String(format: "%.1f", row.peakMB ?? 0)) MiB")
            return row
        case .failure(let failure):
            printError("\(label): FAILED: \(failure)")
            return Row(request: request, status: .failed, reason: failure.description)
        }
    }

    /// The measurements in the order they are made: for each size, flat then dag; at
    /// ``optionsSize`` (or the smallest size when that is not measured) each workload's option
    /// variants follow its plain Sequencer row at once, so that the two are measured close
    /// together in time. `OperationQueue` rows may still be skipped by ``budgeted(_:measured:)``.
    func plan() -> [Step] {
        let optionsSize = arguments.sizes.contains(Self.optionsSize) ? Self.optionsSize : arguments.sizes.first
        var steps: [Step] = []
        for size in arguments.sizes {
            for workload in Workload.allCases {
                for implementation in workload.implementations {
                    steps.append(step(workload, implementation, size))
                    if implementation == .sequencer, size == optionsSize {
                        steps += workload.optionVariants.map { step(workload, $0, size) }
                    }
                }
            }
        }
        return steps
    }

    private func step(_ workload: Workload, _ implementation: Implementation, _ size: Int) -> Step {
        let repeats = arguments.repeatCount ?? (size > 100_000 ? 2 : 3)
        return Step(request: MeasurementRequest(workload: workload, implementation: implementation, size: size, repeats: repeats))
    }

    /// Skips, or runs fewer times, an `OperationQueue` measurement whose run would take longer
    /// than ``runBudgetSeconds``, estimated from the smaller sizes already measured: with one
    /// smaller size, as if quadratic (corelibs Foundation has been quadratic with
    /// dependencies); with two, from the growth measured between them.
    func budgeted(_ step: Step, measured rows: [Row]) -> Step {
        let request = step.request
        guard request.implementation == .operationQueue || request.implementation == .operationQueueDependencies else { return step }
        let smaller = rows.filter {
            $0.workload == request.workload && $0.implementation == request.implementation && $0.status == .ok && $0.size < request.size
        }
        var step = step
        guard let last = smaller.last, let lastNanoseconds = last.nanoseconds?.min() else {
            if request.size > 100_000 { step.skipReason = "skipped (no smaller size measured to estimate its cost)" }
            return step
        }
        var exponent = 2.0
        if smaller.count >= 2, let previous = smaller.dropLast().last?.nanoseconds?.min(), previous > 0 {
            exponent = max(1, log(Double(lastNanoseconds) / Double(previous)) / log(Double(last.size) / Double(smaller[smaller.count - 2].size)))
        }
        let estimate = Double(lastNanoseconds) / 1e9 * pow(Double(request.size) / Double(last.size), exponent)
        if estimate > Self.runBudgetSeconds {
            let kind = exponent >= 1.8 ? "quadratic" : String(format: "growth ~N^%.2f", exponent)
            step.skipReason = "skipped (\(kind): estimated \(Int(estimate)) s a run)"
        } else {
            step.request.repeats = max(1, min(request.repeats, Int(Self.runBudgetSeconds / max(estimate, 1e-3))))
        }
        return step
    }

    /// Runs `request` in a fresh child process (this executable with `--one ...`) and reads
    /// its one line of JSON. The child's stderr goes to ours.
    private func measureInChild(_ request: MeasurementRequest) -> Result<Measurement, BenchFailure> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executablePath)
        process.arguments = request.childArguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return .failure(BenchFailure("cannot start \(Self.executablePath): \(error)"))
        }
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.childTimeoutSeconds, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit ? "exited with status" : "killed by signal"
            return .failure(BenchFailure("child \(how) \(process.terminationStatus)"))
        }
        do {
            return .success(try JSONDecoder().decode(Measurement.self, from: data))
        } catch {
            return .failure(BenchFailure("unreadable child output: \(String(decoding: data, as: UTF8.self))"))
        }
    }

    /// The one-minute load average, from `/proc/loadavg`: other work on the machine skews the times.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    /// This executable, to re-run as a child: `/proc/self/exe` on Linux.
    static let executablePath: String = {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }()
}

/// The measured shape of a ``RandomDAG``, printed once per size so the generator can be checked.
struct GraphCheck: Codable, Sendable {
    var size: Int
    var edges: Int
    var edgesPerJob: Double
    var rootFraction: Double

    init(_ dag: RandomDAG) {
        size = dag.count
        edges = dag.edgeCount
        edgesPerJob = dag.count > 0 ? Double(dag.edgeCount) / Double(dag.count) : 0
        rootFraction = dag.rootFraction
    }

    /// One line: `N=10000: 15012 edges (1.501 per job), 25.03% of jobs need nothing`.
    var summary: String {
        "N=\(size): \(edges) edges (\(String(format: "%.3f", edgesPerJob)) per job), \(String(format: "%.2f", rootFraction * 100))% of jobs need nothing"
    }
}
