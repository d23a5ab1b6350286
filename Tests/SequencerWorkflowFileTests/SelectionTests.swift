import Testing
import SequencerWorkflowFile

/// `WorkflowFile.selecting(_:)`: jobs by name, or by an output they declare, with what they need.
@Suite struct SelectionTests {
    static let file = """
        jobs:
          compile:
            run: cc -c zstd.c -o obj/zstd.o
            outputs: [obj/zstd.o]
          link:
            needs: [compile]
            cwd: programs
            run: cc ../obj/zstd.o -o zstd
            outputs: [zstd, ../lib/libzstd.a]
          zstd.o: touch zstd.o
        """

    static func selected(_ names: [String]) throws -> [String] {
        try WorkflowFile.parse(file, path: "/work/demo/build.yml").selecting(names).jobs.map(\.name)
    }

    @Test(arguments: [
        (["obj/zstd.o"], ["compile"]),
        (["./obj//zstd.o"], ["compile"]),
        (["/work/demo/obj/zstd.o"], ["compile"]),
        (["zstd"], ["compile", "link"]),                // as written, relative to `cwd: programs`
        (["programs/zstd"], ["compile", "link"]),       // from the file's directory
        (["./zstd"], ["compile", "link"]),              // from the job's directory
        (["lib/libzstd.a"], ["compile", "link"]),
        (["/work/demo/programs/../lib/libzstd.a"], ["compile", "link"]),
        (["zstd.o"], ["zstd.o"]),                       // a job's name wins over an output
        (["obj/zstd.o", "zstd.o"], ["compile", "zstd.o"]),
        (["comp*"], ["compile"]),                       // a pattern: the jobs it matches
        (["*.o"], ["zstd.o"]),
        (["obj/*.o"], ["compile"]),                     // an output first (as written)
    ])
    func aNameSelectsTheJobOrTheJobsMakingIt(names: [String], jobs: [String]) throws {
        #expect(try Self.selected(names) == jobs)
    }

    @Test func unknownNamesAreNamedWithASuggestion() throws {
        #expect {
            try Self.selected(["obj/zstd.oo", "lnk"])
        } throws: { error in
            "\(error)" == """
                no job or output named 'obj/zstd.oo' in /work/demo/build.yml; did you mean 'obj/zstd.o'?
                no job or output named 'lnk' in /work/demo/build.yml; did you mean 'link'?
                """
        }
    }
}
