import ArgumentParser
import Foundation
import SequencerBuild
import SequencerCache
import SequencerRunner

/// The shared output cache a run uses: `--cache` and the namespaces.
struct CacheOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Restore jobs' outputs from this cache, and store them in it (a directory; default: $SEQUENCER_CACHE). Cached jobs run with a closed environment.",
        valueName: "location"))
    var cache: String?

    @Flag(help: "Use no cache, even when SEQUENCER_CACHE names one.")
    var noCache = false

    @Option(help: ArgumentHelp("Where results are stored (default: main).", valueName: "name"))
    var cacheNamespace: String?

    @Option(help: ArgumentHelp(
        "The namespaces results are read from, in order, separated by commas (default: the one written, then main).",
        valueName: "names"))
    var cacheTrust: String?

    @Flag(help: "Only read the cache: store nothing in it.")
    var cacheReadOnly = false

    @Option(help: ArgumentHelp(
        "After the run, remove the cache's least recently used entries until it holds at most this much (like 10GB; default: $SEQUENCER_CACHE_MAX_SIZE, or no limit).",
        valueName: "size"))
    var cacheMaxSize: String?

    /// `--cache-max-size`, else `SEQUENCER_CACHE_MAX_SIZE`.
    var maxSize: Int64? {
        get throws { try CacheCommand.size(cacheMaxSize ?? ProcessInfo.processInfo.environment["SEQUENCER_CACHE_MAX_SIZE"]) }
    }

    func validate() throws {
        for name in [cacheNamespace].compactMap({ $0 }) + trusted(cacheTrust ?? "") where !CacheNamespace.isValid(name) {
            throw ValidationError("'\(name)' is not a cache namespace: 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or a digit")
        }
        if cacheTrust != nil, trusted(cacheTrust ?? "").isEmpty { throw ValidationError("--cache-trust names no namespace") }
        _ = try maxSize
    }

    private func trusted(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The cache, from the options and the environment; nil without one.
    var settings: CacheSettings? {
        let location = noCache ? nil : cache ?? ProcessInfo.processInfo.environment["SEQUENCER_CACHE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let location else { return nil }
        var settings = CacheSettings(location: location)
        settings.namespaces = CacheNamespaces(
            write: cacheNamespace ?? CacheNamespace.standard, trusted: cacheTrust.map(trusted))
        settings.readOnly = cacheReadOnly
        settings.maxSize = try? maxSize
        return settings
    }
}
