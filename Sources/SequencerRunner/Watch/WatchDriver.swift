#if canImport(Glibc)
import Foundation
import Sequencer
import SequencerBuild
import SequencerJournal
import SequencerProcess
import SequencerWorkflowFile

/// The loop of a watch: reads its inputs one at a time, hands them to `WatchState`, and does
/// what it returns (start a run, stop it, set a timer, finish). Used by one task only.
final class WatchDriver {
    /// What the loop hears.
    enum Input: Sendable {
        case changed([Inotify.Event])
        case wake
        case ended(RunReport?)
        case stop
    }

    private let session: WatchSession
    private let journal: SQLiteJournal?
    private let runner: ProcessRunner
    private let inotify: Inotify
    private let inputs: AsyncStream<Input>.Continuation
    private var state: WatchState<ContinuousClock.Instant>
    private var loaded: (whole: WorkflowFile, selected: WorkflowFile)
    private var scope: WatchScope
    private var contents = Contents()
    /// The jobs the last runs did not finish.
    private var owed: Set<String> = []
    /// The jobs of the run going (nil: all).
    private var selection: Set<String>?
    private var control: RunControl?
    private var timer: Task<Void, Never>?
    private var interrupted = false

    init(
        session: WatchSession, loaded: (whole: WorkflowFile, selected: WorkflowFile), journal: SQLiteJournal?,
        runner: ProcessRunner, inotify: Inotify, inputs: AsyncStream<Input>.Continuation
    ) {
        self.session = session
        self.loaded = loaded
        self.journal = journal
        self.runner = runner
        self.inotify = inotify
        self.inputs = inputs
        state = WatchState(quiet: session.quiet)
        scope = WatchScope(file: loaded.selected, stored: [:])
        rescope(loaded.selected)
    }

    /// Runs, and runs again on changes, until Ctrl-C; then throws exit status 130.
    func watch(_ stream: AsyncStream<Input>) async throws {
        var iterator = stream.makeAsyncIterator()
        var action = state.start()
        while true {
            switch action {
            case .none:
                break
            case .wake(let instant):
                timer?.cancel()
                let inputs = inputs
                timer = Task {
                    try? await Task.sleep(until: instant, clock: .continuous)
                    if !Task.isCancelled { inputs.yield(.wake) }
                }
            case .stopRun:
                control?.stop(interrupted: interrupted)
            case .finish:
                timer?.cancel()
                throw RunnerError.interrupted
            case .run(let paths):
                start(paths)
            }
            guard let input = await iterator.next() else { throw RunnerError.interrupted }
            switch input {
            case .changed(let events):
                let changed = changes(in: events)
                if state.isRunning, !changed.isEmpty { session.say("[watch] \(describe(Set(changed))): stopping the run") }
                action = state.changed(changed, at: .now)
            case .wake:
                action = state.wake(at: .now)
            case .ended(let report):
                ended(report)
                action = state.runEnded(at: .now)
                if action == .none, !interrupted {
                    session.say("[watch] watching \(inotify.count) director\(inotify.count == 1 ? "y" : "ies") for changes (Ctrl-C to stop)")
                }
            case .stop:
                interrupted = true
                action = state.stop()
            }
        }
    }

    /// Starts a run for `paths` (none: the first run): of every job after a change to the
    /// workflow file (reloaded), else of the jobs they affect and the owed ones.
    private func start(_ paths: Set<String>) {
        let reload = paths.isEmpty || paths.contains { scope.change(at: $0) == .workflow }
        if reload, !paths.isEmpty {
            guard let next = try? session.load() else {  // its errors are printed
                session.say("[watch] \(shown(scope.workflowPath)) has errors: fix it, the watch goes on")
                selection = nil
                inputs.yield(.ended(nil))
                return
            }
            loaded = next
            rescope(next.selected)
        }
        selection = reload ? nil : scope.selection(affected: affected(by: paths), owed: owed)
        if selection?.isEmpty == true {
            inputs.yield(.ended(nil))
            return
        }
        let count = selection?.count ?? loaded.selected.jobs.count
        let what = paths.isEmpty ? "" : " " + describe(paths) + ":"
        session.say("[watch]\(what) running \(count) job\(count == 1 ? "" : "s")")
        let control = RunControl(runner: runner)
        self.control = control
        let (session, file, selection, journal, inputs) = (session, loaded, selection, journal, inputs)
        Task {
            inputs.yield(.ended(await session.run(file, selection: selection, journal: journal, control: control)))
        }
    }

    /// After a run: what it did not finish is owed to the next, and the paths it recorded (a
    /// depfile's headers) are watched.
    private func ended(_ report: RunReport?) {
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
        rescope(loaded.selected, walking: false)
    }

    /// The paths among `events` that matter and whose content changed. A new directory under
    /// a watched glob is watched, and its files count as changed.
    private func changes(in events: [Inotify.Event]) -> [String] {
        var changed: [String] = []
        for event in events {
            if event.overflowed {
                changed.append(scope.workflowPath)  // anything may have changed: reload, run it all
                continue
            }
            if event.isNewDirectory, scope.watchesNew(event.path) {
                // Each directory is watched before it is read, so an entry made meanwhile is
                // seen one way or the other; the files in it count as changed.
                var directories = [event.path]
                while let directory = directories.popLast() {
                    watch(directory)
                    for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                        let path = directory + "/" + entry
                        var isDirectory: ObjCBool = false
                        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                            if !entry.hasPrefix(".") { directories.append(path) }
                        } else if scope.change(at: path) != .ignored, contents.changed(path) {
                            changed.append(path)
                        }
                    }
                }
                for directory in scope.directories(walking: false) { watch(directory) }  // a literal input's
            }
            if scope.change(at: event.path) != .ignored, contents.changed(event.path) { changed.append(event.path) }
        }
        return changed
    }

    /// A new scope for `file`, with the dependencies the journal holds now, and its directories
    /// watched; `walking` the deep globs' roots (for a new or changed file).
    private func rescope(_ file: WorkflowFile, walking: Bool = true) {
        let stored = (try? journal?.fingerprints(workflow: RunSession.key(of: file))) ?? [:]
        scope = WatchScope(file: file, stored: stored)
        for directory in scope.directories(walking: walking) { watch(directory) }
    }

    private func watch(_ directory: String) {
        guard let error = inotify.watch(directory), error != ENOENT, error != ENOTDIR else { return }
        session.say("[watch] warning: cannot watch \(directory): \(String(cString: strerror(error)))"
            + (error == ENOSPC ? " (raise fs.inotify.max_user_watches)" : ""))
    }

    /// The jobs whose inputs are among `paths`.
    private func affected(by paths: Set<String>) -> Set<String> {
        var jobs: Set<String> = []
        for path in paths {
            if case .jobs(let names) = scope.change(at: path) { jobs.formUnion(names) }
        }
        return jobs
    }

    /// `input src/a.c changed`, `inputs src/a.c, src/b.c and 3 more changed`, `sequencer.yml changed`.
    private func describe(_ paths: Set<String>) -> String {
        let sorted = paths.sorted()
        if let file = sorted.first(where: { scope.change(at: $0) == .workflow }) {
            return FileManager.default.fileExists(atPath: file) || file == scope.workflowPath
                ? "\(shown(file)) changed" : "\(shown(file)) is gone"
        }
        let names = sorted.prefix(3).map(shown).joined(separator: ", ")
        let more = sorted.count > 3 ? " and \(sorted.count - 3) more" : ""
        return "input\(sorted.count == 1 ? "" : "s") \(names)\(more) changed"
    }

    /// `path` relative to the workflow file's directory when it is under it.
    private func shown(_ path: String) -> String {
        let directory = (scope.workflowPath as NSString).deletingLastPathComponent + "/"
        return path.hasPrefix(directory) ? String(path.dropFirst(directory.count)) : path
    }
}

/// The content of each file last seen changing (a SHA-256; nil for no file), so that a write
/// that leaves a file as it was is no change. Read every time, not cached by size and
/// modification time: two writes within one tick of the file system's clock leave the same.
private struct Contents {
    private var hashes: [String: String?] = [:]

    /// Whether the file at `path` differs from when this was last asked; remembers it as it is.
    mutating func changed(_ path: String) -> Bool {
        let hash = FileManager.default.contents(atPath: path).map { FileHasher.digest(of: $0) }
        if let known = hashes[path], known == hash { return false }
        hashes[path] = hash
        return true
    }
}
#endif
