import ArgumentParser
import Foundation
import SequencerBuild
import SequencerJournal
import SequencerRunner
import SequencerWorkflowFile

/// `sequencer run --dry-run`: what would run and why, in run order, touching nothing: no
/// command runs, the journal is only read (see `JournalSnapshot`), no `.sequencer/` directory,
/// compiled copy or output directory is made.
struct DryRunSession {
    /// The file, its jobs selected.
    let file: WorkflowFile
    let options: ExecutionOptions
    let journal: JournalOptions

    /// Prints the plan: a line per job and a count, or with `--json` a JSON document.
    /// - Parameter whole: the file before jobs were selected, for the input check.
    func run(whole: WorkflowFile) throws {
        var session = RunSession(file: file, settings: try options.settings(journal: journal), output: options.output)
        try exitingOnRunnerError { try session.checkInputs(in: whole) }
        let plan: [DryRun.Job]
        if options.noJournal {
            plan = ShellWorkflow.needsFirst(file.jobs).map {
                DryRun.Job(name: $0.name, runs: true, reason: options.force ? "--force" : "--no-journal: nothing is up to date")
            }
        } else {
            let snapshot: JournalSnapshot?
            do {
                snapshot = try JournalSnapshot.read(path: journal.path(beside: file.directory), workflow: RunSession.key(of: file))
            } catch {
                printError("error: \(error)")
                throw ExitCode(ExitStatus.invalid)
            }
            plan = DryRun(
                file: file, stored: snapshot?.fingerprints ?? [:], hasher: FileHasher(cache: snapshot?.fileHashes ?? [:]),
                expansions: session.expansions, force: options.force
            ).jobs
        }
        write(options.json ? Self.json(plan, file: file.path) : Self.text(plan), to: STDOUT_FILENO)
    }

    /// `would run  compile-a: input src/a.c changed`, `may run    link: if 'compile-a', which
    /// would run, changes input obj/a.o` or `up to date compile-b` per job, then
    /// `sequencer: 1 of 3 jobs would run, 1 may run`.
    static func text(_ plan: [DryRun.Job]) -> String {
        var lines = plan.map {
            $0.runs ? "would run  \($0.name): \($0.reason)" : $0.mayRun ? "may run    \($0.name): \($0.reason)" : "up to date \($0.name)"
        }
        let count = plan.count { $0.runs }
        let maybe = plan.count { $0.mayRun }
        lines.append("sequencer: \(count) of \(plan.count) job\(plan.count == 1 ? "" : "s") would run" + (maybe > 0 ? ", \(maybe) may run" : ""))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"file": …, "jobs": [{"name", "action": "run"|"may-run"|"skip", "reason"}],
    /// "totals": {"jobs", "run", "mayRun", "skip"}}`
    static func json(_ plan: [DryRun.Job], file: String) -> String {
        struct Document: Encodable {
            struct Job: Encodable {
                var name: String
                var action: String
                var reason: String
            }
            struct Totals: Encodable {
                var jobs: Int
                var run: Int
                var mayRun: Int
                var skip: Int
            }
            var file: String
            var jobs: [Job]
            var totals: Totals
        }
        let count = plan.count { $0.runs }
        let maybe = plan.count { $0.mayRun }
        let document = Document(
            file: file,
            jobs: plan.map { Document.Job(name: $0.name, action: $0.runs ? "run" : $0.mayRun ? "may-run" : "skip", reason: $0.reason) },
            totals: Document.Totals(jobs: plan.count, run: count, mayRun: maybe, skip: plan.count - count - maybe))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
    }
}
