import Foundation
import SequencerCache
import SequencerTestHelpers
import Testing

/// Digests kept while a file stays as it was: any write since, even one that keeps its size and
/// sets its modification time back, reads it again; so does a write in the tick it was hashed in.
@Suite struct FileDigestsTests {
    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func setModified(_ path: String, seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test func aFileRewrittenWithItsSizeAndTimeKeptIsReadAgain() throws {
        let files = try TemporaryDirectory()
        let path = files.url.appendingPathComponent("header.h").path
        let digests = FileDigests()
        try write("int a;\n", to: path)
        setModified(path, seconds: 1_000_000)
        // Older than a tick of the files' clock, so that its digest is kept.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(digests.digest(of: path)?.digest == CacheDigest.of(Data("int a;\n".utf8)))
        // Same size, same modification time: only its change time says it was written.
        try write("int b;\n", to: path)
        setModified(path, seconds: 1_000_000)
        #expect(digests.digest(of: path)?.digest == CacheDigest.of(Data("int b;\n".utf8)))
        #expect(digests.digest(of: path)?.size == 7)
    }

    @Test func aFileWrittenJustAfterItWasHashedIsReadAgain() throws {
        let files = try TemporaryDirectory()
        let path = files.url.appendingPathComponent("made.h").path
        let digests = FileDigests()
        for round in 0..<200 {
            let first = "first \(round % 10)\n", second = "other \(round % 10)\n"
            try write(first, to: path)
            #expect(digests.digest(of: path)?.digest == CacheDigest.of(Data(first.utf8)))
            try write(second, to: path)
            #expect(digests.digest(of: path)?.digest == CacheDigest.of(Data(second.utf8)), "round \(round)")
        }
    }

    @Test func onlyRegularFilesHaveDigests() throws {
        let files = try TemporaryDirectory()
        let digests = FileDigests()
        #expect(digests.digest(of: files.url.path) == nil)
        #expect(digests.digest(of: files.url.appendingPathComponent("missing").path) == nil)
        #expect(FileDigests.read(files.url.path) == nil)
        let fifo = files.url.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(digests.digest(of: fifo) == nil && FileDigests.read(fifo) == nil)
    }
}
