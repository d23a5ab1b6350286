import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@testable import SequencerNinja

/// ``NinjaFileRecords``: what a build writes into ninja's own files while edges end at once.
struct NinjaFileRecordsTests {
    /// A path record's id is its place among the file's path records, so records numbered
    /// under the lock must reach the file in that order: else ninja finds an id out of place,
    /// says "premature end of file; recovering", and cuts the log there (found on a build of
    /// 87,000 edges, where it lost the deps of all but the first 12,000).
    @Test func depsRecordsFromConcurrentEdgesStayInTheirIDsOrder() async throws {
        let files = try TemporaryDirectory()
        let depsPath = files.path + "/.ninja_deps"
        let records = NinjaFileRecords(
            deps: NinjaDepsLog(), depsPath: depsPath, buildPath: files.path + "/.ninja_log", console: NinjaConsole(),
            isDead: { _ in false })
        let tasks = 8
        let perTask = 1_500
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in 0..<perTask {
                        // Each edge names an output and two inputs no other has: three new ids.
                        let name = "t\(task)/e\(index)"
                        records.recordDiscovered(outputs: [name + ".o"], inputs: [name + ".c", name + ".h"])
                    }
                }
            }
        }
        records.flush()
        let loaded = try NinjaDepsLog.load(from: depsPath)
        #expect(loaded.warning == nil)
        #expect(loaded.log.outputs.count == tasks * perTask)
        #expect(loaded.log.deps(of: "t3/e777.o")?.inputs == ["t3/e777.c", "t3/e777.h"])
    }
}
