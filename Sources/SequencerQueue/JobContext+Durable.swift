public import Sequencer

extension JobContext {
    /// For a body run by ``DurableQueue/work(maxConcurrency:)``: its durable job's ID and the
    /// attempt's number (1 for the first, counting attempts whose worker died), for example to
    /// send as an idempotency key. Nil for a job that no durable queue runs.
    public var durableJob: (id: DurableJobID, attempt: Int)? {
        WorkLoop.durableJob(named: id)
    }
}

extension WorkLoop {
    /// The name of a claimed attempt's job in the worker's local queue: "ID#ATTEMPT".
    static func localName(of job: ClaimedJob) -> JobID { JobID("\(job.id.rawValue)#\(job.attempt)") }

    /// The durable job and attempt a local job name stands for.
    static func durableJob(named name: JobID) -> (id: DurableJobID, attempt: Int)? {
        let parts = name.rawValue.split(separator: "#")
        guard parts.count == 2, let id = Int64(parts[0]), let attempt = Int(parts[1]) else { return nil }
        return (DurableJobID(id), attempt)
    }
}
