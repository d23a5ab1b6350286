import Foundation

extension WorkflowFile {
    /// The file with the variables in each job's `inputs`, `outputs`, `depfile` and `cwd` expanded (see
    /// ``VariableExpansion``), from the environment the job's command gets: `environment`,
    /// then the file's `env`, then the job's `env`, and `SEQUENCER_JOB`.
    ///
    /// ```swift
    /// // inputs: [$SRC/main.c], with SRC=lib in the environment
    /// let file = try WorkflowFile.load(path: "build.yml").expandingVariables()
    /// file.jobs[0].inputs   // ["lib/main.c"]
    /// ```
    ///
    /// The compiled form keeps the paths as written: expand each time the file is loaded for a
    /// run, since the environment may have changed.
    ///
    /// - Parameter environment: the variables every job starts with (by default, this process's).
    /// - Returns: the file with the paths expanded; their locations are kept.
    /// - Throws: ``WorkflowFileError`` with an error at each path that uses an undefined
    ///   variable or a malformed `$`, in file order.
    public func expandingVariables(
        environment: [String: String]? = nil
    ) throws(WorkflowFileError) -> WorkflowFile {
        var expanded = self
        var diagnostics: [Diagnostic] = []
        var base: [String: String]?
        for (index, job) in jobs.enumerated() where Self.hasVariables(job) {
            let shared = base ?? (environment ?? ProcessInfo.processInfo.environment).merging(self.environment) { $1 }
            base = shared
            var variables = shared.merging(job.environment) { $1 }
            variables["SEQUENCER_JOB"] = job.name
            func expand(_ text: String, _ what: String, at location: SourceLocation) -> String {
                do {
                    return try VariableExpansion.expand(text, variables: variables)
                } catch {
                    diagnostics.append(Diagnostic(
                        file: job.definedIn, location: location, message: "job '\(job.name)': \(what) '\(text)': \(error.message)"))
                    return text
                }
            }
            if let cwd = job.workingDirectory {
                expanded.jobs[index].workingDirectory = expand(cwd, "cwd", at: job.workingDirectoryLocation ?? job.location)
            }
            for (position, entry) in job.inputEntries.enumerated() {
                expanded.jobs[index].inputEntries[position].path = expand(entry.path, "input", at: entry.location)
            }
            for (position, entry) in job.outputEntries.enumerated() {
                expanded.jobs[index].outputEntries[position].path = expand(entry.path, "output", at: entry.location)
            }
            if let depfile = job.depfile {
                expanded.jobs[index].depfile?.path = expand(depfile.path, "depfile", at: depfile.location)
            }
            for (position, entry) in job.volatileEntries.enumerated() {
                expanded.jobs[index].volatileEntries[position].path = expand(entry.path, "volatile input", at: entry.location)
            }
        }
        guard diagnostics.isEmpty else { throw WorkflowFileError(diagnostics: diagnostics) }
        return expanded
    }

    /// Whether a job's `inputs`, `outputs`, `depfile` or `cwd` uses a variable (a `$`), ask
    /// before ``expandingVariables(environment:)``: the same file then names other files in
    /// another environment.
    public var pathsUseVariables: Bool { jobs.contains(where: Self.hasVariables) }

    private static func hasVariables(_ job: Job) -> Bool {
        job.workingDirectory.map(VariableExpansion.hasVariables) == true
            || job.inputEntries.contains { VariableExpansion.hasVariables($0.path) }
            || job.outputEntries.contains { VariableExpansion.hasVariables($0.path) }
            || job.depfile.map { VariableExpansion.hasVariables($0.path) } == true
            || job.volatileEntries.contains { VariableExpansion.hasVariables($0.path) }
    }
}
