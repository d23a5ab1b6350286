import Foundation

/// One line of the results: a measurement, a skipped one, or a failed one.
struct Row: Codable, Sendable {
    /// Whether the row was measured.
    enum Status: String, Codable, Sendable {
        case ok, skipped, failed
    }

    var workload: Workload
    var implementation: Implementation
    var size: Int
    var status: Status
    /// Why a row was skipped or failed.
    var note: String?
    var repeats: Int?
    /// Every run's time, in nanoseconds.
    var nanoseconds: [Int64]?
    /// The best run's time per job.
    var nanosecondsPerJob: Double?
    /// Each round's best time per job, in round order; nil for a round where it was not measured.
    var roundNanosecondsPerJob: [Double?] = []
    /// The child process's peak resident memory, in MiB.
    var peakMB: Double?
    /// The peak above the resident memory just before the first run, in MiB.
    var addedMB: Double?
    /// ``addedMB`` per job, in bytes.
    var bytesPerJob: Double?
    /// What the ratios compare with.
    var reference: Implementation?
    /// This row's time ÷ the reference's, at the same workload and size; for an option variant,
    /// the median over the rounds of its time ÷ plain Sequencer's in the same round.
    var timeRatio: Double?
    /// This row's peak memory ÷ the reference's.
    var memoryRatio: Double?

    init(_ measurement: Measurement) {
        workload = measurement.workload
        implementation = measurement.implementation
        size = measurement.size
        status = .ok
        repeats = measurement.repeats
        nanoseconds = measurement.nanoseconds
        nanosecondsPerJob = measurement.nanosecondsPerJob
        roundNanosecondsPerJob = [measurement.nanosecondsPerJob]
        peakMB = Double(measurement.peakBytes) / 1_048_576
        addedMB = Double(measurement.addedBytes) / 1_048_576
        bytesPerJob = Double(measurement.addedBytes) / Double(measurement.size)
    }

    /// The better of two measurements of the same row: the faster, with the smaller peak
    /// memory of the two and every run's time.
    func better(_ other: Row) -> Row {
        let rounds = (status == .ok ? roundNanosecondsPerJob : [nil]) + (other.status == .ok ? other.roundNanosecondsPerJob : [nil])
        guard status == .ok, other.status == .ok, let mine = nanosecondsPerJob, let theirs = other.nanosecondsPerJob else {
            var kept = status == .ok ? self : other
            kept.roundNanosecondsPerJob = rounds
            return kept
        }
        var best = theirs < mine ? other : self
        best.roundNanosecondsPerJob = rounds
        best.nanoseconds = (nanoseconds ?? []) + (other.nanoseconds ?? [])
        best.repeats = best.nanoseconds?.count
        if let a = peakMB, let b = other.peakMB, b < a {
            (best.peakMB, best.addedMB, best.bytesPerJob) = (other.peakMB, other.addedMB, other.bytesPerJob)
        } else {
            (best.peakMB, best.addedMB, best.bytesPerJob) = (peakMB, addedMB, bytesPerJob)
        }
        return best
    }

    /// A row with no figures: the measurement was skipped or failed, for `reason`.
    init(request: MeasurementRequest, status: Status, reason: String) {
        workload = request.workload
        implementation = request.implementation
        size = request.size
        self.status = status
        note = reason
    }

    /// The implementation this row is compared with: plain Sequencer for the option variants,
    /// the workload's reference otherwise.
    var comparedWith: Implementation {
        Implementation.optionVariants.contains(implementation) ? .sequencer : workload.reference
    }
}

/// A headline ratio, with its target when it has one.
struct Ratio: Codable, Sendable {
    /// What is divided by what, e.g. `flat time: sequencer / withDiscardingTaskGroup`.
    var name: String
    var size: Int?
    var value: Double?
    /// The target: the value should be at most this. Nil for figures without a target.
    var atMost: Double?
    /// `PASS`, `MISS`, `info` (no target) or `n/a` (not measured).
    var verdict: String
}

/// Everything the bench found: the graph checks, the rows with their ratios, and the headline ratios.
struct Summary: Codable, Sendable {
    var cores: Int
    var memoryGB: Double
    /// The one-minute load average when the bench started and when it ended.
    var loadAverage: [Double] = []
    var sizes: [Int]
    var graphs: [GraphCheck]
    var rows: [Row]
    var ratios: [Ratio]

    /// Fills in each row's ratios and computes the headline ratios.
    init(rows: [Row], graphs: [GraphCheck], sizes: [Int], cores: Int, memoryGB: Double) {
        self.cores = cores
        self.memoryGB = memoryGB
        self.sizes = sizes
        self.graphs = graphs
        func find(_ workload: Workload, _ implementation: Implementation, _ size: Int) -> Row? {
            rows.first { $0.workload == workload && $0.implementation == implementation && $0.size == size && $0.status == .ok }
        }
        self.rows = rows.map { row in
            var row = row
            let reference = row.comparedWith
            row.reference = reference
            if row.status == .ok, let base = find(row.workload, reference, row.size) {
                row.timeRatio = Implementation.optionVariants.contains(row.implementation)
                    ? Self.sameRoundRatio(row, base) : Self.divide(row.nanosecondsPerJob, base.nanosecondsPerJob)
                row.memoryRatio = Self.divide(row.peakMB, base.peakMB)
            }
            return row
        }

        var ratios: [Ratio] = []
        func add(_ name: String, size: Int?, _ value: Double?, atMost limit: Double?) {
            let verdict: String
            if let value, let limit {
                verdict = value <= limit ? "PASS" : "MISS"
            } else {
                verdict = value == nil ? "n/a" : "info"
            }
            ratios.append(Ratio(name: name, size: size, value: value, atMost: limit, verdict: verdict))
        }
        for size in sizes {
            for workload in Workload.allCases {
                let sequencer = find(workload, .sequencer, size)
                let reference = find(workload, workload.reference, size)
                let limits = workload == .flat ? (time: 0.33, memory: 1.2) : (time: 3.0, memory: 2.0)
                add("\(workload.rawValue) time: sequencer / \(workload.reference.rawValue)", size: size,
                    Self.divide(sequencer?.nanosecondsPerJob, reference?.nanosecondsPerJob), atMost: limits.time)
                add("\(workload.rawValue) peak RSS: sequencer / \(workload.reference.rawValue)", size: size,
                    Self.divide(sequencer?.peakMB, reference?.peakMB), atMost: limits.memory)
            }
        }
        if let smallest = sizes.first, let largest = sizes.last, largest > smallest {
            for workload in Workload.allCases {
                add("\(workload.rawValue) cost per job growth: sequencer ns/job at N=\(largest) / at N=\(smallest)", size: nil,
                    Self.divide(find(workload, .sequencer, largest)?.nanosecondsPerJob,
                                find(workload, .sequencer, smallest)?.nanosecondsPerJob),
                    atMost: 1.5)
            }
        }
        for size in sizes {
            add("dag speedup: OperationQueue+deps time / sequencer time", size: size,
                Self.divide(find(.dag, .operationQueueDependencies, size)?.nanosecondsPerJob,
                            find(.dag, .sequencer, size)?.nanosecondsPerJob),
                atMost: nil)
        }
        for row in self.rows where Implementation.optionVariants.contains(row.implementation) {
            // The journal has a target at 100k jobs (issue 5): a journaled no-op run costs at
            // most 1.10x an unjournaled one.
            let limit = row.implementation == .sequencerJournal && row.size >= 100_000 ? 1.10 : nil
            add("\(row.workload.rawValue) options overhead: \(row.implementation.rawValue) / sequencer (same round)", size: row.size,
                row.timeRatio, atMost: limit)
        }
        self.ratios = ratios
    }

    /// The median over the rounds of `row`'s time ÷ `base`'s in the same round: the two are
    /// measured close together, so the drift of a shared machine between rounds cancels out.
    private static func sameRoundRatio(_ row: Row, _ base: Row) -> Double? {
        let ratios = zip(row.roundNanosecondsPerJob, base.roundNanosecondsPerJob).compactMap { divide($0, $1) }.sorted()
        guard !ratios.isEmpty else { return nil }
        let middle = ratios.count / 2
        return ratios.count % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2
    }

    private static func divide(_ numerator: Double?, _ denominator: Double?) -> Double? {
        guard let numerator, let denominator, denominator > 0 else { return nil }
        return numerator / denominator
    }

    /// The whole summary as one pretty-printed JSON object.
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
