import Sequencer
import Yams

extension WorkflowFile {
    static let topLevelKeys = ["version", "include", "vars", "lanes", "env", "jobs"]
    static let jobKeys = ["for", "run", "needs", "lane", "priority", "timeout", "retry", "env", "cwd", "inputs", "outputs", "depfile", "cache", "inherit-env", "volatile"]
    static let retryKeys = ["attempts", "backoff", "multiplier", "max-backoff"]
    static let laneKeys = ["width", "ordered"]
    static let priorities: [(name: String, priority: Priority)] = [
        ("background", .background), ("utility", .utility),
        ("user-initiated", .userInitiated), ("user-interactive", .userInteractive),
    ]

    /// Builds the workflow from the YAML trees of its files (see ``Parts``); every problem
    /// becomes a diagnostic of the file it is in.
    struct Decoder {
        let path: String
        let directory: String
        private(set) var parts: [Part]
        /// The file's `vars`, as the jobs' strings use them.
        private var vars = Substitution(values: [:])
        /// Templates read so far: their names as written and how many jobs each made.
        private var templates: [(name: String, jobs: Int)] = []
        /// The file each lane is declared in, in the order of `file.lanes`.
        private var laneFiles: [String] = []
        private var file: WorkflowFile

        init(path: String, directory: String, parts: [Part]) {
            self.path = path
            self.directory = directory
            self.parts = parts
            file = WorkflowFile(path: path, directory: directory, version: 1, lanes: [], environment: [:], jobs: [])
        }

        /// Every problem found, in the files' order.
        var diagnostics: [Diagnostic] { parts.flatMap(\.reader.diagnostics) }

        /// The workflow: settings of every file first (`version`, `vars`, `env`), then lanes
        /// and jobs, then the checks of names and references across files.
        mutating func decode() -> WorkflowFile {
            for index in parts.indices { readSettings(of: index) }
            var jobsSeen = false
            for index in parts.indices { jobsSeen = readLanesAndJobs(of: index) || jobsSeen }
            let main = parts.count - 1
            file.includes = parts.dropLast().map(\.path)
            file.includedTexts = parts.dropLast().map(\.text)
            let hasInclude = parts[main].entries?.contains { $0.key == "include" } ?? false
            if parts[main].entries != nil, !jobsSeen, !hasInclude {
                parts[main].reader.error("the workflow has no 'jobs'; add a 'jobs' mapping of job names to commands",
                                         at: SourceLocation(line: 1, column: 1))
            } else if hasInclude, file.jobs.isEmpty, templates.allSatisfy({ $0.jobs > 0 }) {
                parts[main].reader.error("the workflow has no jobs, here or in the files it includes",
                                         at: SourceLocation(line: 1, column: 1))
            }
            WorkflowFile.checkNames(&file, laneFiles: laneFiles, reader: &parts[main].reader)
            WorkflowFile.checkReferences(&file, emptyTemplates: templates.filter { $0.jobs == 0 }.map(\.name), reader: &parts[main].reader)
            WorkflowFile.expandNeedsOutputs(&file, reader: &parts[main].reader)
            return file
        }

        private mutating func readSettings(of index: Int) {
            var reader = parts[index].reader
            defer { parts[index].reader = reader }
            for entry in parts[index].entries ?? [] {
                switch entry.key {
                case "version":
                    guard let version = reader.integer(entry.value, "'version'", in: 1...Int.max) else { continue }
                    if version != 1 {
                        reader.error("unsupported version \(version); this sequencer reads version 1",
                                     at: reader.location(of: entry.value))
                    }
                    file.version = version
                case "vars":
                    for (name, value, node) in reader.variables(entry.value, "'vars'") ?? [] {
                        guard Substitution.isName(name), !Substitution.templateNames.contains(name) else {
                            let reason = Substitution.isName(name) ? "is a template's name (${\(name)})"
                                : "is not a name: use letters, digits and '_', starting with a letter or '_'"
                            reader.error("'vars': '\(name)' \(reason)", at: reader.location(of: node))
                            continue
                        }
                        vars.values[name] = reader.expanded(value, of: node, "'vars': '\(name)'", by: vars, as: .command)
                    }
                case "env":
                    for (name, value, node) in reader.variables(entry.value, "'env'") ?? [] {
                        file.environment[name] = reader.expanded(value, of: node, "'env': '\(name)'", by: vars, as: .command)
                    }
                default: continue
                }
            }
        }

        /// Reads the lanes and jobs of a file; whether it has a `jobs` key.
        private mutating func readLanesAndJobs(of index: Int) -> Bool {
            var reader = parts[index].reader
            defer { parts[index].reader = reader }
            var hasJobs = false
            for entry in parts[index].entries ?? [] {
                if entry.key == "lanes" {
                    let lanes = WorkflowFile.decodeLanes(entry.value, reader: &reader)
                    file.lanes += lanes
                    laneFiles += lanes.map { _ in parts[index].path }
                }
                guard entry.key == "jobs" else { continue }
                hasJobs = true
                let entries = reader.isNull(entry.value) ? []
                    : reader.entries(of: entry.value, "'jobs'", repeated: { "duplicate job '\($0)'" })
                guard let entries else { continue }
                if entries.isEmpty, index == parts.count - 1, !(parts[index].entries ?? []).contains(where: { $0.key == "include" }) {
                    reader.error("'jobs' is empty; a workflow needs at least one job", at: entry.keyLocation)
                }
                for job in entries { readJob(job, in: parts[index].path, reader: &reader) }
            }
            return hasJobs
        }

        /// A job, or a template's jobs.
        private mutating func readJob(_ entry: NodeReader.Entry, in definedIn: String, reader: inout NodeReader) {
            let shellNames = Set(file.environment.keys)
            guard let forEntry = entry.value.mapping?.first(where: { $0.key.scalar?.string == "for" }) else {
                var substitution = vars
                substitution.shellNames = shellNames
                file.jobs.append(WorkflowFile.decodeJob(entry, substitution: substitution, definedIn: definedIn, reader: &reader))
                return
            }
            guard entry.key.contains("${") else {
                reader.error("job '\(entry.key)' has 'for' but its name uses none of its items; name it like "
                             + "'\(entry.key)-${stem}' or '\(entry.key)-${id}', so that each item makes a job of its own",
                             at: entry.keyLocation)
                return
            }
            let template = WorkflowFile.template(forEntry.value, of: entry.key, directory: directory, vars: vars, reader: &reader)
            guard let template else { return }
            if let listing = template.listing { file.listings.append(listing) }
            templates.append((entry.key, template.items.count))
            if template.items.isEmpty {
                let why = template.listing.map { "\($0.patterns.map { "'\($0)'" }.joined(separator: ", ")) "
                    + ($0.patterns.count == 1 ? "matches" : "match") + " no file" } ?? "its list is empty"
                file.warnings.append(Diagnostic(
                    file: definedIn, location: template.location, severity: .warning,
                    message: "template '\(entry.key)' makes no jobs: \(why)"))
            }
            for exclusion in template.idleExclusions {
                let files = template.listing.map { $0.patterns.map { "'\($0)'" }.joined(separator: ", ") } ?? ""
                file.warnings.append(Diagnostic(
                    file: definedIn, location: exclusion.location, severity: .warning,
                    message: "template '\(entry.key)' excludes nothing with '\(exclusion.pattern)': it matches none of the files \(files) match"))
            }
            // An empty template is still read once, with a stand-in item, for its errors.
            for item in template.items.isEmpty ? ["item"] : template.items {
                var substitution = vars
                substitution.shellNames = shellNames
                substitution.values.merge(WorkflowFile.templateValues(of: item)) { $1 }
                let origin = Origin(template: entry.key, item: item)
                reader.context = origin.description
                var job = WorkflowFile.decodeJob(entry, substitution: substitution, definedIn: definedIn, reader: &reader)
                reader.context = nil
                job.origin = origin
                // A template's file is read by its job, as a pattern rule's source is.
                if template.listing != nil, !job.inputs.contains(item) {
                    job.inputEntries.insert(PathEntry(path: item, location: template.location), at: 0)
                }
                if !template.items.isEmpty { file.jobs.append(job) }
            }
        }
    }

    /// The lanes. A lane with errors is still returned (with width 1), so that jobs naming it
    /// are not reported as naming an undeclared lane; the errors keep the file from running.
    static func decodeLanes(_ node: Node, reader: inout NodeReader) -> [Lane] {
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
    ///
    /// - Parameter substitution: the `${name}`s its strings may use: the file's `vars`, and a
    ///   template item's names; its shell names are the file's `env` (the job's are added).
    static func decodeJob(
        _ entry: NodeReader.Entry, substitution: Substitution, definedIn: String, reader: inout NodeReader
    ) -> Job {
        let what = "job '\(entry.key)'"
        var substitution = substitution
        let name = reader.expanded(entry.key, of: entry.keyNode, "the name of \(what)", by: substitution, as: .command)
        if name.isEmpty || name.contains(where: { $0 == "/" || $0 == "#" || $0.isWhitespace }) {
            let written = name == entry.key ? what : "\(what) (named '\(name)')"
            reader.error("\(written): a job name cannot be empty or contain '/', '#' or spaces", at: entry.keyLocation)
        }
        var job = Job(
            name: name, location: entry.keyLocation, run: "", needs: [], lane: nil, priority: .utility,
            timeout: nil, retry: .none, environment: [:], workingDirectory: nil,
            workingDirectoryLocation: nil, inputEntries: [], outputEntries: [], definedIn: definedIn)
        if reader.isNull(entry.value) {
            reader.error("\(what) has no command; write '\(entry.key): COMMAND' or give it a 'run' key",
                         at: entry.keyLocation)
            return job
        }
        if let command = entry.value.scalar {
            // `name: command` is short for `name: { run: command }`
            job.run = reader.expanded(command.string, of: entry.value, "the command of \(what)", by: substitution, as: .command)
            if job.run.allSatisfy(\.isWhitespace) {
                reader.error("the command of \(what) is empty", at: reader.location(of: entry.value))
            }
            return job
        }
        guard let options = reader.entries(of: entry.value, what) else { return job }
        let known = reader.checkKeys(options, allowed: jobKeys, in: what)
        // The job's own variables first: `${NAME}` naming one is the shell's.
        for option in known where option.key == "env" {
            let variables = reader.variables(option.value, "'env' of \(what)") ?? []
            substitution.shellNames.formUnion(variables.map(\.name))
            for (variable, value, node) in variables {
                job.environment[variable] = reader.expanded(value, of: node, "'env' of \(what): '\(variable)'", by: substitution, as: .command)
            }
        }
        func text(_ node: Node, _ key: String, as use: Substitution.Use) -> String? {
            reader.string(node, key).map { reader.expanded($0, of: node, key, by: substitution, as: use) }
        }
        func paths(_ node: Node, _ key: String) -> [PathEntry] {
            (reader.strings(node, key) ?? []).map {
                PathEntry(path: reader.expanded($0.0, of: $0.1, key, by: substitution, as: .path), location: reader.location(of: $0.1))
            }
        }
        var hasRun = false
        for option in known {
            let value = option.value
            let key = "'\(option.key)' of \(what)"
            switch option.key {
            case "run":
                guard let run = text(value, key, as: .command) else { continue }
                hasRun = true
                job.run = run
                if run.allSatisfy(\.isWhitespace) { reader.error("\(key) is empty", at: reader.location(of: value)) }
            case "needs":
                // A need whose name cannot be expanded is reported once, not again as naming no job.
                job.needs = (reader.strings(value, key) ?? []).compactMap { name, node in
                    reader.expandedIfKnown(name, of: node, key, by: substitution, as: .command)
                        .map { Need(name: $0, location: reader.location(of: node)) }
                }
            case "lane":
                job.lane = text(value, key, as: .command)
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
            case "cwd":
                job.workingDirectory = text(value, key, as: .path)
                job.workingDirectoryLocation = reader.location(of: value)
            case "inputs": job.inputEntries = paths(value, key)
            case "outputs": job.outputEntries = paths(value, key)
            case "depfile":
                job.depfile = text(value, key, as: .path).map { PathEntry(path: $0, location: reader.location(of: value)) }
            case "cache": job.cache = reader.bool(value, key) ?? true
            case "inherit-env": job.inheritsEnvironment = reader.bool(value, key) ?? false
            case "volatile": job.volatileEntries = paths(value, key)
            default: continue  // `env`, read first; `for`, read by the template
            }
        }
        if !hasRun && !options.contains(where: { $0.key == "run" }) {
            reader.error("\(what) has no 'run' command", at: entry.keyLocation)
        }
        if job.depfile != nil, job.outputEntries.isEmpty, let depfile = job.depfile {
            reader.error("\(what) has a 'depfile' but no 'outputs'; a depfile's files count only for a job that "
                         + "can be up to date, one with outputs", at: depfile.location)
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
