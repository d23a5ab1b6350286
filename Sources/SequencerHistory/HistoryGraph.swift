/// A run's graph as its file declared it when a session started: the lanes, and each job's
/// needs, lane and command. The journal keeps each distinct graph once (by its digest) and each
/// session names its own, so that a run's page draws the run's graph, not the file's as it is
/// now (the journal keeps them; `SequencerJournal`'s `SQLiteJournal.graph(of:)` reads one).
public struct HistoryGraph: Sendable, Codable, Hashable {
    public struct Lane: Sendable, Codable, Hashable {
        public var name: String
        public var width: Int

        public init(name: String, width: Int) {
            self.name = name
            self.width = width
        }
    }

    public struct Job: Sendable, Codable, Hashable {
        public var name: String
        public var needs: [String]
        public var lane: String?
        /// The command.
        public var run: String
        /// Its working directory, as the file gives it (nil: the file's directory).
        public var directory: String?

        public init(name: String, needs: [String], lane: String?, run: String, directory: String?) {
            (self.name, self.needs, self.lane, self.run, self.directory) = (name, needs, lane, run, directory)
        }
    }

    public var lanes: [Lane]
    public var jobs: [Job]

    public init(lanes: [Lane], jobs: [Job]) {
        self.lanes = lanes
        self.jobs = jobs
    }
}
