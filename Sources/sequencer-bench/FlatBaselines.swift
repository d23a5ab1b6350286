import Foundation

/// Hand-written ways to run N independent no-op jobs: what a developer would write without Sequencer.
enum FlatBaselines {
    /// `withTaskGroup`: a child task per job, then `waitForAll`.
    /// - Returns: the number of jobs.
    static func taskGroup(count: Int) async -> Int {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count { group.addTask {} }
            await group.waitForAll()
        }
        return count
    }

    /// `withDiscardingTaskGroup`: a child task per job; finished children are freed at once.
    /// - Returns: the number of jobs.
    static func discardingTaskGroup(count: Int) async -> Int {
        await withDiscardingTaskGroup { group in
            for _ in 0..<count { group.addTask {} }
        }
        return count
    }

    /// Foundation `OperationQueue`: a `BlockOperation` per job, at most `cores` at once, then
    /// `waitUntilAllOperationsAreFinished`.
    /// - Returns: the number of jobs.
    static func operationQueue(count: Int) -> Int {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
        for _ in 0..<count { queue.addOperation(BlockOperation {}) }
        queue.waitUntilAllOperationsAreFinished()
        return count
    }
}
