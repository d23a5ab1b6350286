extension WorkflowFile {
    /// The file with only the named jobs and the jobs they need (directly or not), in file
    /// order, like `make TARGET`.
    ///
    /// ```swift
    /// let linkOnly = try file.selecting(["link"])   // link and every compile job it needs
    /// ```
    ///
    /// - Parameter names: jobs of the file; none means all of them.
    /// - Returns: the smaller file.
    /// - Throws: ``JobSelectionError`` naming each name that is not a job, with a suggestion.
    /// - Complexity: O(jobs + needs).
    public func selecting(_ names: [String]) throws(JobSelectionError) -> WorkflowFile {
        guard !names.isEmpty else { return self }
        var index: [String: Int] = [:]
        for (position, job) in jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        let unknown = names.filter { index[$0] == nil }
        guard unknown.isEmpty else {
            throw JobSelectionError(description: unknown.map {
                "no job named '\($0)' in \(path)" + didYouMean($0, among: jobs.map(\.name))
            }.joined(separator: "\n"))
        }
        var selected = [Bool](repeating: false, count: jobs.count)
        var stack = names.compactMap { index[$0] }
        while let job = stack.popLast() {
            guard !selected[job] else { continue }
            selected[job] = true
            stack.append(contentsOf: jobs[job].needs.compactMap { index[$0.name] })
        }
        var file = self
        file.jobs = jobs.indices.filter { selected[$0] }.map { jobs[$0] }
        return file
    }
}

/// Jobs asked for by name that the file does not have.
public struct JobSelectionError: Error, Sendable, CustomStringConvertible {
    /// One line per unknown name: `no job named 'lnk' in build.yml; did you mean 'link'?`
    public let description: String
}
