import Foundation
import Testing

/// A Chrome trace parsed back from its JSON, checked the way Perfetto and chrome://tracing
/// need it: every event has a name, phase, pid and tid; every complete slice a start and a
/// duration of at least 0; every track that has slices a name; no two slices of a track overlap.
struct OutputTraceCheck {
    struct Slice {
        var name: String
        var tid: Int
        var ts: Int
        var dur: Int
        var cname: String?
        var args: [String: Any]
        var end: Int { ts + dur }
    }

    var slices: [Slice] = []
    /// Track names by tid.
    var tracks: [Int: String] = [:]
    /// Sort indexes by tid.
    var sortIndexes: [Int: Int] = [:]
    var processName: String?

    /// The slices on the track named `name`, by start.
    func slices(on name: String) -> [Slice] {
        slices.filter { tracks[$0.tid] == name }.sorted { $0.ts < $1.ts }
    }

    /// The track names, top to bottom.
    var trackOrder: [String] {
        sortIndexes.sorted { $0.value < $1.value }.compactMap { tracks[$0.key] }
    }

    init(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let document = try OutputFixture.object(text)
        #expect(document["displayTimeUnit"] as? String == "ms", sourceLocation: sourceLocation)
        let events = try #require(document["traceEvents"] as? [[String: Any]], sourceLocation: sourceLocation)
        for event in events {
            let name = try #require(event["name"] as? String, sourceLocation: sourceLocation)
            let phase = try #require(event["ph"] as? String, sourceLocation: sourceLocation)
            #expect(event["pid"] as? Int == 1, sourceLocation: sourceLocation)
            let tid = try #require(event["tid"] as? Int, sourceLocation: sourceLocation)
            let args = event["args"] as? [String: Any] ?? [:]
            switch phase {
            case "X":
                let ts = try #require(event["ts"] as? Int, sourceLocation: sourceLocation)
                let dur = try #require(event["dur"] as? Int, sourceLocation: sourceLocation)
                #expect(ts >= 0 && dur >= 0, "\(event)", sourceLocation: sourceLocation)
                #expect(event["cat"] is String, sourceLocation: sourceLocation)
                let cname = event["cname"] as? String
                slices.append(Slice(name: name, tid: tid, ts: ts, dur: dur, cname: cname, args: args))
            case "M":
                switch name {
                case "process_name": processName = args["name"] as? String
                case "thread_name":
                    #expect(tracks[tid] == nil, "two names for track \(tid)", sourceLocation: sourceLocation)
                    tracks[tid] = try #require(args["name"] as? String, sourceLocation: sourceLocation)
                case "thread_sort_index":
                    sortIndexes[tid] = try #require(args["sort_index"] as? Int, sourceLocation: sourceLocation)
                default: Issue.record("unknown metadata \(name)", sourceLocation: sourceLocation)
                }
            default: Issue.record("unexpected phase \(phase)", sourceLocation: sourceLocation)
            }
        }
        #expect(Set(tracks.keys) == Set(sortIndexes.keys), sourceLocation: sourceLocation)
        #expect(Set(tracks.values).count == tracks.count, "track names repeat", sourceLocation: sourceLocation)
        for (tid, track) in Dictionary(grouping: slices, by: \.tid) {
            #expect(tracks[tid] != nil, "track \(tid) has slices but no name", sourceLocation: sourceLocation)
            let ordered = track.sorted { ($0.ts, $0.end) < ($1.ts, $1.end) }
            for (a, b) in zip(ordered, ordered.dropFirst()) {
                #expect(a.end <= b.ts, "\(a.name) and \(b.name) overlap on \(tracks[tid] ?? "?")",
                        sourceLocation: sourceLocation)
            }
        }
    }
}
