import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import Sequencer
import SequencerMetrics
import SequencerPostgres
import SequencerQueue
import ServiceLifecycle

// A web server whose routes enqueue jobs to PostgreSQL, and a worker of the same queue, in one
// ServiceGroup: SIGTERM (or Ctrl-C) stops the server taking requests and drains the worker (no
// more claims; running jobs finish within 10 s, or go back to the queue for another worker).
//
//     DATABASE_URL=postgres://me:secret@127.0.0.1/app PORT=8080 swift run queue-server-example
//     curl -X POST localhost:8080/thumbnails -d '{"photo": 7, "width": 320}'   # {"job":1}
//     curl localhost:8080/jobs/1                                             # its state, then its result
//     curl localhost:9464/metrics                                            # METRICS_PORT: the queue's metrics
//
// Any number of these processes may share the database: each job runs once, on one of them.

struct Thumbnail: Codable, Sendable {
    var photo: Int
    var width: Int
}

struct Made: Codable, Sendable {
    var file: String
}

struct Enqueued: ResponseCodable {
    var job: Int64
}

struct JobState: ResponseCodable {
    var job: Int64
    var state: String
    var file: String?
    var error: String?
}

let environment = ProcessInfo.processInfo.environment
guard let url = environment["DATABASE_URL"] else {
    FileHandle.standardError.write(Data("queue-server-example: set DATABASE_URL to a PostgreSQL database (postgres://user:password@host/db)\n".utf8))
    exit(2)
}
let port = environment["PORT"].flatMap { Int($0) } ?? 8080
var logger = Logger(label: "queue-server-example")
logger.logLevel = .info

// The queue's metrics, for Prometheus to scrape.
let metrics = try await MetricsEndpoint.start(host: "127.0.0.1", port: environment["METRICS_PORT"].flatMap { Int($0) } ?? 9464)
MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))

let queue = try await DurableQueue(store: .postgres(url: url))
queue.register("thumbnail") { (input: Thumbnail, _: JobContext) -> Made in
    // The work: here, a pause the size of the picture.
    try await Task.sleep(for: .milliseconds(input.width / 10))
    return Made(file: "thumbnails/\(input.photo)-\(input.width).jpg")
}

let router = Router()
router.post("/thumbnails") { request, context -> Enqueued in
    let input = try await request.decode(as: Thumbnail.self, context: context)
    let id = try await queue.enqueue("thumbnail", input, key: "thumbnail-\(input.photo)-\(input.width)")
    return Enqueued(job: id.rawValue)
}
router.get("/jobs/:id") { _, context -> JobState in
    let id = DurableJobID(try context.parameters.require("id", as: Int64.self))
    guard let job = try await queue.job(id) else { throw HTTPError(.notFound, message: "no job \(id.rawValue)") }
    var state = JobState(job: id.rawValue, state: "\(job.state)", error: job.error)
    if job.state == .succeeded { state.file = try await queue.result(of: id, as: Made.self).file }
    return state
}

let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        let line = "listening on http://127.0.0.1:\(channel.localAddress?.port ?? port), metrics on http://127.0.0.1:\(metrics.port)/metrics\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    },
    logger: logger)
let group = ServiceGroup(
    configuration: .init(
        services: [.init(service: app), .init(service: QueueWorker(queue: queue, maxConcurrency: 4, gracePeriod: .seconds(10)))],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
try await queue.close()
await metrics.close()
print("stopped")
