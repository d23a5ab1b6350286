import Foundation
import PostgresTestSupport
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The shared output cache from the command line: `run --cache`, `SEQUENCER_CACHE` for ninja
/// mode, and `sequencer cache stats | ls | verify | gc`, through the built binary.
@Suite(.suiteTimeLimit)
struct CacheCommandTests {
    static let workflow = """
        version: 1
        jobs:
          upper:
            run: tr a-z A-Z < in.txt > out/upper.txt && echo made upper
            inputs: [in.txt]
            outputs: [out/upper.txt]
          count:
            needs: [upper]
            run: wc -c < out/upper.txt > out/count.txt
            inputs: [out/upper.txt]
            outputs: [out/count.txt]
          note: echo not cached
        """

    @Test func aSecondCheckoutRunsNothingAndTheCacheCommandsSeeWhatWasStored() async throws {
        let ada = try CLI(), bob = try CLI()
        let cache = ada.path("shared-cache")
        for cli in [ada, bob] {
            try cli.write("sequencer.yml", Self.workflow)
            try cli.write("in.txt", "hello\n")
        }
        let first = try await ada.run(["run", "--cache", cache])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.stdout.contains("cache: 0 hits, 2 misses; 2 stored"), "\(first.stdout)")

        // The environment names the cache as well as --cache does.
        let second = try await bob.run(["run", "--explain"], environment: ["SEQUENCER_CACHE": cache])
        #expect(second.status == 0, "\(second.output)")
        #expect(second.stdout.contains("explain: upper: restored from the cache (key "), "\(second.stdout)")
        #expect(second.stdout.contains("2 from the cache, 1 succeeded"), "\(second.stdout)")
        #expect(second.stdout.contains("made upper"), "what the job printed is shown again")
        #expect(bob.read("out/upper.txt") == "HELLO\n" && bob.read("out/count.txt") == ada.read("out/count.txt"))

        try await Self.keep(cache, holding: 2, with: ada)
    }

    /// `cache stats`, `ls`, `verify` and `gc` on a cache that holds `results` results in `main`,
    /// the workflow's among them: each says so, and `gc --max-size 0` empties it.
    static func keep(_ cache: String, holding results: Int, with cli: CLI) async throws {
        let stats = try await cli.run(["cache", "stats", "--cache", cache])
        #expect(stats.status == 0 && stats.stdout.contains("\(results) results (\(results) in main)"), "\(stats.output)")
        let listed = try await cli.run(["cache", "ls", "--cache", cache])
        #expect(listed.stdout.contains("sequencer.yml: upper") && listed.stdout.contains("sequencer.yml: count"), "\(listed.output)")
        #expect(try await cli.run(["cache", "verify", "--cache", cache]).status == 0)
        let collected = try await cli.run(["cache", "gc", "--cache", cache, "--max-size", "0"])
        #expect(collected.status == 0 && collected.stdout.contains("the cache holds 0 B"), "\(collected.output)")
        #expect(try await cli.run(["cache", "stats", "--cache", cache]).stdout.contains("0 results"))
    }

    /// The fleet's database as the cache: a second checkout restored from PostgreSQL, for a
    /// workflow file and for ninja mode.
    @Test(.enabled(if: TestServer.available)) func aPostgreSQLCacheServesASecondCheckout() async throws {
        try await TestServer.withDatabase { url in
            let ada = try CLI(), bob = try CLI()
            for cli in [ada, bob] {
                try cli.write("sequencer.yml", Self.workflow)
                try cli.write("in.txt", "hello\n")
            }
            let first = try await ada.run(["run", "--cache", url])
            #expect(first.status == 0 && first.stdout.contains("2 stored"), "\(first.output)")
            let second = try await bob.run(["run"], environment: ["SEQUENCER_CACHE": url])
            #expect(second.status == 0 && second.stdout.contains("2 from the cache"), "\(second.output)")
            #expect(bob.read("out/upper.txt") == "HELLO\n")
            for cli in [ada, bob] {
                try FileManager.default.createDirectory(atPath: cli.path("n/.git"), withIntermediateDirectories: true)
                try cli.write("n/src", "x\n")
                try cli.write("n/build.ninja", "rule cp\n  command = cp $in $out\nbuild out: cp src\n")
            }
            #expect(try await ada.run(["ninja", "-C", ada.path("n")], environment: ["SEQUENCER_CACHE": url]).stderr.contains("1 stored"))
            let ninja = try await bob.run(["ninja", "-C", bob.path("n")], environment: ["SEQUENCER_CACHE": url])
            #expect(ninja.stderr.contains("sequencer: cache: 1 hit, 0 misses"), "\(ninja.output)")
            #expect(bob.read("n/out") == "x\n")

            // The cache commands keep it as they keep a directory (the ninja edge's result too).
            try await Self.keep(url, holding: 3, with: ada)
            let http = try await ada.run(["cache", "stats", "--cache", "http://127.0.0.1:1/"])
            #expect(http.status == 2 && http.stderr.contains("an HTTP cache is kept by its server"), "\(http.output)")
        }
    }

    /// A cache server that hangs is given up after SEQUENCER_CACHE_TIMEOUT: the jobs run here,
    /// and the run succeeds, saying why nothing came from the cache.
    @Test func aCacheServerThatHangsLeavesTheJobsToRunHere() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", Self.workflow)
        try cli.write("in.txt", "hello\n")
        let silent = try SilentServer()
        let result = try await cli.run(
            ["run", "--cache", "http://127.0.0.1:\(silent.port)/"], environment: ["SEQUENCER_CACHE_TIMEOUT": "0.3"])
        #expect(result.status == 0, "\(result.output)")
        #expect(cli.read("out/upper.txt") == "HELLO\n")
        #expect(result.stderr.contains("the cache could not be read") && result.stderr.contains("no answer within"), "\(result.stderr)")
    }

    /// Whether this machine lets a test mount a small file system of its own (a user and mount
    /// namespace: `unshare -rm`), to fill it.
    static let canMountATmpfs: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\" && umount \"$d\" && rmdir \"$d\""]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// A cache on a full disk: the job's result cannot be stored, which is said (with the
    /// system's reason) and costs nothing else: the run succeeds with its outputs in place, the
    /// cut-short copy is removed, the cache is left undamaged (verify), and a run after it
    /// restores what did fit.
    @Test(.enabled(if: canMountATmpfs, "unshare -rm (a user and mount namespace) is not allowed here"))
    func aFullDiskLeavesTheJobRunAndTheCacheUndamaged() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              small:
                run: echo small > small.txt
                outputs: [small.txt]
              big:
                needs: [small]
                run: head -c 600000 /dev/urandom > big.bin
                outputs: [big.bin]

            """)
        let disk = cli.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        // The tmpfs exists only in the namespace: every command that sees it runs in one shell.
        let script = """
            mount -t tmpfs -o size=256k tmpfs "$1" || exit 99
            "$2" run --cache "$1/cache"; echo "first=$?"
            echo "left=$(ls -A "$1/cache/tmp" | wc -l)"
            rm -f small.txt big.bin
            "$2" run --cache "$1/cache" --explain; echo "second=$?"
            "$2" cache verify --cache "$1/cache"; echo "verify=$?"
            """
        let result = try await cli.run(
            ["-rm", "sh", "-c", script, "sh", disk, CLI.binary.path], executable: URL(fileURLWithPath: "/usr/bin/unshare"))
        #expect(result.stdout.contains("first=0") && result.stdout.contains("second=0"), "\(result.output)")
        #expect(result.stderr.contains("big: its result is not stored in the cache") && result.stderr.contains("No space left on device"),
                "\(result.stderr)")
        #expect(result.stdout.contains("explain: small: restored from the cache (key "), "\(result.stdout)")
        #expect(result.stdout.contains("verify=0"), "\(result.output)")
        // The copy the full disk cut short is gone: it would keep the space it took.
        #expect(result.stdout.contains("left=0"), "\(result.stdout)")
        #expect(cli.read("small.txt") == "small\n")
        let big = try FileManager.default.attributesOfItem(atPath: cli.path("big.bin"))[.size] as? Int
        #expect(big == 600_000)
    }

    @Test func badCacheLocationsAndSizesAreUsageErrors() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", Self.workflow)
        try cli.write("in.txt", "x\n")
        try cli.write("not-a-cache/notes.txt", "mine")
        let refused = try await cli.run(["run", "--cache", cli.path("not-a-cache")])
        #expect(refused.status == 2 && refused.stderr.contains("not a Sequencer cache"), "\(refused.output)")
        #expect(cli.read("not-a-cache/notes.txt") == "mine")
        let size = try await cli.run(["cache", "gc", "--cache", cli.path("c"), "--max-size", "ten"])
        #expect(size.status == 2 && size.stderr.contains("'ten' is not a size"), "\(size.output)")
        let namespace = try await cli.run(["run", "--cache", cli.path("c"), "--cache-namespace", "no/slash"])
        #expect(namespace.status == 2, "\(namespace.output)")
    }

    /// Ninja mode reads the cache from the environment: a second checkout of a build whose
    /// compile edge has a depfile (deps = gcc) is restored whole, deps log included.
    @Test func ninjaModeRestoresASecondCheckout() async throws {
        let ada = try CLI(), bob = try CLI()
        let cache = ada.path("shared-cache")
        for cli in [ada, bob] {
            // The root paths are written relative to: the checkout's (it has a .git).
            try FileManager.default.createDirectory(atPath: cli.path(".git"), withIntermediateDirectories: true)
            try cli.write("h.h", "header\n")
            try cli.write("src.txt", "source\n")
            try cli.write("build.ninja", """
                rule compile
                  command = cat $in h.h > $out && printf '%s: %s h.h\\n' $out $in > $out.d && echo compiled $out
                  deps = gcc
                  depfile = $out.d
                rule link
                  command = cat $in > $out
                build obj: compile src.txt
                build app: link obj
                build objs\(cli.directory.path)/src.txt.o: link src.txt
                build all: phony app objs\(cli.directory.path)/src.txt.o
                default all

                """)
        }
        let first = try await ada.run(["ninja"], environment: ["SEQUENCER_CACHE": cache])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.stderr.contains("sequencer: cache: 0 hits, 3 misses; 3 stored"), "\(first.stderr)")
        let second = try await bob.run(["ninja", "-d", "explain"], environment: ["SEQUENCER_CACHE": cache])
        #expect(second.status == 0, "\(second.output)")
        // An output named after the checkout's path (as CMake names the objects of sources
        // outside its tree) hits too, and is restored under this checkout's name.
        #expect(second.stderr.contains("sequencer: cache: 3 hits, 0 misses"), "\(second.stderr)")
        #expect(bob.read("objs\(bob.directory.path)/src.txt.o") == "source\n")
        #expect(second.stderr.contains("ninja explain: obj: restored from the cache (key "), "\(second.stderr)")
        #expect(second.stdout.contains("compiled obj"), "what the command printed is shown again: \(second.stdout)")
        #expect(bob.read("app") == "source\nheader\n")
        // The deps log has the header: an edit to it rebuilds, from the cache no more.
        let deps = try await bob.run(["ninja", "-t", "deps", "obj"])
        #expect(deps.stdout.contains("h.h"), "\(deps.output)")
        #expect(try await bob.run(["ninja"], environment: ["SEQUENCER_CACHE": cache]).stdout == "ninja: no work to do.\n")
        try bob.write("h.h", "edited\n")
        let edited = try await bob.run(["ninja"], environment: ["SEQUENCER_CACHE": cache])
        #expect(edited.stderr.contains("sequencer: cache: 0 hits, 2 misses"), "\(edited.output)")
        #expect(!FileManager.default.fileExists(atPath: bob.path("objs\(ada.directory.path)")), "nothing written under the other checkout's name")
        #expect(bob.read("app") == "source\nedited\n")
    }
}
