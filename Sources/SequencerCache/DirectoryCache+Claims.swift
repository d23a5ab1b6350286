#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A directory cache's claims are file locks (`flock`) on `claims/KEY`, held while the claim
/// is: the kernel lets a claim go with the process that held it, however it ended. A release
/// unlocks before it closes, since a forked child shares the lock until it execs. The files
/// stay (removing one a waiter has opened would let two hold it); `gc` removes old ones.
extension DirectoryCache: CacheClaims {
    public func claim(_ key: CacheDigest, owner: String, lease: Duration) async throws -> Bool {
        let file = "\(path)/claims/\(key.hex)"
        let id = key.hex + "\u{0}" + owner
        if heldClaims.withLock({ $0[id] != nil }) { return true }
        var descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0, errno == ENOENT {
            try? FileManager.default.createDirectory(atPath: "\(path)/claims", withIntermediateDirectories: true)
            descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw Files.failure(file, "cannot open the claim") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { return false }
            throw CacheError(.io, location: file, "cannot lock the claim: \(String(cString: strerror(failure)))")
        }
        Files.touch(file)
        heldClaims.withLock { $0[id] = descriptor }
        return true
    }

    public func release(_ key: CacheDigest, owner: String) async throws {
        let id = key.hex + "\u{0}" + owner
        guard let descriptor = heldClaims.withLock({ $0.removeValue(forKey: id) }) else { return }
        // Unlocked before it is closed: a child process forked meanwhile (a job's command, not
        // yet at its exec) shares the descriptor's lock, and a close alone would leave the claim
        // held until that child execs (CI runs 66 and 67: a claim given up, not free yet).
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
