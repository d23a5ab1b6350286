// A rich notification under a deadline (seeds/004, "Implementing Rich Notifications in iOS 10").
//
// A notification service extension gets a short, fixed time to decorate a push notification.
// The post: "if you've downloaded two of four images you would call back with those two images
// attached and cancel your remaining downloads." Here that is a run deadline:
//
//     parse-payload ──┬── download-1   (fast)
//                     ├── download-2   (a slow server)
//                     ├── download-3   (fast)
//                     └── download-4   (a large clip)
//
// The downloads share a "network" lane of width 2. When the deadline passes, the two slow
// downloads are still running: Sequencer cancels them (their `Task.sleep` ends at once) and the
// report keeps the two that finished. Delivering is not a job (it would be skipped, since two
// of its needs did not succeed); it runs after the report and attaches what the report has.
// Sleeps stand in for the network. Run it with `swift run notification-example`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import Sequencer

/// What the push payload says: the text, and the media to download and attach.
struct Payload: Sendable {
    var title: String
    var body: String
    var attachmentURLs: [String]
}

/// A downloaded file, ready to attach (a `UNNotificationAttachment` in a real extension).
struct Attachment: Sendable {
    var identifier: String  // the remote URL, as the post suggests
    var fileName: String
}

/// The notification as it is delivered.
struct NotificationContent {
    var title: String
    var body: String
    var attachments: [Attachment]
}

@main
struct NotificationExample {
    /// The time the system gives the extension (about 30 s on iOS; shortened here).
    static let deadline = Duration.milliseconds(600)

    /// How long the simulated CDN takes for each file: two fast, two far beyond the deadline.
    static let latency: [String: Duration] = [
        "https://cdn.example.com/photo-1.jpg": .milliseconds(40),
        "https://cdn.example.com/photo-2.jpg": .seconds(5),
        "https://cdn.example.com/photo-3.jpg": .milliseconds(60),
        "https://cdn.example.com/clip-4.mp4": .seconds(3),
    ]

    static func main() async throws {
        var workflow = Workflow()
        workflow.lane("network", width: 2)  // at most two downloads at once

        let payload = try workflow.add("parse-payload", priority: .userInitiated) { _ in
            // Decoding the push payload's JSON, in a real extension.
            Payload(
                title: "Your trip to Lisbon",
                body: "4 new photos from Ana",
                attachmentURLs: [
                    "https://cdn.example.com/photo-1.jpg", "https://cdn.example.com/photo-2.jpg",
                    "https://cdn.example.com/photo-3.jpg", "https://cdn.example.com/clip-4.mp4",
                ])
        }
        var downloads: [JobHandle<Attachment>] = []
        for number in 1...4 {
            let download = try workflow.add(JobID("download-\(number)"), needs: [payload.id], lane: "network") { ctx in
                let url = try await ctx.value(of: payload).attachmentURLs[number - 1]
                try await Task.sleep(for: latency[url]!)  // cancellable: the deadline ends it
                return Attachment(identifier: url, fileName: String(url.split(separator: "/").last!))
            }
            downloads.append(download)
        }

        // Sleeping jobs use no CPU: let the lane, not the number of cores, limit the downloads.
        let run = try workflow.start(RunOptions(maxConcurrency: 4, deadline: deadline))
        print("notification arrived: 4 attachments, \(milliseconds(deadline)) ms to deliver")

        // What an app would show as progress; snapshots that repeat the last one are not sent.
        for await snapshot in run.snapshots(every: .milliseconds(100)) {
            print("  \(String(milliseconds(snapshot.elapsed)).leftPadding(4)) ms  \(snapshot)")
        }
        let report = await run.report()

        var arrived: [JobID: Attachment] = [:]
        for download in downloads { arrived[download.id] = report.value(of: download) }

        print("\nrun \(report.status) after \(milliseconds(report.duration)) ms:")
        for outcome in report.outcomes {
            var line = "  " + outcome.id.description.padding(15) + outcome.status.description.padding(10)
            if let start = outcome.startedAt, let end = outcome.endedAt {
                line += "\(milliseconds(start))–\(milliseconds(end)) ms".padding(13)
            } else {
                line += "not started".padding(13)
            }
            if let error = outcome.error {
                line += "\(error)"  // why it was cut off
            } else if let attachment = arrived[outcome.id] {
                line += attachment.fileName
            } else if let urls = report.value(of: payload)?.attachmentURLs {
                line += "\(urls.count) attachments to download"
            }
            print(line)
        }
        print("critical path: " + report.criticalPath.map(\.description).joined(separator: " -> "))

        // serviceExtensionTimeWillExpire(): deliver what has arrived.
        let text = report.value(of: payload)
        let content = NotificationContent(
            title: text?.title ?? "New photos",
            body: text?.body ?? "",
            attachments: downloads.compactMap { arrived[$0.id] })
        let names = content.attachments.map(\.fileName).joined(separator: ", ")
        print("delivered \"\(content.title)\" with \(content.attachments.count) of \(downloads.count) attachments"
              + (names.isEmpty ? "" : ": " + names))

        // The expected result, so CI catches a deadline that cuts too much or nothing at all.
        let finished = downloads.filter { report.outcome(of: $0.id)?.status == .succeeded }.map(\.id)
        let cutOff = downloads.filter { report.outcome(of: $0.id)?.status == .timedOut }.map(\.id)
        guard report.status == .timedOut, finished == ["download-1", "download-3"],
              cutOff == ["download-2", "download-4"], content.attachments.count == 2 else {
            print("unexpected result: expected download-1 and download-3 delivered, download-2 and download-4 timed out")
            exit(1)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadding(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
