import Foundation
import HTTPTypes
import Hummingbird
import SequencerJournal
import SequencerProcess

/// The two things the page changes: cancelling a running run (a journal's: SIGINT to the
/// `sequencer` that records it, as Ctrl-C would; a queue's: every live job of it cancelled in
/// the queue) and resuming a journal's run that did not succeed (`sequencer resume`, started in
/// a session of its own). Each is a POST carrying the server's token, in a form
/// field or an `X-Sequencer-Token` header: a page elsewhere can neither read the token nor
/// send the request to this host (see ``Guard``).
extension Server {
    func actionRoutes(_ router: Router<ServeContext>) {
        router.get("/runs/:id/resume") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return try await resumePreview(id: id)
        }
        router.post("/runs/:id/resume") { request, context in
            try await act(request, context: context) { id in try await resume(id) }
        }
        router.post("/runs/:id/cancel") { request, context in
            try await act(request, context: context) { id in try await read { try await history.cancel(id) } }
        }
    }

    /// Checks the token, does `action`, and sends the browser back to the run's page.
    private func act(
        _ request: Request, context: ServeContext, _ action: (Int64) async throws -> String?
    ) async throws -> Response {
        let id = try context.parameters.require("id", as: Int64.self)
        guard try await tokenForm(request, upTo: 64 * 1024) != nil else { return Self.refused }
        if let problem = try await action(id) { return Self.plain(.conflict, problem + "\n") }
        return Response(status: .seeOther, headers: [.location: "/runs/\(id)"])
    }

    static let tokenHeader = HTTPField.Name("X-Sequencer-Token") ?? .authorization

    /// The form a POST sent, when it carries the page's token (in the form, or in the
    /// `X-Sequencer-Token` header); nil when it carries none or another.
    func tokenForm(_ request: Request, upTo limit: Int) async throws -> Query? {
        var request = request
        let form = Query(String(buffer: try await request.collectBody(upTo: limit)))
        return Self.same(request.headers[Self.tokenHeader] ?? form["token"] ?? "", options.token) ? form : nil
    }

    static let refused = plain(.forbidden, "refused: this action needs the page's token (reload the page: each server has its own)\n")

    /// Compares all of both, whatever differs first, so that the time taken says nothing.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Nil when done; else why not.
    private func resume(_ id: Int64) async throws -> String? {
        guard let journal else { return "a queue's runs are not resumed from here: submit the workflow again" }
        guard let view = try await views.view(id) else { return "there is no run #\(id)" }
        guard !WorkflowPage.isNinjaManifest(view.run.workflow) else {
            return "run #\(id) is a ninja build: build again (`sequencer ninja`) to finish it"
        }
        guard ResumePreview.resumable(view.state) else { return "run #\(id) \(view.state == "running" ? "is running" : "succeeded"): nothing to resume" }
        guard let sequencer = ProgramLookup.companion("sequencer") else { return "cannot find the sequencer binary beside sequencer-serve or on the PATH" }
        let arguments = [sequencer, "resume", String(id), "-f", view.run.workflow, "--journal", options.journalPath]
        if let problem = Self.spawnDetached(arguments) { return problem }
        // Back to the run's page once the resume has begun its session, so that the page
        // follows it live (or after 10 s, or as soon as the resume gives up).
        let sessions = view.run.sessions
        for _ in 0..<200 {
            if let run = try journal.run(id), run.sessions > sessions || run.status == "running" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Starts `arguments` in a process group of its own (a Ctrl-C that stops the server does
    /// not stop the run), output to /dev/null (jobs' output goes to the journal's files), and
    /// reaps it when it ends. Nil when started; else why not.
    static func spawnDetached(_ arguments: [String]) -> String? {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [Int32(0), 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // Nothing else of the server's: not its listening socket (the port would stay taken
        // while the run lasts, after the server ended), nor its connections or files.
        #if os(Linux)
        _ = GNUFunctions.addCloseFrom?(&actions, 3)
        #endif
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard status == 0 else { return "cannot start \(arguments[0]): \(String(cString: strerror(status)))" }
        let child = pid
        Thread.detachNewThread {
            var ended: Int32 = 0
            _ = waitpid(child, &ended, 0)
        }
        return nil
    }

    private func resumePreview(id: Int64) async throws -> Response {
        guard journal != nil, let view = try await views.view(id) else {
            return Self.plain(.notFound, "there is no run #\(id)\n")
        }
        return Self.html(ResumePreview(view: view).html(token: options.token))
    }
}
