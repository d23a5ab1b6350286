import Sequencer
package import SequencerCache

/// The cache a run uses: where it is, and its namespaces.
package struct CacheSettings: Sendable, Hashable {
    /// A directory (see `CacheLocation`).
    package var location: String
    package var namespaces = CacheNamespaces()
    package var readOnly = false
    /// After a run, the least recently used entries go until the cache holds at most this many
    /// bytes (a directory cache); nil: no limit.
    package var maxSize: Int64?

    package init(location: String) {
        self.location = location
    }
}

/// How a workflow file's jobs run here: what `sequencer run`'s options say, parsed.
package struct RunSettings: Sendable {
    /// The most jobs running at once.
    package var jobs = RunOptions.activeProcessorCount
    /// Keep starting jobs that do not depend on a failed one.
    package var keepGoing = false
    /// Stop the run after this long.
    package var deadline: Duration?
    /// How long a stopped command may take to exit after SIGTERM before it gets SIGKILL.
    package var gracePeriod = Duration.seconds(2)
    /// Give the run's report as a JSON document (on the output's results).
    package var json = false
    /// Write a Chrome trace of the run to this file.
    package var trace: String?
    /// Run every job, even those that are up to date.
    package var force = false
    /// Say why each job runs.
    package var explain = false
    /// Whether the run is recorded in a journal (nothing is up to date without one).
    package var journaled = true
    /// The journal's path (nil: `.sequencer/journal.sqlite` beside the workflow file).
    package var journal: String?
    /// Wait, rather than fail, while another process records a run in the journal.
    package var waitsForJournal = true
    /// Say every job as it finishes, with its output.
    package var verbose = false
    /// How many runs of the file the journal keeps after the run (0: every run; nil: none
    /// is deleted).
    package var runsToKeep: Int? = 100
    /// Show the output of jobs that succeed.
    package var showsSuccessOutput = true
    /// The shared output cache (`--cache`): jobs with outputs are restored from it and stored
    /// in it, and run in their closed environment. Nil: no cache.
    package var cache: CacheSettings?

    package init() {}

    /// The journal's path for a workflow file in `directory`.
    package func journalPath(beside directory: String) -> String {
        Self.journalPath(journal, beside: directory)
    }

    /// `option` (`--journal`), else the default journal for a workflow file in `directory`.
    package static func journalPath(_ option: String?, beside directory: String) -> String {
        option ?? directory + "/.sequencer/journal.sqlite"
    }
}
