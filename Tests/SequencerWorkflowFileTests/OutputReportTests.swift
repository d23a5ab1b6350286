import Foundation
import Sequencer
import SequencerOutput
@testable import SequencerWorkflowFile
import Testing

@Suite struct OutputReportTests {
    typealias Fixture = OutputFixture

    static let yaml = """
        lanes:
          net: 1
        jobs:
          fetch: { run: curl x, lane: net }
          build: { run: make, needs: [fetch] }
          package: { run: tar c, needs: [build] }
          killed: sleep 100
        """

    /// fetch succeeds on its second attempt, build fails, package never starts, killed is killed.
    func failedRun(interrupted: Bool = false) async throws -> (ReportDocument, RunReport) {
        let file = try Fixture.file(Self.yaml)
        let report = try await Fixture.run(file, failing: ["build", "killed"], keepGoing: true)
        let document = ReportDocument(file: file, report: report, attempts: [
            Fixture.attempt("fetch", 2, from: 30, to: 40),   // in any order
            Fixture.attempt("fetch", 1, from: 0, to: 20, exit: .exited(6)),
            Fixture.attempt("build", 1, from: 40, to: 50, exit: .exited(2)),
            Fixture.attempt("killed", 1, from: 0, to: 45, exit: .signaled(15)),
        ], interrupted: interrupted)
        return (document, report)
    }

    @Test func jobsComeInFileOrderWithEveryKeyAndNullsForWhatDoesNotApply() async throws {
        let (document, report) = try await failedRun()
        let object = try Fixture.object(document.json())
        #expect(Set(object.keys) == ["file", "status", "interrupted", "duration", "counts", "criticalPath", "jobs"])
        #expect(object["file"] as? String == "/work/demo/sequencer.yml")
        #expect(object["status"] as? String == "failed")
        #expect(object["interrupted"] as? Bool == false)
        let duration = try #require(object["duration"] as? Double)
        #expect(duration >= 0 && duration < 60)
        #expect(object["criticalPath"] as? [String] == report.criticalPath.map(\.rawValue))
        #expect(object["counts"] as? [String: Int]
            == ["succeeded": 1, "failed": 2, "skipped": 1, "cancelled": 0, "timedOut": 0, "upToDate": 0])

        let jobs = try #require(object["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["name"] as? String } == ["fetch", "build", "package", "killed"])
        let keys: Set = ["name", "status", "attempts", "exitCode", "signal", "startedAt", "endedAt", "duration",
                         "error", "command", "output"]
        for job in jobs { #expect(Set(job.keys) == keys) }
        let (fetch, build, package, killed) = (jobs[0], jobs[1], jobs[2], jobs[3])

        #expect(fetch["status"] as? String == "succeeded")
        #expect(fetch["exitCode"] as? Int == 0)   // from the last attempt, not the first
        #expect(fetch["signal"] is NSNull)
        #expect(fetch["error"] is NSNull)
        #expect(fetch["command"] as? String == "curl x")
        #expect(fetch["output"] as? String == "/work/demo/.sequencer/logs/fetch.2.log")
        let started = try #require(fetch["startedAt"] as? Double)
        let ended = try #require(fetch["endedAt"] as? Double)
        let ran = try #require(fetch["duration"] as? Double)
        #expect(started <= ended && abs(ran - (ended - started)) < 1e-9)

        #expect(build["status"] as? String == "failed")
        #expect(build["exitCode"] as? Int == 2)
        #expect(build["attempts"] as? Int == 1)
        #expect((build["error"] as? String)?.hasPrefix("'build' failed") == true)

        #expect(package["status"] as? String == "skipped")
        #expect(package["attempts"] as? Int == 0)
        for key in ["exitCode", "signal", "startedAt", "endedAt", "duration", "output"] {
            #expect(package[key] is NSNull, "\(key)")
        }
        #expect((package["error"] as? String)?.contains("did not start") == true)

        #expect(killed["signal"] as? Int == 15)
        #expect(killed["exitCode"] is NSNull)
    }

    @Test func interruptedIsPassedThrough() async throws {
        let (document, _) = try await failedRun(interrupted: true)
        #expect(try Fixture.object(document.json())["interrupted"] as? Bool == true)
    }

    @Test func decodesBackToTheSameDocument() async throws {
        let (document, _) = try await failedRun()
        let decoded = try JSONDecoder().decode(ReportDocument.self, from: Data(document.json().utf8))
        #expect(decoded == document)
    }

    @Test func theSameDocumentPrintsTheSameText() async throws {
        let (document, _) = try await failedRun()
        #expect(document.json() == document.json())
        let text = document.json()
        #expect(text.hasSuffix("}\n"))
        // Keys sorted: "counts" before "criticalPath" before "duration" ... before "status".
        let offsets = ["counts", "criticalPath", "duration", "file", "interrupted", "jobs", "status"]
            .compactMap { text.range(of: "\n  \"\($0)\"")?.lowerBound }
        #expect(offsets.count == 7 && offsets == offsets.sorted())
        #expect(text.contains("\"/work/demo/sequencer.yml\""))   // slashes are not escaped
    }

    @Test func aSucceededRunHasNoErrors() async throws {
        let file = try Fixture.file("jobs:\n  a: make a\n  b: { run: make b, needs: [a] }\n")
        let report = try await Fixture.run(file)
        let document = ReportDocument(file: file, report: report, attempts: [
            Fixture.attempt("a", from: 0, to: 1), Fixture.attempt("b", from: 1, to: 2),
        ])
        #expect(document.status == "succeeded")
        #expect(document.criticalPath == ["a", "b"])
        #expect(document.jobs.allSatisfy { $0.status == "succeeded" && $0.error == nil && $0.exitCode == 0 })
        #expect(document.counts["succeeded"] == 2)
        #expect(document.counts.count == JobStatus.allCases.count)
        #expect(document.duration == report.duration.fractionalSeconds)
    }
}
