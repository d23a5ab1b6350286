import SequencerHistory
import SequencerJournal
import SequencerWorkflowFile

/// The pass over every job at once, before a run starts: a no-op run ends with it.
extension UpToDate {
    /// Whether every job of the file is up to date, decided before any runs: in one pass over
    /// the jobs, needs first, each fingerprint computed from its needs' as ``isUpToDate(_:)``
    /// would compute it. It stops at the first job that is not up to date, says nothing to
    /// `explain`, and records nothing: when it returns nil, run the jobs and ask
    /// ``isUpToDate(_:)`` of each as its turn comes (a job that runs may change what a later
    /// one reads, so a decision made before it ran would not stand). When every job is up to
    /// date, nothing runs, so every decision stands: the run can end without starting a job.
    ///
    /// ```swift
    /// if let jobs = check.allUpToDate() { /* record the run as up to date; start nothing */ }
    /// ```
    ///
    /// - Returns: The names of the file's jobs, each after the jobs it needs (the order of
    ///   ``ShellWorkflow/needsFirst(_:)``), when every one declares outputs and is up to date;
    ///   nil otherwise, and with `force`.
    /// - Complexity: O(jobs + needs + inputs), and a `stat` per output and input file.
    public func allUpToDate() -> [String]? {
        allUpToDate(collecting: false)?.names
    }

    /// ``allUpToDate()``, with the files the pass read (every output, every input, every file a
    /// depfile named), with their stamps as the pass saw them: an ``UpToDateState``'s. (A
    /// job's output that another job reads is there twice.)
    public func allUpToDateWithFiles() -> (names: [String], files: [UpToDateState.File])? {
        allUpToDate(collecting: true)
    }

    private func allUpToDate(collecting: Bool) -> (names: [String], files: [UpToDateState.File])? {
        guard !force else { return nil }
        let jobs = file.jobs
        // The outputs are checked (a `stat` each) on a thread of their own meanwhile.
        let outputs = OutputCheck(jobs: jobs, collecting: collecting) { [self] job, reader, seen in
            guard let last = stored[job.name] else { return false }
            return outputsUnchanged(of: job, since: last, reader: reader, seen: &seen)
        }
        defer { outputs.stop() }
        let graph = JobGraph(jobs)
        var names: [String] = []
        names.reserveCapacity(jobs.count)
        var fingerprints = [String?](repeating: nil, count: jobs.count)
        var text: [UInt8] = []
        // Each input file's hash, by path: nothing runs during the pass, so a file that many
        // jobs read (a header every job's glob matches) is looked at once, as in ninja's stat cache.
        var inputHashes: [String: String] = [:]
        var inputs: [UpToDateState.File] = []
        var stamp: [UInt8] = []
        for position in graph.needsFirst {
            let job = jobs[position]
            guard !job.outputEntries.isEmpty, let last = stored[job.name] else { return nil }
            let needs = graph.needs(of: position)
            let fingerprint = parts(of: job) { index, name in
                // Every need precedes the job, so its fingerprint (equal to its last success's) is known.
                index < needs.count ? fingerprints[needs[needs.startIndex + index]] : stored[name]?.fingerprint
            } inputHash: { path in
                if let hash = inputHashes[path] { return hash }
                let found = collecting ? hasher.hash(path, stamp: &stamp) : hasher.hash(path)
                if collecting {
                    // A file that is there but cannot be read hashes as missing: its stamp would
                    // not change when it can be read, so the state keeps one that never matches.
                    if found == nil, !stamp.elementsEqual("none".utf8), !stamp.elementsEqual("directory".utf8) {
                        stamp = Array("unreadable".utf8)
                    }
                    inputs.append(UpToDateState.File(path: path, stamp: stamp))
                }
                let hash = found ?? "missing"
                inputHashes[path] = hash
                return hash
            }.fingerprint(scratch: &text)
            guard fingerprint == last.fingerprint, !outputs.failed else { return nil }
            fingerprints[position] = fingerprint
            names.append(job.name)
        }
        guard outputs.allUnchanged() else { return nil }
        return (names, outputs.seen + inputs)
    }

    /// Whether every output of `job` is as its last success left it: ``changedOutput(of:since:)``
    /// without the words, for the pass over every job.
    /// Each output it looks at goes in `seen`, when there is one.
    private func outputsUnchanged(
        of job: WorkflowFile.Job, since last: Fingerprint, reader: StampReader, seen: inout [UpToDateState.File]?
    ) -> Bool {
        let directory = file.directory(of: job)
        var stamp: [UInt8] = []
        for entry in job.outputEntries {
            let path = resolve(entry.path, in: directory)
            reader.describeStamp(of: path, into: &stamp)
            seen?.append(UpToDateState.File(path: path, stamp: stamp))
            guard !stamp.elementsEqual("none".utf8), last.outputMatches(entry.path, stamp: stamp) else { return false }
        }
        return true
    }
}
