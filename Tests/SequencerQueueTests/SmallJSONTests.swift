import Foundation
import GRDB
import Sequencer
import SequencerTestHelpers
import Testing
@testable import SequencerQueue
@testable import SequencerQueueSQLite

/// Inputs and outputs of the common small types are written and read by hand (``SmallJSON``):
/// the bytes are `JSONEncoder`'s, anything else goes through the coders, and rows written
/// before still decode and run.
@Suite(.suiteTimeLimit)
struct SmallJSONTests {
    static let strings = ["", "plain", "é and 日本", "a/b", "quote \" here", "back\\slash", "tab\there", "\u{7f}", "line\n"]
    static let ints = [0, 1, -1, 42, -907, Int.max, Int.min]

    @Test func theHandWrittenBytesAreJSONEncodersBytes() throws {
        let encoder = JSONEncoder()
        for value in Self.ints {
            #expect(try SmallJSON.encode(value, small: true, with: encoder) == encoder.encode(Wrapped(value)))
            #expect(SmallJSON.encode(value) != nil)
        }
        for value in [true, false] {
            #expect(try SmallJSON.encode(value, small: true, with: encoder) == encoder.encode(Wrapped(value)))
        }
        for value in Self.strings {
            #expect(try SmallJSON.encode(value, small: true, with: encoder) == encoder.encode(Wrapped(value)), "\(value)")
        }
        #expect(SmallJSON.encode("plain") != nil && SmallJSON.encode("a/b") == nil, "escaped strings go to the encoder")
        #expect(SmallJSON.encode(2.5) == nil && SmallJSON.encode([1]) == nil)
    }

    @Test func valuesComeBackAsTheyWent() throws {
        let (encoder, decoder) = (JSONEncoder(), JSONDecoder())
        for value in Self.ints {
            let data = try SmallJSON.encode(value, small: true, with: encoder)
            #expect(SmallJSON.decode(Int.self, from: data) == value)
            #expect(try SmallJSON.decode(Int.self, from: data, small: true, with: decoder) == value)
        }
        for value in [true, false] {
            #expect(SmallJSON.decode(Bool.self, from: try SmallJSON.encode(value, small: true, with: encoder)) == value)
        }
        for value in Self.strings {
            let data = try SmallJSON.encode(value, small: true, with: encoder)
            #expect(try SmallJSON.decode(String.self, from: data, small: true, with: decoder) == value, "\(value)")
        }
        #expect(SmallJSON.decode(String.self, from: Data(#"{"value":"plain"}"#.utf8)) == "plain")
    }

    /// Text in another form than `JSONEncoder`'s compact one is left to the decoder, which
    /// reads it or throws as before.
    @Test func otherFormsGoToTheDecoder() throws {
        let decoder = JSONDecoder()
        for text in [#"{ "value" : 7 }"#, #"{"value":7.0}"#, #"{"value":007}"#, #"{"value":-}"#, #"{"value":9223372036854775808}"#,
            #"{"value":"7"}"#, #"{"other":7}"#, "{}", "", #"{"value":7} "#]
        {
            #expect(SmallJSON.decode(Int.self, from: Data(text.utf8)) == nil, "\(text)")
        }
        #expect(try SmallJSON.decode(Int.self, from: Data(#"{ "value" : 7 }"#.utf8), small: true, with: decoder) == 7)
        #expect(throws: DecodingError.self) { try SmallJSON.decode(Int.self, from: Data(#"{"value":"7"}"#.utf8), small: true, with: decoder) }
        #expect(SmallJSON.decode(Bool.self, from: Data(#"{"value":1}"#.utf8)) == nil)
        #expect(SmallJSON.decode(Int.self, from: Data(#"{"value":true}"#.utf8)) == nil)
        #expect(SmallJSON.decode(String.self, from: Data(#"{"value":"a\"b"}"#.utf8)) == nil)
        #expect(try SmallJSON.decode(String.self, from: Data(#"{"value":"a\"b"}"#.utf8), small: true, with: decoder) == "a\"b")
        #expect(SmallJSON.decode(String.self, from: Data([0x7b, 0x22, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])) == nil)
        #expect(SmallJSON.decode(Double.self, from: Data(#"{"value":7}"#.utf8)) == nil)
    }

    /// A queue file of an earlier version (schema 7), its rows written by `JSONEncoder`: its
    /// available job runs with its input, and its output reads.
    @Test func aQueueWrittenBeforeRunsItsJobs() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v7.sqlite")
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: QueueMigrationTests.fixture("queue-v7.sql")) }
        let queue = DurableQueue(store: try SQLiteQueueStore(path: path))
        queue.register("apply") { (input: Int, _: JobContext) -> Int in input * 2 }
        #expect(try await queue.job(DurableJobID(1))?.result(as: String.self) == "ok")
        var doubled: Int?
        try await DurableQueueTests.working(queue) {
            doubled = try await queue.result(of: DurableJobID(4), as: Int.self)
        }
        #expect(doubled == 16)
        let stored = try #require(try await queue.job(DurableJobID(4))?.output)
        #expect(stored == Data(#"{"value":16}"#.utf8))
    }
}
