#if canImport(Glibc)
import Foundation
import Glibc
import SequencerBuild
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// inotify through its system calls: what a watched directory reports, and closing.
@Suite(.suiteTimeLimit) struct InotifyTests {
    /// The events `inotify` reports until one is at `path` (a thread of its own waits).
    private func events(_ inotify: Inotify, until path: String) async -> [Inotify.Event] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var all: [Inotify.Event] = []
                while let events = inotify.next() {
                    all += events
                    if events.contains(where: { $0.path == path }) { break }
                }
                continuation.resume(returning: all)
            }
        }
    }

    @Test func aWrittenFileAMovedOneADeletedOneAndANewDirectoryAreReported() async throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-inotify")
        let root = directory.url.path
        let inotify = try Inotify()
        #expect(inotify.watch(root) == nil)
        #expect(inotify.watch(root) == nil)
        #expect(inotify.count == 1)
        #expect(inotify.watch(root + "/missing") == ENOENT)

        try Data("a".utf8).write(to: URL(fileURLWithPath: root + "/a.txt"))
        #expect(await events(inotify, until: root + "/a.txt").contains { $0.path == root + "/a.txt" && !$0.isNewDirectory })

        try Data("b".utf8).write(to: URL(fileURLWithPath: root + "/b.txt"), options: .atomic)  // a rename onto b.txt
        #expect(await events(inotify, until: root + "/b.txt").contains { $0.path == root + "/b.txt" })

        try FileManager.default.removeItem(atPath: root + "/a.txt")
        #expect(await events(inotify, until: root + "/a.txt").contains { $0.path == root + "/a.txt" })

        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: false)
        let made = await events(inotify, until: root + "/sub").first { $0.path == root + "/sub" }
        #expect(made?.path == root + "/sub" && made?.isNewDirectory == true && made?.overflowed == false)
        #expect(inotify.watch(root + "/sub") == nil)
        try Data("c".utf8).write(to: URL(fileURLWithPath: root + "/sub/c.txt"))
        #expect(await events(inotify, until: root + "/sub/c.txt").contains { $0.path == root + "/sub/c.txt" })
    }

    @Test func closeEndsAWaitingNext() async throws {
        let inotify = try Inotify()
        let directory = try TemporaryDirectory(prefix: "sequencer-inotify")
        #expect(inotify.watch(directory.url.path) == nil)
        async let waited: [Inotify.Event]? = withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: inotify.next()) }
        }
        inotify.close()
        #expect(await waited == nil)
        #expect(inotify.next() == nil, "and every later one")
    }
}
#endif
