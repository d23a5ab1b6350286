import ArgumentParser
import Foundation
import SequencerJournal
import SequencerRunner

/// Where the journal is, for every command that uses it.
struct JournalOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The journal (default: .sequencer/journal.sqlite beside the workflow file).", valueName: "path"),
        completion: .file(extensions: ["sqlite"]))
    var journal: String?

    /// The journal's path for a workflow file in `directory`.
    func path(beside directory: String) -> String {
        Self.path(journal, beside: directory)
    }

    /// `option` (`--journal`), else the default journal for a workflow file in `directory`.
    static func path(_ option: String?, beside directory: String) -> String {
        RunSettings.journalPath(option, beside: directory)
    }

    /// The journal for a run: nil (with a warning) when the default place cannot be written,
    /// say in a read-only checkout; a journal named with `--journal` must be usable.
    func openForRun(beside directory: String) throws -> SQLiteJournal? {
        let path = self.path(beside: directory)
        let folder = (path as NSString).deletingLastPathComponent
        if journal == nil, !FileManager.default.fileExists(atPath: path) {
            let writable = (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
                && FileManager.default.isWritableFile(atPath: folder)
            guard writable else {
                printError("warning: cannot create \(path); running without the journal (nothing is up to date, and the run cannot be resumed)")
                return nil
            }
        }
        return try Self.open(path)
    }

    /// Opens the journal at `path`, creating its directory; exit status 2 (with the reason
    /// printed) when it cannot be used.
    static func open(_ path: String, create: Bool = true) throws -> SQLiteJournal {
        let directory = (path as NSString).deletingLastPathComponent
        if !create, !FileManager.default.fileExists(atPath: path) {
            printError("error: \(path): there is no journal here (runs are recorded by `sequencer run`)")
            throw ExitCode(ExitStatus.invalid)
        }
        do {
            if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            return try SQLiteJournal(path: path)
        } catch let error as JournalError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        } catch {
            printError("error: \(path): cannot create the journal's directory: \(error.localizedDescription)")
            throw ExitCode(ExitStatus.invalid)
        }
    }
}
