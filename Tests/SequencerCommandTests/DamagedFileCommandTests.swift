import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A damaged journal or queue file, end to end through the built binary: every command that
/// meets the damage exits 2 naming the file and the way out, nothing writes into the file,
/// `gc --check` tells healthy from damaged, and `gc --set-aside` lets the next run start over.
@Suite(.suiteTimeLimit)
struct DamagedFileCommandTests {
    static let sqlite3 = "/usr/bin/sqlite3"

    /// Whether the sqlite3 shell is here: the tests ask it where a table's page is (this test
    /// target cannot link GRDB).
    static var hasShell: Bool {
        let found = FileManager.default.isExecutableFile(atPath: sqlite3)
        if !found { print("skipped: \(sqlite3) is needed to find a table's page") }
        return found
    }

    /// The root page of `table` in the SQLite file at `path`, asked of the sqlite3 shell (a
    /// short blocking wait); nil when there is no such table (yet).
    func rootPage(of table: String, in path: String) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.sqlite3)
        process.arguments = ["-readonly", path, "SELECT rootpage FROM sqlite_master WHERE name = '\(table)';"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs one statement with the sqlite3 shell; whether it succeeded.
    func sqlite(_ path: String, _ statement: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.sqlite3)
        process.arguments = [path, statement]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static let workflow = """
        jobs:
          compile:
            run: echo c >> compile.count; cat in.txt > out.txt
            inputs: [in.txt]
            outputs: [out.txt]
          link:
            needs: [compile]
            run: echo l >> link.count; cat out.txt > app.txt
            inputs: [out.txt]
            outputs: [app.txt]
        """

    @Test func everyCommandRefusesADamagedJournalAndTheWayOutStartsANewOne() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("in.txt", "one\n")
        try cli.write("sequencer.yml", Self.workflow)
        for _ in 0..<3 { #expect(try await cli.run(["run"]).status == 0) }
        #expect(cli.lines("compile.count") == 1)
        let journal = cli.path(".sequencer/journal.sqlite")
        guard Self.hasShell else { return }
        try SQLiteDamage.overwritePage(try #require(rootPage(of: "runs", in: journal)), of: journal)
        let before = try bytes(journal)
        let marker = journal + ".damage"

        // Each command finds the damage itself (the marker an earlier one leaves is removed
        // first), then every command is refused by the marker alone.
        for round in ["finds it", "is told by the marker"] {
            for arguments in [["run"], ["runs"], ["show", "last", "--json"], ["run", "--force"], ["gc", "--check"]] {
                if round == "finds it" { try? FileManager.default.removeItem(atPath: marker) }
                let result = try await cli.run(arguments)
                #expect(result.status == 2, "\(arguments) \(round): \(result.output)")
                #expect(result.stderr.contains(".sequencer/journal.sqlite"), "\(arguments) \(round): \(result.output)")
                #expect(result.stderr.contains("damaged"), "\(arguments) \(round): \(result.output)")
                #expect(result.stderr.contains("sequencer gc --set-aside"), "\(arguments) \(round): \(result.output)")
                #expect(FileManager.default.fileExists(atPath: marker), "\(arguments) \(round)")
            }
        }
        #expect(try bytes(journal) == before, "nothing was written into the damaged journal")
        #expect(cli.lines("compile.count") == 1, "no job ran")

        let setAside = try await cli.run(["gc", "--set-aside"])
        #expect(setAside.status == 0, "\(setAside.output)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: cli.path(".sequencer"))
            .filter { name in name.hasPrefix("journal.sqlite.damaged-") && !["-wal", "-shm", ".damage"].contains { name.hasSuffix($0) } }
        #expect(kept.count == 1, "\(kept)")
        if let name = kept.first { #expect(try bytes(cli.path(".sequencer/" + name)) == before) }
        #expect(!FileManager.default.fileExists(atPath: marker))

        // The runs were lost with their page; the fingerprints still read, and were kept.
        #expect(setAside.stdout.contains("fingerprints"), "\(setAside.output)")
        #expect(setAside.stdout.contains("lost: runs"), "\(setAside.output)")
        let next = try await cli.run(["run"])
        #expect(next.status == 0, "\(next.output)")
        #expect(next.stdout.contains("sequencer: run #1 of"), "\(next.output)")
        #expect(cli.lines("compile.count") == 1, "the recovered fingerprints keep the jobs up to date")
        try cli.write("in.txt", "two\n")
        #expect(try await cli.run(["run"]).status == 0)
        #expect(cli.lines("compile.count") == 2)
        let healthy = try await cli.run(["gc", "--check"])
        #expect(healthy.status == 0, "\(healthy.output)")
        #expect(healthy.stdout.contains("healthy"), "\(healthy.output)")
    }

    @Test func aTextFileAtTheJournalsPlaceIsRefusedAndSetAside() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("in.txt", "one\n")
        try cli.write("sequencer.yml", Self.workflow)
        let journal = try cli.write(".sequencer/journal.sqlite", "notes, not a database\n")
        let before = try bytes(journal)
        for arguments in [["run"], ["runs"], ["gc", "--check"]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.output)")
            #expect(result.stderr.contains("not an SQLite database"), "\(arguments): \(result.output)")
        }
        #expect(try bytes(journal) == before)
        #expect(try await cli.run(["gc", "--set-aside"]).status == 0)
        #expect(try await cli.run(["run"]).status == 0)
        #expect(cli.lines("compile.count") == 1)
    }

    @Test func aDamagedQueueIsRefusedByTheWorkerAndLeftAsItIs() async throws {
        guard Self.hasShell else { return }
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("in.txt", "one\n")
        try cli.write("sequencer.yml", Self.workflow)
        let queue = cli.path("q.sqlite")
        let worker = try cli.start(["worker", "--queue", queue])
        // The worker has opened the queue once its file has the jobs table.
        #expect(await eventually { await onOwnThread { rootPage(of: "jobs", in: queue) } != nil })
        // Killed (this test is not about its interrupt, which may come while it still starts),
        // and its write-ahead log folded into the file, so that the table's page is in the file.
        kill(worker.0.processIdentifier, SIGKILL)
        _ = try await cli.finish(worker.0, worker.1, worker.2)
        #expect(sqlite(queue, "PRAGMA wal_checkpoint(TRUNCATE);"))
        try SQLiteDamage.overwritePage(try #require(rootPage(of: "jobs", in: queue)), of: queue)
        let before = try bytes(queue)
        for arguments in [["worker", "--queue", queue], ["runs", "--queue", queue], ["gc", "--check", "--queue", queue]] {
            let result = try await cli.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.output)")
            #expect(result.stderr.contains(queue), "\(arguments): \(result.output)")
            #expect(result.stderr.contains("damaged"), "\(arguments): \(result.output)")
            #expect(result.stderr.contains("sequencer gc --recover --queue"), "\(arguments): \(result.output)")
        }
        #expect(try bytes(queue) == before)

        // The way out: what still reads goes into a new file, which is healthy.
        let recovered = try await cli.run(["gc", "--recover", "--queue", queue])
        #expect(recovered.status == 0, "\(recovered.output)")
        #expect(recovered.stdout.contains("lost: jobs"), "\(recovered.output)")
        #expect(try bytes(queue) == before)
        let check = try await cli.run(["gc", "--check", "--queue", queue + ".recovered"])
        #expect(check.status == 0, "\(check.output)")
    }
}
