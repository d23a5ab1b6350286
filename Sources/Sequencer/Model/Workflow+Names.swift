/// Indexes job IDs and resolves needs by name in batches.
///
/// A hash-table insert or lookup in a large workflow is a cache miss. Done one job at a time
/// those misses are paid one after another; done in batches, in a tight loop of independent
/// probes, the processor overlaps them. So `add` only appends, and every few hundred jobs the
/// new IDs are indexed and the new needs looked up. Needs naming jobs not added yet stay
/// pending until validation. A duplicate ID is noticed at a batch and reported by validation.
struct NameBatches: Sendable {
    /// Indexes `ids[0 ..< indexed]`.
    var index = JobIndex()
    private(set) var indexed = 0
    /// Needs by name not resolved yet: `pendingNeeds[k]` is the need at `pendingEdges[k]`.
    private(set) var pendingNeeds: [JobID] = []
    private var pendingEdges: [Int32] = []
    /// Pending needs before this position were looked up at a batch and not found (they name
    /// jobs added later, or none).
    private var attempted = 0
    /// The first ID seen twice, with the position of its first use.
    private(set) var duplicate: (id: JobID, first: Int32)?
    /// The sum of the candidate IDs' lengths read ahead of their comparisons: stored, so that
    /// the reads are done (see ``NameIndex/touched``).
    private var touched: UInt64 = 0

    static let batchSize = 256

    /// Returns the reference to store for a need at `edge`: always pending until a batch.
    mutating func refer(to need: JobID, edge: Int32) -> Int32 {
        pendingNeeds.append(need)
        pendingEdges.append(edge)
        return -Int32(pendingNeeds.count)
    }

    func isFull(ids: [JobID]) -> Bool {
        ids.count - indexed >= Self.batchSize || pendingNeeds.count - attempted >= Self.batchSize
    }

    /// Indexes the IDs added since the last batch, then looks up the needs added since.
    ///
    /// Each step runs over the whole batch before the next (hash all, read all first slots,
    /// insert all; hash all needs, read their slots, read their candidate IDs, compare), so the
    /// cache misses of a step overlap instead of following one another.
    mutating func flush(ids: [JobID], needRefs: inout [Int32]) {
        let newJobs = indexed..<ids.count
        index.reserveCapacity(index.count + newJobs.count)
        let hashes = newJobs.map { JobIndex.hash(ids[$0]) }
        index.touch(hashes)
        for (job, hash) in zip(newJobs, hashes) {
            if let first = index.insert(Int32(job), hash: hash, ids: ids), duplicate == nil {
                duplicate = (ids[job], first)
            }
        }
        indexed = ids.count

        let batch = attempted..<pendingNeeds.count
        let needHashes = batch.map { JobIndex.hash(pendingNeeds[$0]) }
        index.touch(needHashes)
        let candidates = needHashes.map { index.candidate(hash: $0) }
        for candidate in candidates where candidate >= 0 { touched &+= UInt64(ids[Int(candidate)].rawValue.utf8.count) }

        var kept = attempted
        for (pending, candidate) in zip(batch, candidates) {
            let edge = Int(pendingEdges[pending])
            let name = pendingNeeds[pending]
            if let job = candidate >= 0 && ids[Int(candidate)] == name ? candidate : index.find(name, in: ids) {
                needRefs[edge] = job
            } else {
                pendingNeeds[kept] = name
                pendingEdges[kept] = pendingEdges[pending]
                needRefs[edge] = -Int32(kept + 1)
                kept += 1
            }
        }
        pendingNeeds.removeLast(pendingNeeds.count - kept)
        pendingEdges.removeLast(pendingEdges.count - kept)
        attempted = kept
    }
}

/// A complete index of a workflow's IDs for a run: the workflow's batched index, shared, plus
/// the IDs added since its last batch.
struct JobLookup: Sendable {
    let index: JobIndex
    let tail: [JobID: Int32]
    let ids: [JobID]

    /// Builds the lookup.
    /// - Throws: ``WorkflowError`` `.duplicateJob` when an ID was added twice.
    init(_ workflow: Workflow) throws {
        ids = workflow.ids
        index = workflow.names.index
        var tail = [JobID: Int32]()
        var duplicate = workflow.names.duplicate
        for job in workflow.names.indexed..<ids.count {
            let id = ids[job]
            if let first = index.find(id, in: ids) ?? tail[id] {
                if duplicate == nil { duplicate = (id, first) }
            } else {
                tail[id] = Int32(job)
            }
        }
        self.tail = tail
        if let duplicate {
            throw WorkflowError(
                code: .duplicateJob,
                message: "duplicate job '\(duplicate.id)': two jobs have this ID",
                jobs: [duplicate.id])
        }
    }

    func find(_ id: JobID) -> Int32? {
        index.find(id, in: ids) ?? (tail.isEmpty ? nil : tail[id])
    }

    /// The workflow's needs as positions, every pending name looked up.
    /// - Throws: ``WorkflowError`` `.unknownNeed` naming the first job (in the order they were
    ///   added) that needs a name no job has.
    func resolveNeeds(_ workflow: Workflow) throws -> [Int32] {
        guard !workflow.names.pendingNeeds.isEmpty else { return workflow.needRefs }
        var needs = workflow.needRefs
        for job in 0..<workflow.count {
            for edge in Int(workflow.needStart[job])..<Int(workflow.needStart[job + 1]) where needs[edge] < 0 {
                let name = workflow.names.pendingNeeds[Int(-needs[edge] - 1)]
                guard let target = find(name) else {
                    throw WorkflowError(
                        code: .unknownNeed,
                        message: "job '\(workflow.ids[job])' needs '\(name)', which is not a job in the workflow",
                        jobs: [workflow.ids[job], name])
                }
                needs[edge] = target
            }
        }
        return needs
    }
}
