import ArgumentParser
import Foundation
import Sequencer
import SequencerWorkflowFile

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a workflow file's jobs.",
        discussion: """
            Each job's command runs with /bin/sh -c (or directly, when it has no shell syntax) in \
            the file's directory, in its own process group. Its output goes to \
            .sequencer/output/JOB.log beside the file; a failed job's output is printed. \
            Ctrl-C (or SIGTERM) stops the run: running commands get SIGTERM, and SIGKILL after \
            the grace period; a second Ctrl-C kills them at once.
            """
    )

    @OptionGroup var file: FileArgument

    @Argument(help: ArgumentHelp("Run only these jobs, and the jobs they need (default: every job).", valueName: "job"))
    var only: [String] = []

    @Option(name: [.short, .long], help: "The most jobs running at once; the default is the number of cores.")
    var jobs: Int = RunOptions.activeProcessorCount

    @Flag(name: [.short, .long], help: "Keep starting jobs that do not depend on a failed one.")
    var keepGoing = false

    @Option(help: ArgumentHelp("Stop the run after this long (like 30s or 1h30m), reporting what finished.",
                               valueName: "duration"))
    var deadline: String?

    @Option(help: ArgumentHelp("How long a stopped command may take to exit after SIGTERM before it gets SIGKILL.",
                               valueName: "duration"))
    var gracePeriod = "2s"

    @Flag(help: "Print the run report as JSON on standard output (progress goes to standard error).")
    var json = false

    @Option(help: ArgumentHelp("Write a Chrome trace of the run (open it in Perfetto or chrome://tracing).",
                               valueName: "file"),
            completion: .file(extensions: ["json"]))
    var trace: String?

    @Flag(help: "Ignore up-to-date checks (jobs are always run until the journal lands).")
    var force = false

    @Flag(name: [.short, .long], help: "Print every job as it finishes, with its output.")
    var verbose = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        if let deadline { _ = try duration(deadline, option: "--deadline") }
        _ = try duration(gracePeriod, option: "--grace-period")
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let workflowFile: WorkflowFile
        do {
            workflowFile = try loadOrExit(file.file).selecting(only)
        } catch let error as JobSelectionError {
            printError("error: " + error.description.replacingOccurrences(of: "\n", with: "\nerror: "))
            throw ExitCode(ExitStatus.invalid)
        }
        let outputDirectory = try makeOutputDirectory(beside: workflowFile)
        let grace = try duration(gracePeriod, option: "--grace-period")
        let runner = ProcessRunner(terminationGrace: grace)
        let progressDescriptor = json ? STDERR_FILENO : STDOUT_FILENO
        let console = Console(descriptor: progressDescriptor, isLive: Console.isTerminal(progressDescriptor))
        let progress = Progress(console: console, file: workflowFile, verbose: verbose)
        let shell: ShellWorkflow
        do {
            shell = try ShellWorkflow(
                file: workflowFile, runner: runner, outputDirectory: outputDirectory,
                log: AttemptLog(onAppend: progress.attemptEnded))
        } catch {
            printError(error.description)
            throw ExitCode(ExitStatus.invalid)
        }

        let (events, continuation) = AsyncStream.makeStream(of: RunEvent.self)
        let options = RunOptions(
            maxConcurrency: jobs, deadline: try deadline.map { try duration($0, option: "--deadline") },
            keepGoing: keepGoing, events: continuation,
            // Longer than the runner's SIGTERM-to-SIGKILL wait, so a stopped job's process has
            // always been killed and reaped before the job ends.
            gracePeriod: grace + .seconds(5))
        log.debug("starting", metadata: [
            "file": "\(file.file)", "jobs": "\(workflowFile.jobs.count)", "concurrency": "\(jobs)",
            "output": "\(outputDirectory)", "deadline": "\(deadline ?? "none")", "keepGoing": "\(keepGoing)",
        ])
        // Signals are handled from before the first process starts, so none can be orphaned.
        let started = Locked<Run?>(nil)
        let interrupts = Interrupts(
            first: {
                guard let run = started.withLock({ $0 }) else { return }
                console.line("interrupted: stopping \(run.snapshot.running.count) running job(s); interrupt again to kill them")
                run.cancel()
            },
            again: { runner.signalAll(SIGKILL) })
        let run: Run
        do {
            run = try shell.workflow.start(options)
        } catch {
            printError("\(file.file): error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        started.withLock { $0 = run }
        if interrupts.happened { run.cancel() }
        await progress.follow(events)
        let report = await run.report()
        interrupts.stop()
        log.debug("finished", metadata: ["status": "\(report.status)", "duration": "\(report.duration)"])

        let summary = RunSummary(report: report, shell: shell, interrupted: interrupts.happened)
        summary.print(to: console)
        if let trace { try writeTrace(to: trace, report: report, shell: shell) }
        if json {
            let document = ReportDocument(
                file: shell.file, report: report, attempts: shell.log.all, interrupted: interrupts.happened)
            write(document.json() + "\n", to: STDOUT_FILENO)
        }
        if interrupts.happened { throw ExitCode(ExitStatus.interrupted) }
        if report.status != .succeeded { throw ExitCode(ExitStatus.failed) }
    }

    /// `.sequencer/output` beside the workflow file (or a temporary directory if that cannot be
    /// written). Each job's file is overwritten when the job runs. The directory is not emptied
    /// first: reusing a file spares the file system an inode per job and run.
    private func makeOutputDirectory(beside workflowFile: WorkflowFile) throws -> String {
        let files = FileManager.default
        let directory = workflowFile.directory + "/.sequencer/output"
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return directory
        } catch {
            let fallback = NSTemporaryDirectory() + "sequencer-output-\(getpid())"
            log.warning("cannot write \(directory) (\(error.localizedDescription)); output goes to \(fallback)")
            try files.createDirectory(atPath: fallback, withIntermediateDirectories: true)
            return fallback
        }
    }

    private func writeTrace(to path: String, report: RunReport, shell: ShellWorkflow) throws {
        let trace = ChromeTrace(file: shell.file, report: report, attempts: shell.log.all)
        do {
            try trace.json().write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            printError("error: cannot write the trace to \(path): \(error.localizedDescription)")
            throw ExitCode(ExitStatus.failed)
        }
    }
}

/// A duration option's value, or a usage error (exit status 2).
func duration(_ text: String, option: String) throws -> Duration {
    do {
        return try WorkflowFile.duration(text)
    } catch {
        throw ValidationError("\(option): \(error)")
    }
}
