import Foundation

/// One measurement to make in a child process: a workload, an implementation, a size.
struct MeasurementRequest: Sendable {
    var workload: Workload
    var implementation: Implementation
    var size: Int
    /// How many times to run it; the best time is kept.
    var repeats: Int

    /// The arguments that make a child process carry out this request.
    var childArguments: [String] {
        ["--one", workload.rawValue, implementation.rawValue, String(size), "--repeat", String(repeats)]
    }
}

/// What a child process measured, sent to the parent as one line of JSON on stdout.
struct Measurement: Codable, Sendable {
    var workload: Workload
    var implementation: Implementation
    var size: Int
    var repeats: Int
    /// The fastest run, in nanoseconds.
    var bestNanoseconds: Int64
    /// Every run, in order, in nanoseconds.
    var nanoseconds: [Int64]
    /// The process's peak resident memory (VmHWM) during its first run.
    var peakBytes: Int
    /// The resident memory just before the first run: the runtime and, for dag, the graph.
    var baseBytes: Int

    /// The best time divided by the number of jobs.
    var nanosecondsPerJob: Double { Double(bestNanoseconds) / Double(size) }
    /// The peak memory above ``baseBytes``: what the workload itself added.
    var addedBytes: Int { max(0, peakBytes - baseBytes) }

    /// Carries out `request` in this process and prints the ``Measurement`` as JSON on stdout.
    /// - Returns: the process exit status: 0 when every run ran every job, 1 otherwise.
    static func runInThisProcess(_ request: MeasurementRequest) async -> Int32 {
        let dag = request.workload == .dag ? RandomDAG(count: request.size) : nil
        do {
            // Opening (creating) the journal is once per process, not once per run: not timed.
            if request.implementation.jobSettings.contains(.journal) { _ = try SequencerWorkloads.journal() }
        } catch {
            printError("cannot open the journal: \(error)")
            return 1
        }
        let baseBytes = Memory.residentBytes()
        var times: [Int64] = []
        var firstRunPeak = 0
        let clock = ContinuousClock()
        do {
            for _ in 0..<max(1, request.repeats) {
                let start = clock.now
                let ran = try await request.implementation.run(request.workload, count: request.size, dag: dag)
                let elapsed = start.duration(to: clock.now)
                guard ran == request.size else {
                    throw BenchFailure("ran \(ran) of \(request.size) jobs")
                }
                times.append(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
                // Memory freed by one run is not always returned to the system before the next
                // (allocator arenas), so the peak is that of the first run: one run's memory.
                if firstRunPeak == 0 { firstRunPeak = Memory.peakBytes() }
            }
        } catch {
            printError("\(request.workload.rawValue) \(request.implementation.rawValue) \(request.size): \(error)")
            return 1
        }
        let measurement = Measurement(
            workload: request.workload, implementation: request.implementation, size: request.size,
            repeats: times.count, bestNanoseconds: times.min() ?? 0, nanoseconds: times,
            peakBytes: firstRunPeak, baseBytes: baseBytes)
        do {
            let data = try JSONEncoder().encode(measurement)
            FileHandle.standardOutput.write(data + Data("\n".utf8))
            return 0
        } catch {
            printError("cannot encode the measurement: \(error)")
            return 1
        }
    }
}

/// This process's memory use, from `/proc/self/status` on Linux, `getrusage` elsewhere.
///
/// On Linux `getrusage`'s `ru_maxrss` is no good here: it keeps the high-water mark of the
/// process image replaced by `exec`, which for a child started by `posix_spawn` is the parent's.
/// `VmHWM` belongs to this process's own memory map.
enum Memory {
    /// The peak resident set size so far, in bytes.
    static func peakBytes() -> Int {
        if let kilobytes = statusField("VmHWM:") { return kilobytes * 1024 }
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)  // bytes on Darwin
        #elseif canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #else
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss) * 1024
        #endif
    }

    /// The resident set size now, in bytes (the peak so far where the current size is unknown).
    static func residentBytes() -> Int {
        if let kilobytes = statusField("VmRSS:") { return kilobytes * 1024 }
        return peakBytes()
    }

    /// A `kB` field of `/proc/self/status`, or nil when there is none.
    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }
}
