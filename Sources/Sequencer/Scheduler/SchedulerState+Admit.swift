/// The last step of adding a job at run time, shared by a child (``addChild(_:to:)``) and a
/// queue's job (``add(_:ticket:)``), once it is checked and in the job table.
extension SchedulerState {
    /// Links `job` to its `needs` and starts it when none is pending; or ends it at once:
    /// skipped when a need failed (the first that did is its cause) or the run stopped on a
    /// failure, cancelled when the run was cancelled or passed its deadline.
    /// - Parameter raising: the priority that `job`'s pending needs are raised to (a queue's
    ///   priority inheritance), or nil.
    mutating func admitAdded(_ job: Int32, needs: [Int32], raising priority: Priority?) {
        var failedNeed: Int32?
        var remaining: Int32 = 0
        for need in needs {
            switch jobs[need].phase {
            case .succeeded: break
            case let phase where phase.isTerminal: failedNeed = failedNeed ?? need
            default:
                remaining += 1
                added.dependents[need, default: []].append(job)
                if let priority { raise(need, to: priority) }
            }
        }
        unmetNeeds[job] = remaining
        if let failedNeed {
            end(job, .skipped, FailureRecord(code: .neededJobFailed, underlying: nil, cause: failedNeed))
        } else if case .failure(let cause) = stopReason {
            end(job, .skipped, FailureRecord(code: .runStopped, underlying: nil, cause: cause))
        } else if let stopReason {
            end(job, .cancelled, FailureRecord(code: stopReason == .deadline ? .deadlineExceeded : .cancelled))
        } else if remaining == 0 {
            becomeReady(job)
        }
    }
}
