// sequencer-bench: measures Sequencer against hand-written baselines.
//
//     swift run -c release sequencer-bench            # 10k, 100k, 1M; prints a table
//     swift run -c release sequencer-bench --quick    # 10k and 100k only
//     swift run -c release sequencer-bench --json     # one JSON object on stdout
//     swift run -c release sequencer-bench --check    # everything at 10k, once (CI)
//     swift run -c release sequencer-bench --queue 10000000   # a queue's memory over 10M jobs
//     swift run -c release sequencer-bench --durable          # a DurableQueue on SQLite, 100k jobs
//
// Every measurement runs in a fresh child process (this executable, re-run with `--one`),
// so each peak RSS belongs to one measurement alone.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

let arguments: BenchArguments
do {
    arguments = try BenchArguments.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printError("sequencer-bench: \(error)\n\n\(BenchArguments.usage)")
    exit(2)
}

if arguments.durable {
    exit(await DurableBench.run(jobs: arguments.jobs ?? 100_000))
} else if let jobs = arguments.queueJobs {
    exit(await QueueSoak.run(jobs: jobs, batch: arguments.batch))
} else if let single = arguments.single {
    exit(await Measurement.runInThisProcess(single))
} else {
    exit(Driver(arguments: arguments).run())
}
