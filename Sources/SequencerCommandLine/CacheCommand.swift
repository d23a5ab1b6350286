import ArgumentParser
import Foundation
import SequencerCache
import SequencerOutput
import SequencerPostgres
import SequencerProcess
import SequencerRunner

/// `sequencer cache stats | ls | verify | gc`: a shared output cache, looked at and kept.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Look at a shared output cache (--cache, or $SEQUENCER_CACHE), check it, and keep it to a size.",
        subcommands: [Stats.self, List.self, Verify.self, Collect.self, Serve.self]
    )

    /// Where the cache is: `--cache`, else `SEQUENCER_CACHE`.
    struct Location: ParsableArguments {
        @Option(help: ArgumentHelp("The cache: a directory or a postgres:// URL (default: $SEQUENCER_CACHE).", valueName: "location"))
        var cache: String?

        private func named() throws -> String {
            guard let location = cache ?? ProcessInfo.processInfo.environment["SEQUENCER_CACHE"].flatMap({ $0.isEmpty ? nil : $0 }) else {
                throw ValidationError("no cache: give --cache LOCATION, or set SEQUENCER_CACHE")
            }
            return location
        }

        /// Opens the cache, a directory or a PostgreSQL database, to be kept; it must exist.
        func open(readOnly: Bool) async throws -> any CacheMaintenance {
            let location = try named()
            do {
                let scheme = location.range(of: "://").map { location[..<$0.lowerBound].lowercased() }
                if scheme == "http" || scheme == "https" {
                    throw CacheError(.notACache, location: location, "an HTTP cache is kept by its server; these commands keep directory and PostgreSQL caches")
                }
                // Opened read-only first: a cache that is not there is said, not made. A
                // database's first pool is closed before the second opens.
                var cache = try await CacheStores.open(location, readOnly: true)
                if !readOnly {
                    await (cache as? PostgresCache)?.close()
                    cache = try await CacheStores.open(location, readOnly: false)
                }
                guard let kept = cache as? any CacheMaintenance else {
                    throw CacheError(.notACache, location: location, "not a cache these commands keep")
                }
                return kept
            } catch let error as CacheError {
                throw CacheCommand.fail("error: \(error)")
            }
        }

        /// Opens a directory cache (made when `creating`): `cache serve` serves one.
        func directory(readOnly: Bool, creating: Bool) throws -> DirectoryCache {
            let location = try named()
            do {
                if location.contains("://") {
                    throw CacheError(.notACache, location: location, "`cache serve` serves a directory cache")
                }
                guard let directory = try CacheLocation.open(location, readOnly: readOnly || !creating) as? DirectoryCache else {
                    throw CacheError(.notACache, location: location, "not a directory cache")
                }
                return readOnly ? directory : try DirectoryCache(path: directory.path)
            } catch let error as CacheError {
                throw CacheCommand.fail("error: \(error)")
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "How much the cache holds: blobs, results by namespace, bytes.")

        @OptionGroup var location: Location
        @Flag(help: "Print the figures as JSON.") var json = false

        func run() async throws {
            let cache = try await location.open(readOnly: true)
            let usage = try await CacheCommand.kept { try await cache.usage() }
            if json {
                print(JSONText.encode(usage, pretty: true))
                return
            }
            print("cache \(cache.location)")
            print("  \(usage.blobs) blobs, \(CacheStatistics.text(bytes: usage.blobBytes))")
            let results = usage.results.sorted { $0.key < $1.key }.map { "\($0.value) in \($0.key)" }
            print("  \(usage.results.values.reduce(0, +)) results" + (results.isEmpty ? "" : " (" + results.joined(separator: ", ") + ")"))
            print("  \(usage.otherRecords) other records (depfiles' inputs, jobs' latest results)")
            print("  \(CacheStatistics.text(bytes: usage.totalBytes)) in all" + (usage.temporaries > 0 ? "; \(usage.temporaries) files in tmp/" : ""))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "The results kept, the most recently used first.")

        @OptionGroup var location: Location
        @Option(help: ArgumentHelp("Only these namespaces, separated by commas.", valueName: "names")) var namespace: String?
        @Option(help: "At most this many.") var limit = 50
        @Flag(help: "Print them as JSON, with what went into each key.") var json = false

        func run() async throws {
            let cache = try await location.open(readOnly: true)
            let namespaces = namespace.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            let listed = try await CacheCommand.kept { try await cache.results(in: namespaces) }.prefix(max(0, limit))
            if json {
                print(JSONText.encode(listed.map(Entry.init), pretty: true))
                return
            }
            let formatter = ISO8601DateFormatter()
            for entry in listed {
                let result = entry.result
                let bytes = result.outputs.reduce(Int64(0)) { $0 + $1.size }
                let job = [result.workflow, result.job].compactMap { $0 }.joined(separator: ": ")
                print("\(entry.key.short)  \(entry.namespace)  \(formatter.string(from: entry.usedAt))  "
                      + "\(result.outputs.count) output\(result.outputs.count == 1 ? "" : "s"), \(CacheStatistics.text(bytes: bytes)), "
                      + "ran \(String(format: "%.1f", result.duration))s  \(job.isEmpty ? "(unnamed)" : job)")
            }
        }

        /// What `ls --json` prints of a result.
        struct Entry: Encodable {
            let key: String
            let namespace: String
            let usedAt: Double
            let job: String?
            let workflow: String?
            let outputs: [ActionResult.Output]
            let duration: Double
            let preimage: [KeyPreimage.Entry]

            init(_ listed: CacheListing) {
                (key, namespace, usedAt) = (listed.key.hex, listed.namespace, listed.usedAt.timeIntervalSince1970)
                (job, workflow, outputs) = (listed.result.job, listed.result.workflow, listed.result.outputs)
                (duration, preimage) = (listed.result.duration, listed.result.preimage.entries)
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read every blob and record back; exit status 2 when any is damaged.",
            discussion: "With --repair, what is damaged is removed (a job whose result goes runs again), and the exit status is 0."
        )

        @OptionGroup var location: Location
        @Flag(help: "Remove damaged blobs and records, and results whose blobs are gone.") var repair = false
        @Flag(help: "Print what was found as JSON.") var json = false

        func run() async throws {
            let cache = try await location.open(readOnly: !repair)
            let found = try await CacheCommand.kept { try await cache.verify(repair: repair) }
            if json {
                print(JSONText.encode(found, pretty: true))
            } else {
                print("checked \(found.blobsChecked) blobs and \(found.recordsChecked) records in \(cache.location)")
                let done = repair ? " (removed)" : ""
                for path in found.damagedBlobs { print("damaged blob\(done): \(path)") }
                for path in found.damagedRecords { print("damaged record\(done): \(path)") }
                for path in found.incompleteResults { print("incomplete result (a blob is gone)\(done): \(path)") }
                if found.isClean { print("no damage found") }
            }
            if !found.isClean, !repair { throw ExitCode(ExitStatus.invalid) }
        }
    }

    struct Collect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc",
            abstract: "Remove the least recently used blobs and results until the cache fits --max-size, and what is of no use.",
            discussion: "Results whose blobs are gone, and files a killed writer left in tmp/ over an hour ago, are removed too. Safe while others use the cache."
        )

        @OptionGroup var location: Location
        @Option(help: ArgumentHelp("The most the cache may hold (like 500MB or 10GB; default: $SEQUENCER_CACHE_MAX_SIZE, or no limit).", valueName: "size"))
        var maxSize: String?
        @Flag(help: "Print what was removed as JSON.") var json = false

        func validate() throws {
            _ = try CacheCommand.size(maxSize)
        }

        func run() async throws {
            let limit = try CacheCommand.size(maxSize ?? ProcessInfo.processInfo.environment["SEQUENCER_CACHE_MAX_SIZE"])
            let cache = try await location.open(readOnly: false)
            let collection = try await CacheCommand.kept { try await cache.collect(maxSize: limit, staleAfter: 3600) }
            if json {
                print(JSONText.encode(collection, pretty: true))
            } else {
                print("removed \(collection.removedFiles) blobs and records (\(CacheStatistics.text(bytes: collection.freedBytes))); "
                      + "the cache holds \(CacheStatistics.text(bytes: collection.sizeAfter))")
            }
        }
    }

    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a directory cache over HTTP, with the protocol of Bazel's HTTP caches (bazel-remote's).",
            discussion: """
                Other machines use it with --cache http://HOST:PORT/ (or SEQUENCER_CACHE), and Bazel with --remote_cache. \
                It listens on 127.0.0.1 unless --host says otherwise; anyone who can reach it can read the cache, and \
                write to it unless --read-only. It runs sequencer-serve, found beside sequencer or on the PATH.
                """
        )

        @OptionGroup var location: Location
        @Option(help: "The port to listen on (0: any free one).") var port = 8080
        @Option(help: "The address to listen on.") var host = "127.0.0.1"
        @Flag(help: "Refuse every write: the cache is only read.") var readOnly = false

        func run() throws {
            let cache = try location.directory(readOnly: readOnly, creating: true)
            let arguments = ["--cache", cache.path, "--port", "\(port)", "--host", host] + (readOnly ? ["--read-only"] : [])
            _ = HandOver.exec("sequencer-serve", arguments, missing: "error: `sequencer cache serve` needs the sequencer-serve binary beside sequencer or on the PATH (swift build --product sequencer-serve builds it)")
            throw ExitCode(ExitStatus.invalid)   // the cache's commands say every failure with 2
        }
    }

    /// What `body` does to a cache; a ``CacheError`` said, for exit status 2.
    static func kept<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CacheError {
            throw fail("error: \(error)")
        }
    }

    /// Says `message` on standard error; the error to throw, for exit status 2.
    static func fail(_ message: String) -> ExitCode {
        printError(message)
        return ExitCode(ExitStatus.invalid)
    }

    /// `500MB`, `10G`, `1.5GiB`, `123` (bytes): decimal units, or binary ones with `i`.
    static func size(_ text: String?) throws -> Int64? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let digits = text.prefix { $0.isNumber || $0 == "." }
        var unit = text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).uppercased()
        if unit.hasSuffix("B") { unit.removeLast() }
        let binary = unit.hasSuffix("I")
        if binary { unit.removeLast() }
        let powers = ["": 0, "K": 1, "M": 2, "G": 3, "T": 4]
        guard let number = Double(digits), number >= 0, let power = powers[unit] else {
            throw ValidationError("'\(text)' is not a size: write a number of bytes, or one with KB, MB, GB or TB (KiB… for powers of 1024)")
        }
        return Int64(number * pow(binary ? 1024 : 1000, Double(power)))
    }

}
