import Foundation
package import SequencerBuild
import SequencerJournal
package import SequencerWorkflowFile

/// Inputs that nothing provides. A literal input that does not exist and that no job of the
/// file declares among its outputs is most likely misspelled: it would be fingerprinted as
/// missing on every run, and its job stay up to date however its real input changes. A glob
/// that matches no file and no declared output is suspect too.
package struct InputCheck {
    /// The whole file, variables expanded: every job's outputs count, not only the ones run.
    package let file: WorkflowFile
    /// Expands globs (and keeps the expansions for the run's up-to-date checks).
    package let expansions: PatternExpansions
    /// The directory relative paths of the file start from.
    let current = FileManager.default.currentDirectoryPath

    package init(file: WorkflowFile, expansions: PatternExpansions) {
        self.file = file
        self.expansions = expansions
    }

    /// The problems with the inputs of `jobs` (jobs of ``file``), in file order: a literal input
    /// that is missing gets `missing` severity, a glob that matches nothing a warning.
    package func diagnostics(for jobs: [WorkflowFile.Job], missing: Diagnostic.Severity) -> [Diagnostic] {
        guard jobs.contains(where: { !$0.inputEntries.isEmpty }) else { return [] }
        let outputs = file.jobs.flatMap(file.outputPaths(of:))
        let outputSet = Set(outputs)
        var globMatches: [String: Bool] = [:]  // by pattern and directory
        var diagnostics: [Diagnostic] = []
        for job in jobs where !job.inputEntries.isEmpty {
            let directory = file.directory(of: job)
            let absoluteDirectory = WorkflowFile.normalized(directory, in: current)
            for input in job.inputEntries {
                if FilePattern.isGlob(input.path) {
                    let key = input.path + "\0" + absoluteDirectory
                    let matches = globMatches[key] ?? {
                        !expansions.expand(input.path, in: directory).isEmpty
                            || !FilePattern.matching(WorkflowFile.normalized(input.path, in: absoluteDirectory), among: outputs).isEmpty
                    }()
                    globMatches[key] = matches
                    if !matches {
                        diagnostics.append(Diagnostic(
                            file: job.definedIn, location: input.location, severity: .warning,
                            message: "job '\(job.name)' has input '\(input.path)', which matches no file and no output of any job"))
                    }
                    continue
                }
                let path = WorkflowFile.normalized(input.path, in: absoluteDirectory)
                if !outputSet.contains(path) && !FileManager.default.fileExists(atPath: path) {
                    diagnostics.append(Diagnostic(
                        file: job.definedIn, location: input.location, severity: missing,
                        message: "job '\(job.name)' has input '\(input.path)', which does not exist and is not an output of any job"))
                }
            }
        }
        return diagnostics.sorted { $0.location < $1.location }
    }
}

extension RunSession {
    /// Says the problems with the inputs of the jobs to run, before any starts; a literal
    /// input that is missing is an error (nothing runs), and the run goes on after warnings.
    /// - Parameter whole: the file before jobs were selected: any job's outputs count.
    /// - Throws: ``RunnerError`` `.invalid` when there is an error.
    package mutating func checkInputs(in whole: WorkflowFile) throws {
        let diagnostics = whole.warnings + InputCheck(file: whole, expansions: expansions).diagnostics(for: file.jobs, missing: .error)
        for diagnostic in diagnostics { output.diagnostics(diagnostic.description) }
        warnings = diagnostics.map(\.description)
        let errors = diagnostics.filter { $0.severity == .error }.count
        guard errors == 0 else {
            throw RunnerError(.invalid, "\(errors) error\(errors == 1 ? "" : "s") in \(file.path): nothing ran")
        }
    }
}
