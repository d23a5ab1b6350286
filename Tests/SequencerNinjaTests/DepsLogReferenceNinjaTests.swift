import Foundation
import Testing

@testable import SequencerNinja

/// `.ninja_deps` against the real ninja: we read what it writes, it reads what we write, and
/// our recompaction writes its bytes.
@Suite(.enabled(if: ReferenceNinjaDirectory.isInstalled, "needs ninja at /usr/bin/ninja"))
struct DepsLogReferenceNinjaTests {
    /// Each output's command copies `OUTPUT.deps` (written by the test) to its depfile.
    static let rule = "rule cc\n  command = cp $out.deps $out.d && touch $out\n  deps = gcc\n  depfile = $out.d\n"

    /// What `ninja -t deps` prints for one output.
    static func listing(_ output: String, _ deps: NinjaDepsLog.PathDeps, valid: Bool) -> String {
        var text = "\(output): #deps \(deps.inputs.count), deps mtime \(deps.mtime) (\(valid ? "VALID" : "STALE"))\n"
        for input in deps.inputs { text += "    \(input)\n" }
        return text + "\n"
    }

    @Test func weReadTheLogNinjaWrote() throws {
        let directory = try ReferenceNinjaDirectory()
        try directory.write("build.ninja", Self.rule + "build x.o: cc\nbuild y.o: cc\n")
        try directory.write("x.o.deps", "x.o: a.h  b\\ c.h \\\n sub/../d.h\n")
        try directory.write("y.o.deps", "y.o: a.h e.h\n")
        let build = try directory.ninjaText()
        #expect(build.status == 0, "\(build.output)")

        let load = try NinjaDepsLog.load(from: directory.file(".ninja_deps"))
        #expect(load.warning == nil)
        #expect(load.log.paths == ["x.o", "a.h", "b c.h", "d.h", "y.o", "e.h"])
        let x = try #require(load.log.deps(of: "x.o"))
        let y = try #require(load.log.deps(of: "y.o"))
        #expect(x.inputs == ["a.h", "b c.h", "d.h"])
        #expect(y.inputs == ["a.h", "e.h"])
        // ninja's own listing of the same log.
        let listing = try directory.ninjaText("-t", "deps")
        #expect(listing.output == Self.listing("x.o", x, valid: true) + Self.listing("y.o", y, valid: true))
        // And the same bytes from us for the same records.
        var ours = NinjaDepsLog()
        var file = NinjaDepsLog.header
        file += try ours.record(output: "x.o", mtime: x.mtime, inputs: x.inputs)
        file += try ours.record(output: "y.o", mtime: y.mtime, inputs: y.inputs)
        #expect(file == (try directory.read(".ninja_deps")))
    }

    @Test func ninjaReadsTheLogWeWrote() throws {
        let directory = try ReferenceNinjaDirectory()
        try directory.write("build.ninja", Self.rule + "build p.o: cc\nbuild q.o: cc\nbuild odd$ name.o: cc\n")
        for output in ["p.o", "q.o", "odd name.o"] { try directory.write(output, "") }
        let future: Int64 = 4_000_000_000_000_000_000
        let records: [(String, NinjaDepsLog.PathDeps, Bool)] = [
            ("p.o", NinjaDepsLog.PathDeps(mtime: future, inputs: ["in1.h", "sub dir/in2.h", "a.hpp"]), true),
            ("q.o", NinjaDepsLog.PathDeps(mtime: 1, inputs: ["in1.h"]), false),
            ("odd name.o", NinjaDepsLog.PathDeps(mtime: future + 1, inputs: []), true),
        ]
        let appender = NinjaLogAppender.depsLog(at: directory.file(".ninja_deps"))
        var log = NinjaDepsLog()
        for (output, deps, _) in records {
            try appender.append(try log.record(output: output, mtime: deps.mtime, inputs: deps.inputs))
        }
        // A later list for p.o replaces the first.
        let replaced = NinjaDepsLog.PathDeps(mtime: future, inputs: ["in1.h", "new.h"])
        try appender.append(try log.record(output: "p.o", mtime: replaced.mtime, inputs: replaced.inputs))
        try appender.close()

        let listing = try directory.ninjaText("-t", "deps")
        #expect(listing.status == 0)
        let expected = Self.listing("p.o", replaced, valid: true)
            + Self.listing("q.o", records[1].1, valid: false)
            + Self.listing("odd name.o", records[2].1, valid: true)
        #expect(listing.output == expected)
    }

    @Test func ourRecompactionWritesNinjasBytes() throws {
        let directory = try ReferenceNinjaDirectory()
        try directory.write("build.ninja", Self.rule + "build x.o: cc\nbuild y.o: cc\nbuild z.o: cc\n")
        try directory.write("x.o.deps", "x.o: a.h b.h\n")
        try directory.write("y.o.deps", "y.o: b.h c.h\n")
        try directory.write("z.o.deps", "z.o: c.h d.h a.h\n")
        // The headers exist: a missing one would make ninja build every output again.
        for header in ["a.h", "b.h", "c.h", "d.h", "e.h"] { try directory.write(header, "") }
        #expect(try directory.ninjaText().status == 0)
        // New deps for x.o: a second record.
        try directory.write("x.o.deps", "x.o: e.h a.h\n")
        #expect(try directory.ninjaText("-t", "clean", "x.o").status == 0)
        #expect(try directory.ninjaText().status == 0)
        // y.o leaves the manifest.
        try directory.write("build.ninja", Self.rule + "build x.o: cc\nbuild z.o: cc\n")

        var ours = try NinjaDepsLog.load(from: directory.file(".ninja_deps")).log
        #expect(ours.loadedRecordCount == 4)
        #expect(try directory.ninjaText("-t", "recompact").status == 0)
        let theirs = try directory.read(".ninja_deps")
        try ours.recompact(at: directory.file("ours")) { ["x.o", "z.o"].contains($0) }
        #expect(try directory.read("ours") == theirs)
        #expect(ours.paths == ["x.o", "e.h", "a.h", "z.o", "c.h", "d.h"])
    }
}
