import Foundation
import SequencerBuild
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import SequencerWorkflowFile
import Testing
import SequencerHistory

/// What a changed path means to a watch, and what runs after it.
@Suite struct WatchScopeTests {
    private let yaml = """
        jobs:
          compile:
            run: cc -c src/main.c -o main.o
            inputs: [src/main.c]
            outputs: [main.o]
          headers:
            run: ./gen.sh
            inputs: ["include/**/*.h"]
            outputs: [include/generated.h]
          link:
            needs: [compile, headers]
            run: cc main.o -o app
            outputs: [app]
          test:
            needs: [link]
            run: ./app
          docs:
            run: make-docs
            inputs: ["docs/*.md"]
            cwd: site
        """

    private func scope(stored: [String: Fingerprint] = [:]) throws -> WatchScope {
        WatchScope(file: try WorkflowFile.parse(yaml, path: "/p/sequencer.yml"), stored: stored)
    }

    @Test(arguments: [
        ("/p/sequencer.yml", WatchScope.Change.workflow),
        ("/p/src/main.c", .jobs(["compile"])),
        ("/p/include/a.h", .jobs(["headers"])),
        ("/p/include/deep/b.h", .jobs(["headers"])),
        ("/p/include/.hidden.h", .ignored),
        ("/p/include/generated.h", .ignored),  // an output, though the glob matches it
        ("/p/site/docs/index.md", .jobs(["docs"])),
        ("/p/docs/index.md", .ignored),
        ("/p/main.o", .ignored),
        ("/p/.sequencer/journal.sqlite", .ignored),
        ("/p/src/other.c", .ignored),
    ])
    func aPathMeans(_ path: String, _ change: WatchScope.Change) throws {
        #expect(try scope().change(at: path) == change)
    }

    @Test func aHeaderADepfileNamedAffectsItsJob() throws {
        let stored = ["compile": Fingerprint(
            fingerprint: "f", parts: ["dep:/usr/include/stdio.h": "h1", "dep:src/util.h": "h2", "command": "c"], outputs: [:])]
        let scope = try scope(stored: stored)
        #expect(scope.change(at: "/usr/include/stdio.h") == .jobs(["compile"]))
        #expect(scope.change(at: "/p/src/util.h") == .jobs(["compile"]))
        #expect(scope.directories().contains("/usr/include"))
    }

    @Test func theSelectionIsTheJobsAffectedOrOwedAndEveryJobThatNeedsThem() throws {
        let scope = try scope()
        #expect(scope.selection(affected: ["compile"], owed: []) == ["compile", "link", "test"])
        #expect(scope.selection(affected: ["docs"], owed: []) == ["docs"])
        #expect(scope.selection(affected: ["docs"], owed: ["headers"]) == ["docs", "headers", "link", "test"])
        #expect(scope.selection(affected: [], owed: []) == [])
    }

    /// An included file is the workflow; so is a file coming or going where a template ranges
    /// over files (its job comes or goes), but not an edit of a file it already has.
    @Test func includesAndTemplateFilesAreTheWorkflow() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-watch-scope")
        try directory.write("common.yml", "vars:\n  cc: cc\n")
        try directory.write("src/a.c", "")
        try directory.write("src/gone.c", "")
        let path = try directory.write("sequencer.yml", """
            include: [common.yml]
            jobs:
              compile-${stem}:
                for: { files: "src/*.c" }
                run: ${cc} -c ${item}
                inputs: ["${item}"]
            """)
        let scope = WatchScope(file: try WorkflowFile.load(path: path), stored: [:])
        try FileManager.default.removeItem(atPath: directory.file("src/gone.c"))
        try directory.write("src/new.c", "")
        #expect(scope.change(at: directory.file("common.yml")) == .workflow)
        #expect(scope.change(at: directory.file("src/new.c")) == .workflow)
        #expect(scope.change(at: directory.file("src/gone.c")) == .workflow)
        #expect(scope.change(at: directory.file("src/a.c")) == .jobs(["compile-a"]))
        #expect(scope.change(at: directory.file("src/a.h")) == .ignored)
        #expect(scope.directories().contains(directory.file("src")))
    }

    @Test func theDirectoriesAreEachInputsAndEveryOneUnderADeepGlobsRoot() throws {
        let directory = try TemporaryDirectory(prefix: "sequencer-scope")
        let root = directory.url.path
        for path in ["src", "include/a/b", "include/.git/objects", "docs"] {
            try FileManager.default.createDirectory(atPath: root + "/" + path, withIntermediateDirectories: true)
        }
        let file = try WorkflowFile.parse(yaml, path: root + "/sequencer.yml")
        let scope = WatchScope(file: file, stored: [:])
        // site/docs does not exist: its nearest parent, the file's directory, is watched.
        #expect(scope.directories() == [root, root + "/src", root + "/include", root + "/include/a", root + "/include/a/b"])
        #expect(scope.directories(walking: false) == [root, root + "/src", root + "/include"])
    }

    @Test func aGlobDeeperThanItsRootWatchesNewDirectoriesUnderIt() throws {
        let scope = try scope()
        #expect(scope.watchesNew("/p/include/new"))
        #expect(!scope.watchesNew("/p/src/new"))
        #expect(!scope.watchesNew("/p/include/.git"))
    }
}
