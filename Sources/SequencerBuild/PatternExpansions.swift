internal import Sequencer
import SequencerWorkflowFile

/// The expansions of glob inputs during one run, each walked once while no job has changed
/// files: in a run where every job is up to date, a glob that forty jobs share costs one
/// directory walk, not forty.
///
/// ```swift
/// let expansions = PatternExpansions()
/// expansions.expand("src/**/*.h", in: "/work")   // walks /work/src
/// expansions.expand("src/**/*.h", in: "/work")   // the same paths, no walk
/// expansions.filesChanged()                      // a job ran and may have written files
/// expansions.expand("src/**/*.h", in: "/work")   // walks again
/// ```
public final class PatternExpansions: Sendable {
    private struct State {
        /// How many times files may have changed so far.
        var generation = 0
        var walks = 0
        var cache: [Key: (generation: Int, paths: [String])] = [:]
    }

    private struct Key: Hashable {
        var pattern: String
        var directory: String
    }

    private let state = Locked(State())

    public init() {}

    /// The files matching `pattern` under `directory`, as ``FilePattern/expand(_:in:)`` gives
    /// them; a glob is walked again only if ``filesChanged()`` was called since its last walk.
    public func expand(_ pattern: String, in directory: String) -> [String] {
        guard FilePattern.isGlob(pattern) else { return [pattern] }
        let key = Key(pattern: pattern, directory: directory)
        let (generation, cached) = state.withLock { state in
            (state.generation, state.cache[key].flatMap { $0.generation == state.generation ? $0.paths : nil })
        }
        if let cached { return cached }
        // Walked outside the lock; a walk that files changed during is kept for its own generation
        // only, and so not reused.
        let paths = FilePattern.expand(pattern, in: directory)
        state.withLock { state in
            state.walks += 1
            if (state.cache[key]?.generation ?? -1) < generation { state.cache[key] = (generation, paths) }
        }
        return paths
    }

    /// Says that files may have changed (a job ran): later expansions walk again.
    public func filesChanged() {
        state.withLock { $0.generation += 1 }
    }

    /// How many directory walks ``expand(_:in:)`` made so far.
    public var walks: Int { state.withLock { $0.walks } }
}
