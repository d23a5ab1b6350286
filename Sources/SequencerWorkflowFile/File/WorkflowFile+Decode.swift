import Sequencer
import Yams

extension WorkflowFile {
    static let topLevelKeys = ["version", "lanes", "env", "jobs"]
    static let jobKeys = ["run", "needs", "lane", "priority", "timeout", "retry", "env", "cwd", "inputs", "outputs"]
    static let retryKeys = ["attempts", "backoff", "multiplier", "max-backoff"]
    static let laneKeys = ["width", "ordered"]
    static let priorities: [(name: String, priority: Priority)] = [
        ("background", .background), ("utility", .utility),
        ("user-initiated", .userInitiated), ("user-interactive", .userInteractive),
    ]

    /// Builds the file from its YAML tree; every problem becomes a diagnostic in `reader`.
    static func decode(_ root: Node, reader: inout NodeReader, path: String, directory: String) -> WorkflowFile {
        var file = WorkflowFile(path: path, directory: directory, version: 1, lanes: [], environment: [:], jobs: [])
        let start = SourceLocation(line: 1, column: 1)
        guard let entries = reader.entries(of: root, "the workflow file") else { return file }
        var jobsEntry: NodeReader.Entry?
        for entry in reader.checkKeys(entries, allowed: topLevelKeys, in: "the workflow file") {
            switch entry.key {
            case "version":
                guard let version = reader.integer(entry.value, "'version'", in: 1...Int.max) else { continue }
                if version != 1 {
                    reader.error("unsupported version \(version); this sequencer reads version 1",
                                 at: reader.location(of: entry.value))
                }
                file.version = version
            case "lanes": file.lanes = decodeLanes(entry.value, reader: &reader)
            case "env": file.environment = reader.variables(entry.value, "'env'") ?? [:]
            default: jobsEntry = entry
            }
        }
        guard let jobsEntry else {
            reader.error("the workflow has no 'jobs'; add a 'jobs' mapping of job names to commands", at: start)
            return file
        }
        let jobEntries = reader.isNull(jobsEntry.value) ? []
            : reader.entries(of: jobsEntry.value, "'jobs'", repeated: { "duplicate job '\($0)'" })
        guard let jobEntries else { return file }
        if jobEntries.isEmpty {
            reader.error("'jobs' is empty; a workflow needs at least one job", at: jobsEntry.keyLocation)
        }
        file.jobs = jobEntries.map { decodeJob($0, reader: &reader) }
        checkReferences(file, reader: &reader)
        return file
    }

    /// The lanes. A lane with errors is still returned (with width 1), so that jobs naming it
    /// are not reported as naming an undeclared lane; the errors keep the file from running.
    private static func decodeLanes(_ node: Node, reader: inout NodeReader) -> [Lane] {
        if reader.isNull(node) { return [] }
        guard let entries = reader.entries(of: node, "'lanes'", repeated: { "duplicate lane '\($0)'" }) else { return [] }
        return entries.map { entry in
            let what = "lane '\(entry.key)'"
            var lane = Lane(name: entry.key, width: 1, ordered: true, location: entry.keyLocation)
            if entry.value.mapping != nil {
                guard let options = reader.entries(of: entry.value, what) else { return lane }
                for option in reader.checkKeys(options, allowed: laneKeys, in: what) {
                    if option.key == "width" {
                        lane.width = reader.integer(option.value, "the width of \(what)", in: 1...Int.max) ?? 1
                    } else {
                        lane.ordered = reader.bool(option.value, "'ordered' of \(what)") ?? true
                    }
                }
                if !options.contains(where: { $0.key == "width" }) {
                    reader.error("\(what) needs a 'width'", at: entry.keyLocation)
                }
                return lane
            }
            lane.width = reader.integer(entry.value, "the width of \(what)", in: 1...Int.max) ?? 1
            return lane
        }
    }

    /// A job. A job with errors is still returned, so that jobs needing it are not reported as
    /// needing a job that does not exist; the errors keep the file from running.
    private static func decodeJob(_ entry: NodeReader.Entry, reader: inout NodeReader) -> Job {
        let what = "job '\(entry.key)'"
        if entry.key.isEmpty || entry.key.contains(where: { $0 == "/" || $0 == "#" || $0.isWhitespace }) {
            reader.error("\(what): a job name cannot be empty or contain '/', '#' or spaces", at: entry.keyLocation)
        }
        var job = Job(
            name: entry.key, location: entry.keyLocation, run: "", needs: [], lane: nil, priority: .utility,
            timeout: nil, retry: .none, environment: [:], workingDirectory: nil,
            workingDirectoryLocation: nil, inputEntries: [], outputEntries: [])
        if reader.isNull(entry.value) {
            reader.error("\(what) has no command; write '\(entry.key): COMMAND' or give it a 'run' key",
                         at: entry.keyLocation)
            return job
        }
        if let command = entry.value.scalar {
            job.run = command.string   // `name: command` is short for `name: { run: command }`
            if job.run.allSatisfy(\.isWhitespace) {
                reader.error("the command of \(what) is empty", at: reader.location(of: entry.value))
            }
            return job
        }
        guard let options = reader.entries(of: entry.value, what) else { return job }
        var hasRun = false
        for option in reader.checkKeys(options, allowed: jobKeys, in: what) {
            let value = option.value
            let key = "'\(option.key)' of \(what)"
            switch option.key {
            case "run":
                guard let run = reader.string(value, key) else { continue }
                hasRun = true
                job.run = run
                if run.allSatisfy(\.isWhitespace) { reader.error("\(key) is empty", at: reader.location(of: value)) }
            case "needs":
                job.needs = (reader.strings(value, key) ?? []).map { Need(name: $0.0, location: $0.1) }
            case "lane":
                job.lane = reader.string(value, key)
                job.laneLocation = reader.location(of: value)
            case "priority":
                guard let name = reader.string(value, key) else { continue }
                if let match = priorities.first(where: { $0.name == name }) {
                    job.priority = match.priority
                } else {
                    reader.error("unknown priority '\(name)' in \(what)" + didYouMean(name, among: priorities.map(\.name))
                                 + " (use \(priorities.map(\.name).joined(separator: ", ")))",
                                 at: reader.location(of: value))
                }
            case "timeout":
                guard let timeout = reader.duration(value, key) else { continue }
                if timeout <= .zero {
                    reader.error("\(key) must be longer than 0s", at: reader.location(of: value))
                }
                job.timeout = timeout
            case "retry": job.retry = decodeRetry(option, what: what, reader: &reader) ?? .none
            case "env": job.environment = reader.variables(value, key) ?? [:]
            case "cwd":
                job.workingDirectory = reader.string(value, key)
                job.workingDirectoryLocation = reader.location(of: value)
            case "inputs": job.inputEntries = (reader.strings(value, key) ?? []).map { PathEntry(path: $0.0, location: $0.1) }
            default: job.outputEntries = (reader.strings(value, key) ?? []).map { PathEntry(path: $0.0, location: $0.1) }
            }
        }
        if !hasRun && !options.contains(where: { $0.key == "run" }) {
            reader.error("\(what) has no 'run' command", at: entry.keyLocation)
        }
        return job
    }

    /// `retry: 3` (attempts, with the default backoff) or
    /// `retry: { attempts: 3, backoff: 200ms, multiplier: 2, max-backoff: 30s }`.
    private static func decodeRetry(_ entry: NodeReader.Entry, what: String, reader: inout NodeReader) -> RetryPolicy? {
        let node = entry.value
        let key = "'retry' of \(what)"
        if node.scalar != nil {
            guard let attempts = reader.integer(node, "\(key) (the number of attempts)", in: 1...1000) else { return nil }
            return .exponential(attempts: attempts)
        }
        guard let options = reader.entries(of: node, key) else { return nil }
        var attempts: Int?
        var backoff = Duration.milliseconds(100), multiplier = 2.0, maximum = Duration.seconds(30)
        for option in reader.checkKeys(options, allowed: retryKeys, in: key) {
            let name = "'\(option.key)' of \(key)"
            switch option.key {
            case "attempts": attempts = reader.integer(option.value, name, in: 1...1000)
            case "backoff": backoff = reader.duration(option.value, name) ?? backoff
            case "multiplier": multiplier = reader.number(option.value, name, minimum: 1) ?? multiplier
            default: maximum = reader.duration(option.value, name) ?? maximum
            }
        }
        guard let attempts else {
            if !options.contains(where: { $0.key == "attempts" }) {
                reader.error("\(key) needs 'attempts'", at: entry.keyLocation)
            }
            return nil
        }
        return .exponential(attempts: attempts, initial: backoff, multiplier: multiplier, max: max(maximum, backoff))
    }
}
