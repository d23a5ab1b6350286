import ArgumentParser
import Foundation
import SequencerJournal
import SequencerPostgres
import SequencerQueue
import SequencerQueueSQLite

/// `sequencer gc --check` and `sequencer gc --set-aside`: a full check of the journal (or of a
/// queue's SQLite file), and the way out of a damaged journal.
enum DamageCommands {
    struct CheckResult: Encodable {
        let path: String
        let healthy: Bool
        let problems: [String]
    }

    struct SetAsideResult: Encodable {
        let path: String
        /// Where the damaged file went; nil when it was healthy and stayed.
        let setAsideAs: String?
        /// Rows read into the new file, by table.
        let recovered: [String: Int]
        let lost: [String]
    }

    /// Checks the journal at `journal`, or the queue file `queue` when given: exit status 0
    /// when it is healthy, 2 when it is damaged (or cannot be checked).
    static func check(journal: String, queue: String?, json: Bool) throws {
        let path: String
        let problems: [String]
        do {
            if let queue {
                path = QueueLocation.path(queue)
                problems = try checkQueue(queue, path: path)
            } else {
                path = journal
                problems = try SQLiteJournal.check(path: journal)
            }
        } catch let error as QueueError where error.code == .unreadable {
            // Refused at its open: damaged (the message says so, and how to recover), or not a queue.
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        if json {
            printJSON(CheckResult(path: path, healthy: problems.isEmpty, problems: problems))
        } else if problems.isEmpty {
            print("\(path): healthy (SQLite's integrity_check found no problem)")
        }
        guard problems.isEmpty else {
            let wayOut = queue == nil
                ? "To set it aside (kept, renamed) and start a new journal with what still reads of it: sequencer gc --set-aside --journal \(path)"
                : "To copy what still reads of it into a new file (this one stays as it is): sequencer gc --recover --queue \(path)"
            printError("error: \(path): damaged; SQLite's integrity_check found: \(problems.prefix(10).joined(separator: "; ")). \(wayOut)")
            throw ExitCode(ExitStatus.invalid)
        }
    }

    /// The problems SQLite's integrity_check finds in the queue file at `path`.
    private static func checkQueue(_ location: String, path: String) throws -> [String] {
        guard !QueueLocation.isPostgres(location) else {
            printError("error: --check checks an SQLite file; PostgreSQL checks its own (amcheck)")
            throw ExitCode(ExitStatus.invalid)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            printError("error: --queue \(location): there is no queue file at \(path)")
            throw ExitCode(ExitStatus.invalid)
        }
        return try SQLiteQueueStore(path: path).integrityProblems()
    }

    /// Sets the damaged journal at `journal` aside, starting a new one with what still reads;
    /// a healthy one stays in place.
    static func setAside(journal: String, json: Bool) throws {
        let result: JournalSetAside?
        do {
            result = try SQLiteJournal.setAside(path: journal)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        if json {
            return printJSON(SetAsideResult(
                path: journal, setAsideAs: result?.damagedFile, recovered: result?.recovered ?? [:], lost: result?.lost ?? []))
        }
        guard let result else {
            return print("\(journal): healthy (SQLite's integrity_check found no problem); it was left in place")
        }
        print("set the damaged journal aside as \(result.damagedFile)")
        printRecovery(into: journal, recovered: result.recovered, lost: result.lost)
    }

    /// Copies what still reads of the damaged queue file at `queue` into `FILE.recovered`.
    static func recover(queue: String, json: Bool) throws {
        guard !QueueLocation.isPostgres(queue) else {
            printError("error: --recover reads an SQLite file; restore a PostgreSQL database from its backups")
            throw ExitCode(ExitStatus.invalid)
        }
        let path = QueueLocation.path(queue)
        let recovered: (path: String, copied: [String: Int], lost: [String])
        do {
            recovered = try SQLiteQueueStore.recover(from: path)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        if json { return printJSON(SetAsideResult(path: recovered.path, setAsideAs: nil, recovered: recovered.copied, lost: recovered.lost)) }
        printRecovery(into: recovered.path, recovered: recovered.copied, lost: recovered.lost)
        print("\(path) was left as it is; with every worker stopped, move it aside (with its -wal and -shm files) and \(recovered.path) into its place")
    }

    private static func printRecovery(into path: String, recovered: [String: Int], lost: [String]) {
        let rows = recovered.sorted { $0.key < $1.key }.filter { $0.value > 0 }.map { "\($0.key) \($0.value)" }
        print(rows.isEmpty
            ? "nothing could be read from it: \(path) starts empty (every job runs once)"
            : "\(path) starts with what still reads of it (rows by table): \(rows.joined(separator: ", "))")
        for line in lost { print("lost: \(line)") }
    }
}
