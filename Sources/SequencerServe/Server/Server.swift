import Foundation
import Sequencer
import Hummingbird
import Logging
import SequencerJournal
public import SequencerHistory
import SequencerQueue
import SequencerWorkflowFile

/// `sequencer serve`: the pages of a journal's runs, or of a durable queue's, on 127.0.0.1
/// unless told otherwise.
///
/// Every page and asset comes from this binary (no CDN: it works offline). Nothing it serves
/// on GET changes anything; the actions are POSTs that carry the server's token (see
/// ``ServeOptions/token``). Requests naming another host are refused, so that a web page
/// elsewhere cannot reach it through a name that resolves to 127.0.0.1.
public struct Server: Sendable {
    let options: ServeOptions
    /// Where the runs come from.
    public let history: any RunHistory
    /// Its runs as the pages show them.
    let views: RunViews
    let graphviz: Graphviz
    let port = Locked<Int?>(nil)

    /// A server of the journal at `options.journalPath`. When there is none yet (the workflow
    /// file never ran), the pages show no runs, and the workflow page the file, until a run
    /// creates it; serving creates nothing.
    /// - Throws: ``JournalError`` when the journal is there but cannot be read.
    public init(options: ServeOptions) throws {
        let history = JournalHistory(path: options.journalPath)
        _ = try history.journal()
        self.init(options: options, history: history)
    }

    /// A server of the runs of `history`.
    public init(options: ServeOptions, history: any RunHistory) {
        self.options = options
        self.history = history
        views = RunViews(history: history, workflowPath: options.workflowPath)
        graphviz = Graphviz(executable: options.graphviz)
    }

    /// The journal, when the runs come from one (and, for a file that never ran, once a run
    /// has created it): compare and resume need it.
    var journal: SQLiteJournal? {
        try? (history as? JournalHistory)?.journal()
    }

    /// Serves until the process is interrupted or the task cancelled; `ready` gets the page's
    /// address once the server listens. A cancel stops it listening and ends the pages' event
    /// streams; it returns once the requests it accepted are answered (a request that stops
    /// arriving is given up after a minute without a byte).
    public func run(ready: @escaping @Sendable (String) -> Void) async throws {
        let router = Router(context: ServeContext.self)
        router.middlewares.add(Guard(server: self))
        routes(router)
        var logger = Logger(label: "sequencer-serve")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: serverIdleTimeout)),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                self.port.withLock { $0 = port }
                ready("http://\(options.host.contains(":") ? "[\(options.host)]" : options.host):\(port)/")
            },
            logger: logger)
        // The command stops the process on a signal; a library caller cancels the task.
        try await serveUntilCancelled(app, logger: logger)
    }

    private func routes(_ router: Router<ServeContext>) {
        router.get("/") { _, _ in Response(status: .seeOther, headers: [.location: "/runs"]) }
        router.get("/runs") { request, _ in try await runsPage(request) }
        router.get("/runs/:id") { request, context in try await runPage(request, id: context.parameters.require("id", as: Int64.self)) }
        router.get("/runs/:id/graph") { request, context in
            try await graph(request, id: context.parameters.require("id", as: Int64.self))
        }
        router.get("/runs/:id/events") { _, context in
            try await events(id: context.parameters.require("id", as: Int64.self))
        }
        router.get("/runs/:id/job") { request, context in
            try await jobPage(request, id: context.parameters.require("id", as: Int64.self))
        }
        router.get("/runs/:id/job/output") { request, context in
            try await rawOutput(request, id: context.parameters.require("id", as: Int64.self))
        }
        actionRoutes(router)
        queueRoutes(router)
        router.get("/workflow") { request, _ in try await workflowPage(request) }
        // Its reads are many: all of them on a Dispatch thread.
        router.get("/compare") { request, _ in try await comparePage(request) }
        router.get("/assets/app.js") { _, _ in Self.asset(Assets.script, type: "text/javascript; charset=utf-8") }
        router.get("/assets/style.css") { _, _ in Self.asset(Assets.style, type: "text/css; charset=utf-8") }
    }

    // MARK: - Pages

    private func runsPage(_ request: Request) async throws -> Response {
        let query = Query(request.uri.query)
        let states = history.states
        let state = query["state"].flatMap(RunState.init(rawValue:)).flatMap { states.contains($0) ? $0 : nil }
        let before = query["before"].flatMap(Int64.init)
        let page = try await read { try await history.runs(RunQuery(workflow: query["workflow"], state: state, before: before, limit: 50)) }
        let html = RunsPage(page: page, states: states.map(\.rawValue), workflow: query["workflow"], state: state?.rawValue, before: before)
            .html(token: options.token)
        return Self.html(html)
    }

    private func runPage(_ request: Request, id: Int64) async throws -> Response {
        guard let view = try await read({ try await views.view(id) }) else { return notFound("There is no run #\(id).") }
        let previous = try await read { try await history.previousRun(of: view.run) }
        // A ninja build is built again, not resumed: `sequencer ninja` finishes what it left.
        let resumes = history.resumes && !WorkflowPage.isNinjaManifest(view.run.workflow)
        let page = RunPage(view: view, focus: Query(request.uri.query)["focus"], previous: previous, resumes: resumes)
        return Self.html(page.html(token: options.token))
    }

    private func jobPage(_ request: Request, id: Int64) async throws -> Response {
        guard let view = try await read({ try await views.view(id) }) else { return notFound("There is no run #\(id).") }
        let name = Query(request.uri.query)["name"] ?? ""
        guard let job = view.job(named: name) else { return notFound("Run #\(id) has no job '\(name)'.") }
        let past = try await read { try await history.samples(of: [name], workflow: view.run.workflow, upTo: id, limit: ComparePage.historyRuns) }
        var outputs: [Int: AttemptOutput] = [:]
        for attempt in job.attempts {
            outputs[attempt.attempt] = try await read { try await history.output(of: attempt, in: view.record, last: JobPage.shownBytes) }
        }
        let page = JobPage(view: view, job: job, history: past.samples[name] ?? [], keepsChecks: history is JournalHistory, outputs: outputs)
        return Self.html(page.html(token: options.token))
    }

    /// An attempt's output, byte for byte.
    private func rawOutput(_ request: Request, id: Int64) async throws -> Response {
        let query = Query(request.uri.query)
        guard let name = query["name"], let number = query["attempt"].flatMap(Int.init) else {
            return notFound("Name a job and an attempt.")
        }
        let view = try await read { try await views.view(id) }
        guard let view, let job = view.job(named: name), let attempt = job.attempts.first(where: { $0.attempt == number }) else {
            return notFound("Run #\(id) has no attempt \(number) of job '\(name)'.")
        }
        let data: Data
        switch try await read({ try await history.output(of: attempt, in: view.record, last: nil) }) {
        case .nothing: data = Data()
        case .gone(let why): return notFound(why)
        case .bytes(let bytes, _): data = bytes
        }
        let filename = "run\(id)-\(name)-\(number).log".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/octet-stream",
                .contentDisposition: "attachment; filename=\"\(String(filename))\"",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The focused graph as JSON: the drawn jobs, the hidden counts, and Graphviz's SVG (or
    /// why there is none: the page then draws it itself).
    private func graph(_ request: Request, id: Int64) async throws -> Response {
        guard let view = try await read({ try await views.view(id) }) else { return notFound("There is no run #\(id).") }
        let query = Query(request.uri.query)
        let focus = GraphView(view: view, focus: query["focus"], whole: query["whole"] != nil)
        var svg: String?
        var problem: String?
        do {
            svg = try await graphviz.svg(of: focus.dot())
        } catch {
            problem = error.description
        }
        return Self.json(focus.document(svg: svg, problem: problem))
    }

    /// Two runs compared: `b`, and `a` (by default the run of the same file before it).
    private func comparePage(_ request: Request) async throws -> Response {
        guard let journal else { return notFound("Comparing runs needs a journal: a queue keeps no fingerprints of a run's jobs.") }
        let query = Query(request.uri.query)
        guard let b = query["b"].flatMap(Int64.init), let after = try await read({ try await views.view(b) }) else {
            return notFound("Name the run to compare: /compare?a=RUN&b=RUN.")
        }
        let previous = try await read { try await history.previousRun(of: after.run) }
        guard let a = query["a"].flatMap(Int64.init) ?? previous, let before = try await read({ try await views.view(a) }) else {
            return notFound("Run #\(b) has no run before it to compare with.")
        }
        // A job up to date in a run has the fingerprint the earlier run checked: the journal
        // looks back for it.
        let fingerprints = try await read {
            try await offThread {
                (try journal.fingerprints(of: before.jobs.map(\.name), inRun: a), try journal.fingerprints(of: after.jobs.map(\.name), inRun: b))
            }
        }
        let reasons = after.jobs.reduce(into: [String: String]()) { reasons, job in reasons[job.name] = job.record?.reason }
        let differences = JobDifference.between(before, after, fingerprints: fingerprints, reasons: reasons)
        let showAll = query["all"] != nil
        let names = Set((showAll ? differences : differences.filter(\.differs)).prefix(ComparePage.shownRows).map(\.name))
        let past = try await read { try await history.samples(of: names, workflow: after.run.workflow, upTo: b, limit: ComparePage.historyRuns) }
        return Self.html(ComparePage(before: before, after: after, differences: differences, showAll: showAll, history: past).html(token: options.token))
    }

    /// A workflow file checked: the one given to `serve`, or one the journal's runs name.
    private func workflowPage(_ request: Request) async throws -> Response {
        var known: [String] = []
        if history is JournalHistory { known = try await read { try await history.runs(RunQuery(limit: 0)).workflows } }
        if let own = options.workflowPath, !known.contains(own) { known.insert(own, at: 0) }
        guard let path = Query(request.uri.query)["file"] ?? options.workflowPath ?? known.first else {
            return notFound("No workflow file: start sequencer serve with -f FILE, or record a run.")
        }
        guard known.contains(path) else { return notFound("The page shows only the file it was given and those its runs name.") }
        let checked = WorkflowPage.check(path)
        var svgs: [String?] = []
        for (number, cycle) in WorkflowPage.cycles(in: checked.errors).enumerated() {
            svgs.append(try? await graphviz.svg(of: WorkflowPage.dot(cycle: cycle, number: number)))
        }
        var graph: String?
        if let file = checked.file, file.jobs.count <= WorkflowPage.drawnJobs {
            graph = try? await graphviz.svg(of: file.graph(.dot))
        }
        return Self.html(WorkflowPage(path: path, known: known).html(token: options.token, checked: checked, cycleSVGs: svgs, graphSVG: graph))
    }

    // MARK: - Responses

    /// `body`'s value; a journal's or a queue's error is the server's (500), with its message.
    func read<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as JournalError {
            throw HTTPError(.internalServerError, message: "\(error)")
        } catch let error as QueueError {
            throw HTTPError(.internalServerError, message: "\(error)")
        }
    }

    private func notFound(_ message: String) -> Response {
        var response = Self.html(HTML.page(
            title: "Not found", page: "missing", token: options.token, body: "<h1>Not found</h1><p id=\"missing\">\(HTML.escape(message))</p>"))
        response.status = .notFound
        return response
    }

    static func html(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// What `sequencer serve` was asked for.
public struct ServeOptions: Sendable {
    public var journalPath: String
    public var host: String
    /// 0: any free port.
    public var port: Int
    /// Graphviz's `dot`; nil draws graphs without it.
    public var graphviz: String?
    /// The workflow file `serve` was given (absolute), for the workflow page.
    public var workflowPath: String?
    /// What POSTs must carry: random, new for each server.
    public var token: String

    public init(
        journalPath: String, workflowPath: String? = nil, host: String = "127.0.0.1", port: Int = 8080, graphviz: String? = nil,
        token: String = ServeOptions.newToken()
    ) {
        self.journalPath = journalPath
        self.workflowPath = workflowPath
        self.host = host
        self.port = port
        self.graphviz = graphviz
        self.token = token
    }

    /// Graphviz's `dot` on the `PATH`, or nil.
    public static func findGraphviz() -> String? { Graphviz.find() }

    /// 32 random bytes as hexadecimal.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
