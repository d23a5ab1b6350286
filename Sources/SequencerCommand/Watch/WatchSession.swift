#if canImport(Glibc)
import ArgumentParser
import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerProcess
import SequencerWorkflowFile

/// `sequencer run --watch`: runs the workflow file, then runs again what a change affects.
///
/// The logic is ``WatchState`` (debounce, stopping a run, Ctrl-C); what a path means is
/// ``WatchScope``. This drives them: inotify's events, timers, runs and signals come in as
/// ``Input``s on one stream, read by one loop, which acts on what the state returns.
///
/// Runs must not trigger runs. A job's declared outputs and `.sequencer/` never count. A change
/// counts only when the file's content differs from the content seen at its last change (a
/// SHA-256), so a job that rewrites its own input with the same bytes, or an editor saving
/// an unchanged file, starts nothing. A job that changes its own input on every run (appending
/// to it, say) is indistinguishable from a person editing it: it stops the run and starts
/// another, for as long as it does so; declare such a file among its outputs.
struct WatchSession {
    let path: String
    let only: [String]
    let options: ExecutionOptions
    let journalOptions: JournalOptions
    let quiet: Duration

    private enum Input: Sendable {
        case changed([Inotify.Event])
        case wake
        case ended(RunReport?)
        case stop
    }

    /// Watches until SIGINT or SIGTERM, then exits with status 130.
    func run() async throws {
        var loaded = try load()
        let journal = options.noJournal ? nil : try journalOptions.openForRun(beside: loaded.selected.directory)
        let runner = ProcessRunner(terminationGrace: try duration(options.gracePeriod, option: "--grace-period"))
        let inotify: Inotify
        do {
            inotify = try Inotify()
        } catch {
            printError("error: cannot watch files: \(error)")
            throw ExitCode(ExitStatus.failed)
        }
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        Thread.detachNewThread {
            while let events = inotify.next() { continuation.yield(.changed(events)) }
        }
        let interrupts = Interrupts(first: { continuation.yield(.stop) }, again: { runner.signalAll(SIGKILL) })
        defer {
            interrupts.stop()
            inotify.close()
        }

        var state = WatchState<ContinuousClock.Instant>(quiet: quiet)
        var scope = WatchScope(file: loaded.selected, stored: fingerprints(of: loaded.selected, in: journal))
        for directory in scope.directories() { inotify.watch(directory) }
        var contents = Contents()
        var owed: Set<String> = []
        var selection: Set<String>?  // the jobs of the run going (nil: all)
        var control: RunControl?
        var timer: Task<Void, Never>?
        var interrupted = false

        var iterator = inputs.makeAsyncIterator()
        var action = state.start()
        while true {
            switch action {
            case .none:
                break
            case .wake(let instant):
                timer?.cancel()
                timer = Task {
                    try? await Task.sleep(until: instant, clock: .continuous)
                    if !Task.isCancelled { continuation.yield(.wake) }
                }
            case .stopRun:
                control?.stop(interrupted: interrupted)
            case .finish:
                timer?.cancel()
                throw ExitCode(ExitStatus.interrupted)
            case .run(let paths):
                let reload = paths.isEmpty || paths.contains(scope.workflowPath)
                var next: (whole: WorkflowFile, selected: WorkflowFile)? = loaded
                if reload, !paths.isEmpty {
                    next = try? load()
                    if let next { loaded = next }
                }
                if let next {
                    scope = WatchScope(file: next.selected, stored: fingerprints(of: next.selected, in: journal))
                    for directory in scope.directories() { inotify.watch(directory) }
                }
                selection = reload ? nil : scope.selection(affected: affected(by: paths, in: scope), owed: owed)
                guard let next, selection?.isEmpty != true else {
                    if next == nil { printError("[watch] \(shown(scope.workflowPath, in: scope)) has errors: fix it, the watch goes on") }
                    continuation.yield(.ended(nil))
                    break
                }
                let count = selection?.count ?? next.selected.jobs.count
                let what = paths.isEmpty ? "" : " " + describe(paths, in: scope) + ":"
                say("[watch]\(what) running \(count) job\(count == 1 ? "" : "s")")
                let run = RunControl(runner: runner)
                control = run
                let session = self, only = selection
                Task {
                    continuation.yield(.ended(await session.runOnce(next, only: only, journal: journal, control: run)))
                }
            }
            guard let input = await iterator.next() else { throw ExitCode(ExitStatus.interrupted) }
            switch input {
            case .changed(let events):
                var changed: [String] = []
                for event in events {
                    if event.overflowed {
                        changed.append(scope.workflowPath)  // anything may have changed: reload, run it all
                        continue
                    }
                    if event.isNewDirectory, scope.watchesNew(event.path) {
                        // Its entries made before the watch was added are changes too.
                        for directory in [event.path] + WatchScope.subdirectories(of: event.path) {
                            inotify.watch(directory)
                            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                            changed += entries.map { directory + "/" + $0 }.filter { scope.change(at: $0) != .ignored && contents.changed($0) }
                        }
                        for directory in scope.directories() { inotify.watch(directory) }
                    }
                    if scope.change(at: event.path) != .ignored, contents.changed(event.path) { changed.append(event.path) }
                }
                if state.isRunning, !changed.isEmpty {
                    say("[watch] \(describe(Set(changed), in: scope)): stopping the run")
                }
                action = state.changed(changed, at: .now)
            case .wake:
                action = state.wake(at: .now)
            case .ended(let report):
                control = nil
                let jobs = selection ?? Set(loaded.selected.jobs.map(\.name))
                if let report {
                    owed = owed.union(jobs).filter { name in
                        guard let status = report.outcome(of: JobID(name))?.status else { return false }  // gone from the file
                        return status != .succeeded && status != .upToDate
                    }
                } else {
                    owed.formUnion(jobs)
                }
                // The run may have recorded new dependencies (a depfile's headers).
                scope = WatchScope(file: loaded.selected, stored: fingerprints(of: loaded.selected, in: journal))
                for directory in scope.directories() { inotify.watch(directory) }
                action = state.runEnded(at: .now)
                if action == .none, !interrupted {
                    say("[watch] watching \(inotify.count) director\(inotify.count == 1 ? "y" : "ies") for changes (Ctrl-C to stop)")
                }
            case .stop:
                interrupted = true
                action = state.stop()
            }
        }
    }

    /// Writes a line where progress goes.
    private func say(_ line: String) {
        write(line + "\n", to: options.json ? STDERR_FILENO : STDOUT_FILENO)
    }

    /// The workflow file, whole and with the jobs asked for; exit status 2 (its errors printed)
    /// when it is invalid.
    private func load() throws -> (whole: WorkflowFile, selected: WorkflowFile) {
        let whole = try expandOrExit(options.noJournal ? try loadOrExit(path) : try CompiledWorkflow.load(path))
        return (whole, try selectOrExit(whole, only: only))
    }

    /// One run; nil when it could not start (its reasons printed).
    private func runOnce(
        _ file: (whole: WorkflowFile, selected: WorkflowFile), only: Set<String>?, journal: SQLiteJournal?, control: RunControl
    ) async -> RunReport? {
        do {
            var session = RunSession(file: file.selected, options: options)
            session.only = only
            try session.checkInputs(in: file.whole)
            if let journal {
                let info = RunInfo(only: self.only, keepGoing: options.keepGoing)
                session.recorder = try await journal.recorder(waiting: !options.noWait) {
                    try journal.beginRun(workflow: RunSession.key(of: file.selected), info: info.json)
                }
            }
            return try await session.run(control: control)
        } catch {
            if !(error is ExitCode) { printError("error: \(error)") }
            return nil
        }
    }

    private func fingerprints(of file: WorkflowFile, in journal: SQLiteJournal?) -> [String: JournalFingerprint] {
        (try? journal?.fingerprints(workflow: RunSession.key(of: file))) ?? [:]
    }

    /// The jobs whose inputs are among `paths`.
    private func affected(by paths: Set<String>, in scope: WatchScope) -> Set<String> {
        var jobs: Set<String> = []
        for path in paths {
            if case .jobs(let names) = scope.change(at: path) { jobs.formUnion(names) }
        }
        return jobs
    }

    /// `input src/a.c changed`, `inputs src/a.c, src/b.c and 3 more changed`, `sequencer.yml changed`.
    private func describe(_ paths: Set<String>, in scope: WatchScope) -> String {
        let sorted = paths.sorted()
        if sorted.contains(scope.workflowPath) { return "\(shown(scope.workflowPath, in: scope)) changed" }
        let names = sorted.prefix(3).map { shown($0, in: scope) }.joined(separator: ", ")
        let more = sorted.count > 3 ? " and \(sorted.count - 3) more" : ""
        return "input\(sorted.count == 1 ? "" : "s") \(names)\(more) changed"
    }

    /// `path` relative to the workflow file's directory when it is under it.
    private func shown(_ path: String, in scope: WatchScope) -> String {
        let directory = (scope.workflowPath as NSString).deletingLastPathComponent + "/"
        return path.hasPrefix(directory) ? String(path.dropFirst(directory.count)) : path
    }
}

/// The content of each file last seen changing (a SHA-256; nil for no file), so that a write
/// that leaves a file as it was is no change.
private struct Contents {
    private var hashes: [String: String?] = [:]
    private let hasher = FileHasher()

    /// Whether the file at `path` differs from when this was last asked; remembers it as it is.
    mutating func changed(_ path: String) -> Bool {
        let hash = hasher.hash(path)
        if let known = hashes[path], known == hash { return false }
        hashes[path] = hash
        return true
    }
}
#endif
