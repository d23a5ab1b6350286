#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The command line of `sequencer-bench`.
///
/// ```
/// sequencer-bench [--sizes 10000,100000] [--quick] [--repeat R] [--rounds K] [--json] [--check]
/// sequencer-bench --one WORKLOAD IMPLEMENTATION N [--repeat R]     (internal: one child)
/// sequencer-bench --queue N [--batch B]                              (a long-lived queue)
/// sequencer-bench --durable [--jobs N]                                 (a durable queue)
/// ```
struct BenchArguments {
    /// The job counts to measure, ascending.
    var sizes: [Int] = [10_000, 100_000, 1_000_000]
    /// Runs per measurement; nil picks by size (3 up to 100k, 2 above).
    var repeatCount: Int?
    /// How many times the whole plan is measured; each row keeps its best.
    var rounds = 1
    /// Print one JSON object on stdout instead of the table.
    var json = false
    /// CI mode: everything at 10k, once; proves the bench runs.
    var check = false
    /// Set in a child process: the one measurement to make.
    var single: MeasurementRequest?
    /// `--queue N`: feed N jobs to one `JobQueue` in batches and report its memory over time.
    var queueJobs: Int?
    /// The batch size of `--queue`.
    var batch = 10_000
    /// `--durable`: measure a `DurableQueue` on SQLite (``DurableBench``).
    var durable = false
    /// The job count of `--durable`; nil is 100,000.
    var jobs: Int?

    static let usage = """
        usage: sequencer-bench [--sizes N,N,...] [--quick] [--repeat R] [--rounds K] [--json] [--check]
          --sizes N,...  job counts to measure (default 10000,100000,1000000)
          --quick        10000 and 100000 only
          --repeat R     runs per measurement, best time reported (default 3; 2 at 1M)
          --rounds K     measure everything K times, alternating, and keep each row's best
          --json         print one JSON object on stdout (progress goes to stderr)
          --check        CI: every workload at 10000, once; exit 0 when all ran
          --queue N      N no-op jobs fed to one JobQueue in batches (--batch B, default 10000);
                         prints the time per job and the memory as the jobs go by
          --durable      a DurableQueue on a temporary SQLite file (NORMAL and FULL): flat and dag
                         enqueue and drain rates, enqueue latency, against the in-process JobQueue
          --jobs N       the job count of --durable (default 100000)
        """

    /// An argument the bench does not understand.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments after the executable's name.
    /// - Throws: ``Invalid`` for an unknown flag or a bad number.
    static func parse(_ arguments: [String]) throws -> BenchArguments {
        var result = BenchArguments()
        var rest = arguments[...]
        func value(for flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            return next
        }
        func count(_ text: String) throws -> Int {
            guard let number = Int(String(text.filter { $0 != "_" })), number > 0 else {
                throw Invalid(description: "'\(text)' is not a positive whole number")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--sizes":
                result.sizes = try value(for: argument).split(separator: ",").map { try count(String($0)) }.sorted()
                guard !result.sizes.isEmpty else { throw Invalid(description: "--sizes needs at least one size") }
            case "--quick":
                result.sizes = [10_000, 100_000]
            case "--repeat":
                result.repeatCount = try count(try value(for: argument))
            case "--rounds":
                result.rounds = try count(try value(for: argument))
            case "--queue":
                result.queueJobs = try count(try value(for: argument))
            case "--batch":
                result.batch = try count(try value(for: argument))
            case "--durable":
                result.durable = true
            case "--jobs":
                result.jobs = try count(try value(for: argument))
            case "--json":
                result.json = true
            case "--check":
                result.check = true
            case "--one":
                let workload = try value(for: argument)
                let implementation = try value(for: argument)
                let size = try count(try value(for: argument))
                guard let known = Workload(rawValue: workload) else { throw Invalid(description: "unknown workload '\(workload)'") }
                guard let variant = Implementation(rawValue: implementation) else {
                    throw Invalid(description: "unknown implementation '\(implementation)'")
                }
                result.single = MeasurementRequest(workload: known, implementation: variant, size: size, repeats: 1)
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                throw Invalid(description: "unknown argument '\(argument)'")
            }
        }
        if result.check {
            result.sizes = [10_000]
            result.repeatCount = 1
        }
        if result.single != nil { result.single?.repeats = result.repeatCount ?? 1 }
        return result
    }
}

/// Writes a line to standard error (progress and errors never go to stdout, which `--json` owns).
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
