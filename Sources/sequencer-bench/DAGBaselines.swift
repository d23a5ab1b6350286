import Foundation
import Synchronization

/// Other ways to run the jobs of a ``RandomDAG`` in dependency order.
enum DAGBaselines {
    /// Kahn's algorithm on one thread: the bookkeeping floor. Builds the reverse adjacency and
    /// in-degrees from the graph's needs (counted in the time), then runs a job whenever its
    /// last need has run, calling a no-op closure per job.
    /// - Returns: the number of jobs run (all of them: the graph has no cycle).
    /// - Complexity: O(jobs + needs).
    static func topologicalLoop(_ dag: RandomDAG) -> Int {
        var ran = 0
        topologicalOrder(dag) { _ in ran &+= 1 }
        return ran
    }

    /// Runs `body` for each job of `dag` after all its needs.
    @inline(never)
    private static func topologicalOrder(_ dag: RandomDAG, _ body: (Int32) -> Void) {
        let count = dag.count
        var remaining = [Int32](repeating: 0, count: count)
        var dependentStart = [Int32](repeating: 0, count: count + 1)
        for job in 0..<count {
            let needs = dag.needs(of: job)
            remaining[job] = Int32(needs.count)
            for need in needs { dependentStart[Int(need) + 1] += 1 }
        }
        for job in 0..<count { dependentStart[job + 1] += dependentStart[job] }
        var fill = dependentStart
        var dependents = [Int32](repeating: 0, count: dag.edgeCount)
        for job in 0..<count {
            for need in dag.needs(of: job) {
                dependents[Int(fill[Int(need)])] = Int32(job)
                fill[Int(need)] += 1
            }
        }
        var queue = [Int32]()
        queue.reserveCapacity(count)
        for job in 0..<count where remaining[job] == 0 { queue.append(Int32(job)) }
        var head = 0
        while head < queue.count {
            let job = queue[head]
            head += 1
            body(job)
            for edge in Int(dependentStart[Int(job)])..<Int(dependentStart[Int(job) + 1]) {
                let dependent = dependents[edge]
                remaining[Int(dependent)] -= 1
                if remaining[Int(dependent)] == 0 { queue.append(dependent) }
            }
        }
    }

    /// A naive concurrent executor: every job is a child task of a discarding task group, added
    /// in order; a child awaits each need's completion signal, runs its no-op body, then signals.
    /// - Returns: the number of jobs.
    static func taskGroup(_ dag: RandomDAG) async -> Int {
        let signals = (0..<dag.count).map { _ in CompletionSignal() }
        await withDiscardingTaskGroup { group in
            for job in 0..<dag.count {
                group.addTask {
                    for need in dag.needs(of: job) { await signals[Int(need)].wait() }
                    signals[job].signal()
                }
            }
        }
        return dag.count
    }

    /// Foundation `OperationQueue`: a `BlockOperation` per job, `addDependency` per need, at most
    /// `cores` at once. Quadratic in corelibs Foundation, so measured at small sizes only.
    /// - Returns: the number of jobs.
    static func operationQueue(_ dag: RandomDAG) -> Int {
        let operations = (0..<dag.count).map { _ in BlockOperation {} }
        for job in 0..<dag.count {
            for need in dag.needs(of: job) { operations[job].addDependency(operations[Int(need)]) }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
        queue.addOperations(operations, waitUntilFinished: false)
        queue.waitUntilAllOperationsAreFinished()
        return dag.count
    }
}

/// A one-shot signal that tasks can await: `signal()` once, and every waiter (past or future) resumes.
final class CompletionSignal: Sendable {
    private struct State {
        var isSignalled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Returns once ``signal()`` has been called.
    func wait() async {
        if state.withLock({ $0.isSignalled }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.isSignalled { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Marks the signal done and resumes every waiter.
    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isSignalled = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
