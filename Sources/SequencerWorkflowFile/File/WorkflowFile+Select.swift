import Foundation

extension WorkflowFile {
    /// The file with only the named jobs and the jobs they need (directly or not), in file
    /// order, like `make TARGET`.
    ///
    /// A name that is not a job selects the jobs whose `outputs` include it, as written
    /// (`zstd`) or as the same path (`./zstd`, `programs/../zstd`, or an absolute path),
    /// relative to the job's directory or to the file's; failing that, a name with `*`, `?` or
    /// `[` selects the jobs whose names or outputs (as written) it matches (`compile-*`, a
    /// template's family; `obj/*.o`). A name that is both a job and an output is the job.
    ///
    /// ```swift
    /// let linkOnly = try file.selecting(["link"])   // link and every compile job it needs
    /// let program = try file.selecting(["zstd"])    // the job with `outputs: [zstd]`
    /// ```
    ///
    /// - Parameter names: jobs or outputs of the file; none means every job.
    /// - Returns: the smaller file.
    /// - Throws: ``JobSelectionError`` naming each name that is neither a job nor an output,
    ///   with a suggestion.
    /// - Complexity: O(jobs + needs), plus O(outputs) for each name that is not a job.
    public func selecting(_ names: [String]) throws(JobSelectionError) -> WorkflowFile {
        guard !names.isEmpty else { return self }
        var index: [String: Int] = [:]
        for (position, job) in jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        var stack: [Int] = []
        var unknown: [String] = []
        for name in names {
            if let job = index[name] {
                stack.append(job)
            } else {
                var producers = jobs(producing: name)
                if producers.isEmpty, FilePattern.isGlob(name) {
                    // A family (`compile-*`), or the jobs making outputs it matches (`obj/*.o`).
                    producers = jobs.indices.filter {
                        !FilePattern.matching(name, among: [jobs[$0].name] + jobs[$0].outputs).isEmpty
                    }
                }
                if producers.isEmpty { unknown.append(name) }
                stack += producers
            }
        }
        guard unknown.isEmpty else {
            let candidates = jobs.map(\.name) + jobs.flatMap(\.outputs)
            throw JobSelectionError(description: unknown.map {
                "no job or output named '\($0)' in \(path)" + didYouMean($0, among: candidates)
            }.joined(separator: "\n"))
        }
        var selected = [Bool](repeating: false, count: jobs.count)
        while let job = stack.popLast() {
            guard !selected[job] else { continue }
            selected[job] = true
            stack.append(contentsOf: jobs[job].needs.compactMap { index[$0.name] })
        }
        var file = self
        file.jobs = jobs.indices.filter { selected[$0] }.map { jobs[$0] }
        return file
    }

    /// The positions of the jobs that declare `output` among their outputs.
    private func jobs(producing output: String) -> [Int] {
        let fromFile = Self.normalized(output, in: Self.normalized(directory, in: FileManager.default.currentDirectoryPath))
        return jobs.indices.filter { position in
            let job = jobs[position]
            guard !job.outputs.isEmpty else { return false }
            if job.outputs.contains(output) { return true }
            let fromJob = Self.normalized(output, in: workingDirectory(of: job))
            return outputPaths(of: job).contains { $0 == fromJob || $0 == fromFile }
        }
    }
}

/// Jobs asked for by name that the file does not have.
public struct JobSelectionError: Error, Sendable, CustomStringConvertible {
    /// One line per unknown name: `no job or output named 'lnk' in build.yml; did you mean 'link'?`
    public let description: String
}
