import SequencerOutput

/// The JSON form of a workflow file's graph: `{"jobs": [...], "lanes": [...]}`, both in file
/// order. Absent options are `null` rather than missing, so every job has the same keys.
struct GraphDocument: Encodable {
    struct Job: Encodable {
        var name: String
        var run: String
        var needs: [String]
        var lane: String?
        var priority: String
        /// Seconds.
        var timeout: Double?
        /// The most attempts, counting the first.
        var attempts: Int
        var env: [String: String]
        var cwd: String?
        var inputs: [String]
        var outputs: [String]

        enum CodingKeys: String, CodingKey {
            case name, run, needs, lane, priority, timeout, attempts, env, cwd, inputs, outputs
        }

        init(_ job: WorkflowFile.Job) {
            name = job.name
            run = job.run
            needs = job.needs.map(\.name)
            lane = job.lane
            priority = job.priority.description
            timeout = job.timeout?.fractionalSeconds
            attempts = job.retry.maxAttempts
            env = job.environment
            cwd = job.workingDirectory
            inputs = job.inputs
            outputs = job.outputs
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(run, forKey: .run)
            try container.encode(needs, forKey: .needs)
            try container.encode(lane, forKey: .lane)
            try container.encode(priority, forKey: .priority)
            try container.encode(timeout, forKey: .timeout)
            try container.encode(attempts, forKey: .attempts)
            try container.encode(env, forKey: .env)
            try container.encode(cwd, forKey: .cwd)
            try container.encode(inputs, forKey: .inputs)
            try container.encode(outputs, forKey: .outputs)
        }
    }

    struct Lane: Encodable {
        var name: String
        var width: Int
        var ordered: Bool
    }

    var jobs: [Job]
    var lanes: [Lane]

    init(_ file: WorkflowFile) {
        jobs = file.jobs.map(Job.init)
        lanes = file.lanes.map { Lane(name: $0.name, width: $0.width, ordered: $0.ordered) }
    }

    func json() -> String { JSONText.encode(self, pretty: true) }
}
