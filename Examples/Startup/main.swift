// The start-up sequence of an iOS app, as a graph (seeds/001, "iOS start up sequencer pattern"):
//
//     splash ──┬── force-update ──┬── whats-new
//              └── fetch-config ──┘
//
// The two middle jobs run at the same time; "whats-new" reads the config that "fetch-config"
// returned. Sleeps stand in for network calls. Run it with `swift run startup-example`.
import Sequencer

struct RemoteConfig: Sendable {
    var welcomeTitle: String
    var showWhatsNew: Bool
}

@main
struct StartupExample {
    static func main() async throws {
        var workflow = Workflow()
        workflow.lane("network", width: 2)

        let splash = try workflow.add("splash", priority: .userInteractive) { _ in
            try await Task.sleep(for: .milliseconds(100))  // the splash animation
            return "shown"
        }
        let forceUpdate = try workflow.add("force-update", needs: [splash.id], lane: "network") { _ in
            try await Task.sleep(for: .milliseconds(150))  // GET /minimum-version
            return false                                   // no update required
        }
        let config = try workflow.add("fetch-config", needs: [splash.id], lane: "network") { _ in
            try await Task.sleep(for: .milliseconds(250))  // GET /config
            return RemoteConfig(welcomeTitle: "What's new in 2.0", showWhatsNew: true)
        }
        try workflow.add("whats-new", needs: [forceUpdate.id, config.id], priority: .userInitiated) { ctx in
            guard try await !ctx.value(of: forceUpdate) else { return "update screen" }
            let config = try await ctx.value(of: config)
            try await Task.sleep(for: .milliseconds(50))   // present the screen
            return config.showWhatsNew ? config.welcomeTitle : "home"
        }

        let run = try workflow.start()
        // The "current screen" publisher of the original pattern: coalesced snapshots, at most
        // one per frame however many jobs finish.
        var deliveries = 0
        for await snapshot in run.snapshots(every: .milliseconds(16)) {
            deliveries += 1
            if snapshot.isFinished || deliveries % 6 == 1 { print(snapshot) }
        }
        let report = await run.report()

        print("\ntimeline (\(report.status), \(milliseconds(report.duration)) ms, \(deliveries) snapshots):")
        printTimeline(report)
        print("critical path: " + report.criticalPath.map(\.description).joined(separator: " -> "))

        if let a = report.outcome(of: "force-update"), let b = report.outcome(of: "fetch-config"),
           let aStart = a.startedAt, let aEnd = a.endedAt, let bStart = b.startedAt, let bEnd = b.endedAt {
            let overlap = min(aEnd, bEnd) - max(aStart, bStart)
            print("force-update and fetch-config overlapped for \(milliseconds(overlap)) ms")
        }
        guard report.status == .succeeded else {
            print("start-up failed")
            throw ExitError()
        }
    }

    struct ExitError: Error {}

    static func printTimeline(_ report: RunReport) {
        let width = 40
        let total = max(milliseconds(report.duration), 1)
        for outcome in report.outcomes {
            guard let start = outcome.startedAt, let end = outcome.endedAt else {
                print("\(outcome.id.description.padding(14)) \(outcome.status)")
                continue
            }
            let from = milliseconds(start) * width / total
            let to = max(from + 1, milliseconds(end) * width / total)
            let bar = String(repeating: " ", count: from) + String(repeating: "#", count: to - from)
            print("\(outcome.id.description.padding(14)) |\(bar.padding(width))| \(milliseconds(start))–\(milliseconds(end)) ms")
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
}
