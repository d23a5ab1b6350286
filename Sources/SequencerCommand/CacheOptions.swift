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

    func validate() throws {
        for name in [cacheNamespace].compactMap({ $0 }) + trusted(cacheTrust ?? "") where !CacheNamespace.isValid(name) {
            throw ValidationError("'\(name)' is not a cache namespace: 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or a digit")
        }
        if cacheTrust != nil, trusted(cacheTrust ?? "").isEmpty { throw ValidationError("--cache-trust names no namespace") }
    }

    private func trusted(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The cache, from the options and the environment; nil without one.
    var settings: CacheSettings? {
        let location = noCache ? nil : cache ?? ProcessInfo.processInfo.environment["SEQUENCER_CACHE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let location else { return nil }
        var settings = CacheSettings(location: location)
        settings.namespaces = WorkflowCache.Namespaces(
            write: cacheNamespace ?? CacheNamespace.standard, trusted: cacheTrust.map(trusted))
        settings.readOnly = cacheReadOnly
        return settings
    }
}
