extension RunCore {
    /// The run's state, at most once per `interval` on the run's clock (see ``Run/snapshots(every:)``).
    func snapshots(every interval: Duration) -> AsyncStream<RunSnapshot> {
        let core = self
        let (stream, continuation) = AsyncStream.makeStream(of: RunSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            var delivered: UInt64?
            while true {
                let snapshot = core.snapshot()
                if snapshot.version != delivered || snapshot.isFinished {
                    continuation.yield(snapshot)
                    delivered = snapshot.version
                }
                if snapshot.isFinished || Task.isCancelled { break }
                // Cancelled when the run ends (to deliver the last snapshot at once) or when the
                // consumer stops listening.
                try? await core.time.sleep(for: interval)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        if !core.addTimer(task) { task.cancel() }
        return stream
    }
}
