import Foundation
import Testing
@testable import SequencerNinja

/// Random edits of valid manifests and dyndep files, and random bytes: the parser returns a
/// graph that holds together or a `ManifestError`, never crashes or hangs.
///
/// Runs 2,000 inputs of each kind by default; `SEQUENCER_FUZZ_ITERATIONS=N` runs N, and
/// `SEQUENCER_FUZZ_SEED=S` starts from another seed. A failing input is printed with its seed
/// and iteration; the generator rebuilds it from them. For a long run:
///
/// ```
/// SEQUENCER_FUZZ_ITERATIONS=1000000 swift test -c release -Xswiftc -enable-testing --filter ManifestFuzz
/// ```
@Suite struct ManifestFuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["SEQUENCER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 2_000
    static let seed = ProcessInfo.processInfo.environment["SEQUENCER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_B11D
    /// Longer than any input takes, however loaded the machine: a hang, not a slow parse.
    static let timeLimit = Duration.seconds(5)

    /// Valid manifests, in the styles CMake, Meson and GN write.
    static let manifests: [String] = [
        """
        # CMake
        ninja_required_version = 1.5
        include rules.ninja
        cmake_ninja_workdir = /src/build/
        build cmake_object_order_depends_target_app: phony || gen.h
        build CMakeFiles/app.dir/main.cpp.o: CXX_COMPILER__app_Debug /src/main.cpp || cmake_object_order_depends_target_app
          DEFINES = -DX=1
          DEP_FILE = CMakeFiles/app.dir/main.cpp.o.d
          FLAGS = -g -O0
          OBJECT_DIR = CMakeFiles/app.dir
          OBJECT_FILE_DIR = CMakeFiles/app.dir
        build app: CXX_EXECUTABLE_LINKER__app_Debug CMakeFiles/app.dir/main.cpp.o | /usr/lib/libm.so
          LINK_LIBRARIES = -lm
          TARGET_FILE = app
          TARGET_PDB = app.dbg
        build gen.h: CUSTOM_COMMAND /src/gen.py
          COMMAND = cd /src/build && python3 /src/gen.py > gen.h
          DESC = Generating gen.h
          restat = 1
        build all: phony app
        build build.ninja: RERUN_CMAKE | /src/CMakeLists.txt
          pool = console
        default all

        """,
        """
        # Meson
        ninja_required_version = 1.8.2
        pool link_pool
          depth = 2
        rule c_COMPILER
         command = cc $ARGS -MD -MQ $out -MF $DEPFILE -o $out -c $in
         deps = gcc
         depfile = $DEPFILE_UNQUOTED
         description = Compiling C object $out
        rule c_LINKER
         command = cc $ARGS -o $out $in $LINK_ARGS
         description = Linking target $out
         pool = link_pool
        rule CUSTOM_COMMAND
         command = $COMMAND
         description = $DESC
         restat = 1
        build prog.p/prog.c.o: c_COMPILER ../prog.c
         DEPFILE = prog.p/prog.c.o.d
         DEPFILE_UNQUOTED = prog.p/prog.c.o.d
         ARGS = -Iprog.p -I. -I.. -fdiagnostics-color=always -D_FILE_OFFSET_BITS=64 -Wall -O0 -g
        build prog: c_LINKER prog.p/prog.c.o
         LINK_ARGS = -Wl,--as-needed -Wl,--no-undefined
        build all: phony prog
        build clean: phony meson-internal__clean
        build meson-internal__clean: CUSTOM_COMMAND PHONY
         COMMAND = meson --internal clean
         description = Cleaning
         pool = console
        default all

        """,
        """
        # GN
        rule cxx
          command = c++ -MMD -MF ${out}.d ${defines} ${include_dirs} ${cflags} -c ${in} -o ${out}
          description = CXX ${out}
          depfile = ${out}.d
          deps = gcc
        rule stamp
          command = touch ${out}
        rule link
          command = c++ -o ${output_dir}/${target_output_name}${output_extension} @${output_dir}/${target_output_name}.rsp
          rspfile = ${output_dir}/${target_output_name}.rsp
          rspfile_content = ${in}
        subninja obj/base.ninja
        build obj/all.stamp: stamp obj/base/base.a |@ obj/check.stamp
        build obj/check.stamp: stamp
        build all: phony obj/all.stamp
        build $
            long$ name: phony all
        default all

        """,
        """
        rule cc
          command = gcc $cflags -c $in -o $out
          dyndep = $out.dd
        rule dd
          command = scan $in > $out
        cflags = -Wall
        build foo.o.dd: dd foo.c
        build foo.o | foo.mod: cc foo.c || foo.o.dd
        build bar.o: cc bar.c foo.mod || foo.o.dd bar.o.dd
          dyndep = foo.o.dd
        build bar.o.dd: dd bar.c
        build a: phony a
        build b: phony || a b

        """,
    ]

    static let includedFiles: [String: String] = [
        "rules.ninja": """
            rule CXX_COMPILER__app_Debug
              depfile = $DEP_FILE
              deps = gcc
              command = /usr/bin/c++ $DEFINES $FLAGS -MD -MT $out -MF $DEP_FILE -o $out -c $in
              description = Building CXX object $out
            rule CXX_EXECUTABLE_LINKER__app_Debug
              command = $PRE_LINK && /usr/bin/c++ $FLAGS $in -o $TARGET_FILE $LINK_LIBRARIES && $POST_BUILD
              description = Linking CXX executable $TARGET_FILE
              restat = $RESTAT
            rule CUSTOM_COMMAND
              command = $COMMAND
              description = $DESC
            rule RERUN_CMAKE
              command = /usr/bin/cmake --regenerate-during-build -S/src -B/src/build
              description = Re-running CMake...
              generator = 1

            """,
        "obj/base.ninja": """
            defines = -DBASE
            include_dirs = -I../..
            cflags = -O2
            target_output_name = base
            build obj/base/a.o: cxx ../../base/a.cc
              source_file_part = a.cc
            build obj/base/base.a: stamp obj/base/a.o

            """,
    ]

    static let dyndepManifest = """
        rule r
          command = r $in $out
        build out1: r in1 || dd
          dyndep = dd
        build out2 | out2.imp: r in2 || dd
          dyndep = dd
        build out3: r in3 dd
        build dd: r dd.in

        """

    static let dyndepFiles: [String] = [
        "ninja_dyndep_version = 1\nbuild out1 | out1.mod: dyndep | in1.h ../x/y.h\n  restat = 1\nbuild out2: dyndep | out1.mod\n",
        "ninja_dyndep_version = 1.0\r\n# comment\r\nbuild out2 | : dyndep |\r\nbuild out1: dyndep\r\n",
    ]

    /// Manifest bytes the mutator inserts.
    static let fragments: [[UInt8]] = [
        "build ", "rule ", "pool ", "default ", "include ", "subninja ", " = ", "=", ":", " | ", " || ", " |@ ", "|",
        "$", "$$", "$ ", "$:", "$\n", "$\r\n", "${", "}", "${out}", "$in", "$out", "$in_newline", "${x.y}", "$nope",
        "\n", "\r\n", "\r", "\t", "  ", "    ", "#", "# c\n", "\u{0}", "phony", "console", "depth = 1", "depth = -1",
        "command = c", "dyndep = dd", "pool = console", "rspfile = r", "rspfile_content = $in", "restat = 1",
        "ninja_required_version = 1.1", "ninja_dyndep_version = 1", "../", "./", "/", "//", "..", "a/../..",
        "include rules.ninja\n", "subninja obj/base.ninja\n", "include missing.ninja\n", "é", "\u{FEFF}",
        "\u{FF}", String(repeating: "a/", count: 70),
    ].map { Array($0.utf8) }

    @Test func theUnmutatedCorpusReads() throws {
        for manifest in Self.manifests {
            let graph = try ManifestTesting.parse(manifest, files: Self.includedFiles)
            #expect(!graph.edges.isEmpty)
            let outcome = Self.problems(parsing: Array(manifest.utf8))
            #expect(outcome.read && outcome.problems.isEmpty)
        }
        var graph = try ManifestTesting.parse(Self.dyndepManifest)
        let dd = try #require(graph.node(at: "dd"))
        for file in Self.dyndepFiles {
            var copy = graph
            let update = try copy.load(dyndep: dd, files: InMemoryManifestFiles(["dd": file]))
            #expect(update.edges.count == 2)
            #expect(ManifestTesting.problems(in: copy).isEmpty)
        }
        graph.nodes[Int(dd)].dyndepPending = false
    }

    @Test func mutatedManifestsReadOrFailCleanly() throws {
        var random = Random(state: Self.seed)
        let corpus = Self.manifests.map { Array($0.utf8) }
        var outcome = Outcome()
        for iteration in 0..<Self.iterations {
            let original = corpus[random.below(corpus.count)]
            let bytes = Self.mutate(original, using: &random)
            let (problems, read) = Self.problems(parsing: bytes)
            outcome.record(iteration: iteration, bytes: bytes, problems: problems, read: read)
        }
        outcome.report(kind: "mutated manifests")
    }

    @Test func randomBytesReadOrFailCleanly() throws {
        var random = Random(state: Self.seed ^ 0xB17E5)
        var outcome = Outcome()
        for iteration in 0..<Self.iterations {
            let alphabet: [UInt8] = Array(" \n\r\t$:|=#{}.-_/abuildrepoc\u{0}".utf8) + [0xFF]
            let bytes = (0..<random.below(200)).map { _ in
                random.below(4) == 0 ? UInt8(truncatingIfNeeded: random.next()) : alphabet[random.below(alphabet.count)]
            }
            let (problems, read) = Self.problems(parsing: bytes)
            outcome.record(iteration: iteration, bytes: bytes, problems: problems, read: read)
        }
        outcome.report(kind: "random bytes")
    }

    @Test func mutatedDyndepFilesLoadOrFailCleanly() throws {
        var random = Random(state: Self.seed ^ 0xDD)
        let manifest = try ManifestTesting.parse(Self.dyndepManifest)
        let dd = try #require(manifest.node(at: "dd"))
        let corpus = Self.dyndepFiles.map { Array($0.utf8) }
        var outcome = Outcome()
        for iteration in 0..<Self.iterations {
            let bytes = Self.mutate(corpus[random.below(corpus.count)], using: &random)
            var graph = manifest
            var problems: [String] = []
            var read = false
            do {
                _ = try graph.load(dyndep: dd, files: BytesFiles(files: ["dd": bytes]))
                problems = ManifestTesting.problems(in: graph)
                read = true
            } catch {
                if error.message.isEmpty { problems.append("empty message") }
            }
            outcome.record(iteration: iteration, bytes: bytes, problems: problems, read: read)
        }
        outcome.report(kind: "mutated dyndep files")
    }

    /// What is wrong with reading `bytes` (nothing if it reads into a sound graph, whose every
    /// edge evaluates, or fails with a message), and whether it read.
    static func problems(parsing bytes: [UInt8]) -> (problems: [String], read: Bool) {
        let graph: NinjaGraph
        do {
            graph = try ManifestParser.parse(contents: bytes, files: InMemoryManifestFiles(includedFiles))
        } catch {
            return (error.message.isEmpty ? ["empty message"] : [], false)
        }
        var problems = ManifestTesting.problems(in: graph)
        for edge in graph.edges.indices {
            for name in ["command", "description", "depfile", "rspfile_content", "in_newline", "out", "pool", "dyndep"] {
                do {
                    _ = try graph.evaluate(name, of: NinjaGraph.EdgeID(edge))
                } catch {
                    if !error.isFatal { problems.append("evaluating \(name): \(error.message)") }
                }
            }
        }
        return (problems, true)
    }

    /// One to four random edits of `input`.
    static func mutate(_ input: [UInt8], using random: inout Random) -> [UInt8] {
        var bytes = input
        for _ in 0...random.below(4) {
            let count = bytes.count
            let at = random.below(count + 1)
            switch random.below(10) {
            case 0:
                let end = min(count, at + 1 + random.below(8))
                if at < end { bytes.removeSubrange(at..<end) }
            case 1:
                bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
            case 2, 3:
                bytes.insert(contentsOf: fragments[random.below(fragments.count)], at: at)
            case 4:
                let end = min(count, at + 1 + random.below(16))
                if at < end { bytes.insert(contentsOf: bytes[at..<end], at: end) }
            case 5:
                if count > 1 { bytes.swapAt(random.below(count), random.below(count)) }
            case 6:
                bytes.removeSubrange(at..<count)
            default:
                var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
                let line = random.below(lines.count)
                switch random.below(4) {
                case 0: if lines.count > 1 { lines.remove(at: line) }
                case 1: lines.insert(lines[line], at: random.below(lines.count + 1))
                case 2: lines.swapAt(line, random.below(lines.count))
                default: lines[line].insert(contentsOf: [32, 32], at: 0)
                }
                bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
            }
        }
        return bytes
    }

    /// Failures and timing over a run.
    struct Outcome {
        var failures = 0
        var read = 0
        var slowest: (duration: Duration, iteration: Int) = (.zero, 0)
        let clock = ContinuousClock()
        var last: ContinuousClock.Instant

        init() { last = clock.now }

        mutating func record(iteration: Int, bytes: [UInt8], problems: [String], read didRead: Bool) {
            if didRead { read += 1 }
            let now = clock.now
            let elapsed = now - last
            last = now
            if elapsed > slowest.duration { slowest = (elapsed, iteration) }
            if elapsed > ManifestFuzzTests.timeLimit {
                Issue.record("seed \(ManifestFuzzTests.seed), iteration \(iteration): took \(elapsed)")
            }
            guard !problems.isEmpty else { return }
            failures += 1
            if failures <= 5 {
                Issue.record("""
                    seed \(ManifestFuzzTests.seed), iteration \(iteration): \(problems.joined(separator: "; "))
                    input: \(String(decoding: bytes, as: UTF8.self).debugDescription)
                    """)
            }
        }

        func report(kind: String) {
            print("fuzz: \(ManifestFuzzTests.iterations) \(kind) from seed \(ManifestFuzzTests.seed): \(read) read, \(failures) failing; slowest \(slowest.duration) (iteration \(slowest.iteration))")
        }
    }

    /// Files of raw bytes (not all of them UTF-8).
    struct BytesFiles: ManifestFiles {
        var files: [String: [UInt8]]

        func read(_ path: String) throws(ManifestFileError) -> [UInt8] {
            guard let bytes = files[path] else { throw .noSuchFile }
            return bytes
        }
    }

    /// SplitMix64: the whole state is one number, so a seed and an iteration rebuild an input.
    struct Random {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A number in `0..<bound`, or 0 if the bound is not positive.
        mutating func below(_ bound: Int) -> Int {
            bound <= 0 ? 0 : Int(next() % UInt64(bound))
        }
    }
}
