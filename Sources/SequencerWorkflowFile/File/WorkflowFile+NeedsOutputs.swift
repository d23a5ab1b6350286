import Foundation

/// `${needs.outputs}` and `${needs.JOB.outputs}`: the outputs of the jobs a job needs, as
/// ninja's `$in` names a rule's inputs.
///
/// ```yaml
/// jobs:
///   compile-${stem}:
///     for: { files: "src/*.c" }
///     run: cc -c ${item} -o build/${stem}.o
///     outputs: [build/${stem}.o]
///   link:
///     needs: [compile-*]
///     run: cc -o build/app ${needs.outputs}     # cc -o build/app build/a.o build/b.o
///     inputs: ["${needs.outputs}"]              # each object is an input
///     outputs: [build/app]
/// ```
///
/// The paths come in the order of the job's needs (a pattern's jobs in file order), each
/// needed job's `outputs` in their order, without repeats. In `run` they are separated by
/// spaces and quoted for the shell where they need it; an entry of `inputs` that is only the
/// variable stands for the list. Nothing else may use them.
extension WorkflowFile {
    /// The variable's text and the form naming one needed job.
    static let needsPrefix = "${needs."
    static let outputsSuffix = "outputs}"

    /// Replaces the variables in every job's `run` and `inputs`; reports them anywhere else,
    /// and where they name no file. Runs after the needs are resolved (patterns expanded).
    static func expandNeedsOutputs(_ file: inout WorkflowFile, reader: inout NodeReader) {
        guard file.jobs.contains(where: usesNeedsOutputs) else { return }
        var index: [String: Int] = [:]
        for (position, job) in file.jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        let original = file.jobs
        for position in file.jobs.indices where usesNeedsOutputs(original[position]) {
            let job = original[position]
            let context = job.origin.map { " (\($0))" } ?? ""
            func report(_ message: String, at location: SourceLocation) {
                reader.error("job '\(job.name)': \(message)\(context)", at: location, in: job.definedIn)
            }
            /// The outputs a variable's name (`outputs` or `JOB.outputs`) stands for; nil after an error.
            func paths(for name: Substring, at location: SourceLocation) -> [String]? {
                var needed = job.needs.map(\.name)
                if name != "outputs" {
                    let one = String(name.dropLast(".outputs".count))
                    guard name.hasSuffix(".outputs"), !one.isEmpty else {
                        report("unknown variable 'needs.\(name)'; write ${needs.outputs} or ${needs.JOB.outputs}", at: location)
                        return nil
                    }
                    guard needed.contains(one) else {
                        report("'${needs.\(name)}' names '\(one)', which is not among the jobs it needs"
                               + didYouMean(one, among: needed), at: location)
                        return nil
                    }
                    needed = [one]
                }
                var seen: Set<String> = []
                let found = needed.compactMap { index[$0] }.flatMap { original[$0].outputs }.filter { seen.insert($0).inserted }
                guard !found.isEmpty else {
                    report("'${needs.\(name)}' names no file: "
                           + (needed.isEmpty ? "the job needs no job" : "the jobs it names declare no 'outputs'"), at: location)
                    return nil
                }
                return found
            }
            if job.run.contains(needsPrefix) {
                file.jobs[position].run = replacing(in: job.run) { name in
                    paths(for: name, at: job.location).map { $0.map(shellQuoted).joined(separator: " ") }
                }
            }
            var inputs: [PathEntry] = []
            for entry in job.inputEntries {
                guard entry.path.contains(needsPrefix) else {
                    inputs.append(entry)
                    continue
                }
                let name = entry.path.dropFirst(needsPrefix.count).dropLast()
                guard entry.path.hasPrefix(needsPrefix), entry.path.hasSuffix("}"), !name.contains("}") else {
                    report("'\(entry.path)': a '${needs.…}' input must stand alone, as \"${needs.outputs}\"", at: entry.location)
                    continue
                }
                inputs += (paths(for: name, at: entry.location) ?? []).map { PathEntry(path: $0, location: entry.location) }
            }
            file.jobs[position].inputEntries = inputs
            let elsewhere = job.outputEntries.map { ("'outputs'", $0) } + (job.depfile.map { [("'depfile'", $0)] } ?? [])
                + (job.workingDirectory.map { [("'cwd'", PathEntry(path: $0, location: job.workingDirectoryLocation ?? job.location))] } ?? [])
                + job.environment.sorted { $0.key < $1.key }.map { ("'env'", PathEntry(path: $0.value, location: job.location)) }
                + (job.lane.map { [("'lane'", PathEntry(path: $0, location: job.laneLocation ?? job.location))] } ?? [])
            for (key, entry) in elsewhere where entry.path.contains(needsPrefix) {
                report("\(key) cannot use '${needs.…}'; only 'run' and 'inputs' can", at: entry.location)
            }
        }
    }

    /// Whether a job's strings mention `${needs.`.
    private static func usesNeedsOutputs(_ job: Job) -> Bool {
        job.run.contains(needsPrefix) || job.inputEntries.contains { $0.path.contains(needsPrefix) }
            || job.outputEntries.contains { $0.path.contains(needsPrefix) }
            || job.depfile?.path.contains(needsPrefix) == true || job.workingDirectory?.contains(needsPrefix) == true
            || job.environment.values.contains { $0.contains(needsPrefix) } || job.lane?.contains(needsPrefix) == true
    }

    /// `text` with each `${needs.NAME}` replaced by `value(NAME)` (left as it is when that is nil).
    static func replacing(in text: String, _ value: (Substring) -> String?) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: needsPrefix), let end = rest[start.upperBound...].firstIndex(of: "}") {
            result += rest[..<start.lowerBound]
            let name = rest[start.upperBound..<end]
            result += value(name) ?? String(rest[start.lowerBound...end])
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    /// A path as one word of a shell command: as it is when it has only characters the shell
    /// leaves alone; in double quotes when it uses an environment variable (`$BUILD/a.o`, which
    /// the shell then expands as the path's expansion does, `$$` standing for a `$`); else in
    /// single quotes.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_-./+=:,@%".unicodeScalars.contains($0)
        }
        if plain && !path.isEmpty { return path }
        guard path.contains("$") else { return "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        var quoted = "\""
        var scalars = path.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "\\", "\"", "`": quoted += "\\" + String(scalar)
            case "$" where pending == "$":
                quoted += "\\$"
                pending = scalars.next()
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
