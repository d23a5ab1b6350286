import Foundation
import SequencerRunner
import SequencerTestHelpers
import Testing

/// A worker's scratch directory: its own, and those of workers that are gone (killed by
/// SIGKILL, say, which cannot clean up) are removed when another starts.
@Suite struct WorkerScratchTests {
    @Test func aStartingWorkerRemovesTheScratchOfWorkersThatAreGone() throws {
        let parent = try TemporaryDirectory()
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let gone = parent.file("sequencer-worker-\(ended.processIdentifier)")
        let alive = parent.file("sequencer-worker-\(getppid())")
        let other = parent.file("sequencer-worker-notes")
        for directory in [gone, alive, other] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "output".write(toFile: directory + "/1-1.log", atomically: true, encoding: .utf8)
        }

        let mine = try WorkerScratch.make(in: parent.path)
        #expect(mine == parent.file("sequencer-worker-\(getpid())"))
        let left = try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted()
        #expect(left == ["sequencer-worker-\(getppid())", "sequencer-worker-\(getpid())", "sequencer-worker-notes"].sorted())
        #expect(FileManager.default.fileExists(atPath: alive + "/1-1.log"), "a live worker's output is its own")
    }
}
