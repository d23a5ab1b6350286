/// One event of the Chrome trace-event format (the JSON that Perfetto and chrome://tracing
/// load): a complete slice (`X`), or metadata naming a process or thread (`M`). Absent
/// fields are left out.
struct TraceEvent: Encodable, Sendable {
    struct Args: Encodable, Sendable {
        var name: String?
        var sortIndex: Int?
        var job: String?
        var attempt: Int?
        var attempts: Int?
        var exit: String?
        var command: String?
        var status: String?
        var critical: Bool?
        var output: String?
        /// On the critical path: what the job waited for after its needs had ended.
        var waited: String?

        enum CodingKeys: String, CodingKey {
            case name, sortIndex = "sort_index", job, attempt, attempts, exit, command, status, critical, output, waited
        }
    }

    var name: String
    var ph: String
    var ts: Int64?
    var dur: Int64?
    var pid = 1
    var tid: Int
    var cat: String?
    var cname: String?
    var args: Args

    /// A complete slice from `start` to `end`, in microseconds.
    static func slice(_ name: String, tid: Int, start: Int64, end: Int64, category: String, args: Args) -> TraceEvent {
        TraceEvent(name: name, ph: "X", ts: start, dur: max(0, end - start), tid: tid, cat: category, args: args)
    }

    /// Metadata: `process_name`, `thread_name` or `thread_sort_index`.
    static func metadata(_ name: String, tid: Int, args: Args) -> TraceEvent {
        TraceEvent(name: name, ph: "M", tid: tid, args: args)
    }
}
