import Foundation
import Sequencer
import SequencerJournal

/// A journal with one run of two jobs whose second failed, recorded by the library.
enum SequencerJournalForTests {
    struct Failure: Error {}

    static func record(at path: String) async throws {
        let journal = try SQLiteJournal(path: path)
        let recorder = try journal.beginRun(workflow: "/nowhere/app.yml")
        var workflow = Workflow()
        try workflow.add("first") { _ in }
        try workflow.add("second", needs: ["first"]) { _ in throw Failure() }
        _ = await (try workflow.start(RunOptions(recorder: recorder))).report()
    }
}
