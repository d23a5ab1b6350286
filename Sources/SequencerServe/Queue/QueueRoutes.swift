import Foundation
import Hummingbird
import SequencerQueue

/// The queue page (`/queue`) and its actions: retry, discard or cancel a job, and enqueue one.
/// Each action is a POST carrying the page's token (see ``Server/same(_:_:)``), and each is
/// recorded in the queue, done or refused: who (the user serving the page, and the browser),
/// when, from which address, and what came of it.
extension Server {
    /// The queue, when the runs come from one.
    var console: (any QueueConsole)? { (history as? QueueHistory)?.store as? any QueueConsole }

    func queueRoutes(_ router: Router<ServeContext>) {
        router.get("/queue") { request, _ in try await queuePage(request) }
        for action in ["retry", "discard", "cancel"] {
            router.post("/queue/jobs/:id/\(action)") { request, context in
                let id = DurableJobID(try context.parameters.require("id", as: Int64.self))
                return try await act(action, request, context) { console, _ in
                    let problem: String? =
                        switch action {
                        case "retry": try await console.retry(id, now: QueueClock.wallNow())
                        case "discard": try await console.discard(id)
                        default: try await Self.cancel(id, in: console)
                        }
                    return (id, problem)
                }
            }
        }
        router.post("/queue/enqueue") { request, context in
            try await act("enqueue", request, context) { console, form in try await enqueue(form, in: console) }
        }
    }

    private func queuePage(_ request: Request) async throws -> Response {
        guard let console else { return Self.plain(.notFound, "The queue page needs a queue: sequencer serve --queue LOCATION.\n") }
        let before = Query(request.uri.query)["failed_before"].flatMap(Int64.init).map(DurableJobID.init)
        let snapshot = try await read { try await QueueSnapshot.read(console, now: QueueClock.wallNow(), failedBefore: before) }
        let location = (history as? QueueHistory)?.location ?? ""
        return Self.html(QueuePage(snapshot: snapshot, location: location).html(token: options.token))
    }

    /// Checks the token, does `action` (which returns the job it acted on, and nil when done or
    /// else why not), records it, and sends the browser back to the page (or says why it was
    /// refused: 409).
    private func act(
        _ name: String, _ request: Request, _ context: ServeContext,
        _ action: (any QueueConsole, Query) async throws -> (DurableJobID?, String?)
    ) async throws -> Response {
        guard let console else { return Self.plain(.notFound, "there is no queue here\n") }
        guard let form = try await tokenForm(request, upTo: 256 * 1024) else { return Self.refused }
        var job: DurableJobID?
        var problem: String?
        do {
            (job, problem) = try await read { try await action(console, form) }
        } catch let error as HTTPError {
            problem = error.body ?? "the queue could not be changed"
        }
        let browser = request.headers[.userAgent].map { " (\(String($0.prefix(120))))" } ?? ""
        let entry = QueueAction(
            at: QueueClock.wallNow(), action: name, job: job, who: Self.operator + browser, address: context.remoteAddress,
            result: problem ?? "done")
        try await read { try await console.record(entry) }
        if let problem { return Self.plain(.conflict, problem + "\n") }
        return Response(status: .seeOther, headers: [.location: "/queue"])
    }

    /// A live job's cancel: one waiting or available ends now, a running one is asked to stop.
    private static func cancel(_ id: DurableJobID, in console: any QueueConsole) async throws -> String? {
        switch try await console.cancel(id, now: QueueClock.wallNow()) {
        case nil: "there is no job \(id)"
        case .cancelled?, .running?: nil
        case let state?: "job \(id) has ended (\(state)): nothing to cancel"
        }
    }

    /// Enqueues a job of a kind that a live worker runs, with the form's JSON input and key.
    private func enqueue(_ form: Query, in console: any QueueConsole) async throws -> (DurableJobID?, String?) {
        let now = QueueClock.wallNow()
        guard let kind = form["kind"] else { return (nil, "name the kind of job to enqueue") }
        let kinds = Set(try await console.workers(now: now).flatMap(\.kinds))
        guard kinds.contains(kind) else { return (nil, "no worker alive runs jobs of kind '\(kind)'") }
        let text = (form["input"] ?? "null").trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        } catch {
            let why = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            return (nil, "the input is not JSON: \(why)")
        }
        // As `DurableQueue` encodes an input: the value under `value`.
        let input = Data("{\"value\":\(text)}".utf8)
        let job = NewDurableJob(kind: kind, input: input, key: form["key"], runAt: now)
        do {
            return (try await console.enqueue([job], now: now).first, nil)
        } catch let error as QueueError {
            return (nil, error.message)
        }
    }

    /// The user this server runs as: who holds the page's token.
    static let `operator`: String = {
        let name = ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName
        return "\(name)@\(ProcessInfo.processInfo.hostName)"
    }()
}
