import Foundation

/// Where a worker writes its attempts' output before it goes into the queue: a directory of
/// its own, `sequencer-worker-PID` in the temporary directory. A worker killed by SIGKILL cannot
/// remove its own, so each worker that starts removes those of processes that are gone.
package enum WorkerScratch {
    static let prefix = "sequencer-worker-"

    /// Makes this process's directory, after removing those of workers that are gone; returns
    /// its path.
    /// - Parameter parent: the directory they are made in (the temporary directory).
    package static func make(in parent: String = NSTemporaryDirectory()) throws -> String {
        let files = FileManager.default
        for entry in (try? files.contentsOfDirectory(atPath: parent)) ?? [] where entry.hasPrefix(prefix) {
            guard let pid = pid_t(entry.dropFirst(prefix.count)), pid != getpid(), !isAlive(pid) else { continue }
            try? files.removeItem(atPath: (parent as NSString).appendingPathComponent(entry))
        }
        let path = (parent as NSString).appendingPathComponent(prefix + String(getpid()))
        try? files.removeItem(atPath: path)  // a dead process's, whose PID this one reuses
        try files.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Whether a process `pid` exists (one of another user's counts: EPERM).
    static func isAlive(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
