import SequencerWorkflowFile

/// The jobs of a file by position, with the positions of each job's needs, for a pass over
/// every job that looks its needs up by position rather than by name.
struct JobGraph {
    /// The positions of the jobs, each after the jobs it needs: the order of
    /// `ShellWorkflow.needsFirst(_:)` (the same walk).
    private(set) var needsFirst: [Int] = []
    /// The positions of the needs of every job, one after another (`needStarts` says where
    /// each job's begin): of a job's `needs`, those that name a job of the file, in order.
    private var needPositions: [Int] = []
    private var needStarts: [Int] = [0]

    /// - Complexity: O(jobs + needs).
    init(_ jobs: [WorkflowFile.Job]) {
        var index: [String: Int] = [:]
        index.reserveCapacity(jobs.count)
        for (position, job) in jobs.enumerated() where index[job.name] == nil { index[job.name] = position }
        needStarts.reserveCapacity(jobs.count + 1)
        var complete = true
        for job in jobs {
            for need in job.needs {
                if let position = index[need.name] { needPositions.append(position) } else { complete = false }
            }
            needStarts.append(needPositions.count)
        }
        // The walk of `ShellWorkflow.needsFirst(_:)`, over positions: a need naming no job of
        // the file is passed over, as there.
        var placed = [Bool](repeating: false, count: jobs.count)
        needsFirst.reserveCapacity(jobs.count)
        var stack: [(job: Int, next: Int)] = []
        for root in jobs.indices where !placed[root] {
            stack.append((root, needStarts[root]))
            placed[root] = true
            while let top = stack.last {
                if top.next < needStarts[top.job + 1] {
                    stack[stack.count - 1].next += 1
                    let need = needPositions[top.next]
                    if !placed[need] {
                        placed[need] = true
                        stack.append((need, needStarts[need]))
                    }
                    continue
                }
                stack.removeLast()
                needsFirst.append(top.job)
            }
        }
        // A need that names no job of the file (never the case in a checked file) would shift
        // the positions of a job's needs: they are looked up by name then.
        if !complete { needStarts = [Int](repeating: 0, count: jobs.count + 1); needPositions = [] }
    }

    /// The positions of the needs of the job at `position`, in the order of its `needs`.
    func needs(of position: Int) -> ArraySlice<Int> {
        needPositions[needStarts[position]..<needStarts[position + 1]]
    }
}
