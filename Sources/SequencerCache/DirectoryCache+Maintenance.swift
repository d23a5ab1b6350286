#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation

/// What `sequencer cache stats`, `ls`, `verify` and `gc` do to a directory cache. Each is safe
/// while other processes use the cache: a file removed under a reader makes its result
/// incomplete (the job runs), never wrong.
extension DirectoryCache: CacheMaintenance {
    public typealias Usage = CacheUsage
    public typealias Listed = CacheListing
    public typealias Verification = CacheVerification
    public typealias Collection = CacheCollection

    /// Where the cache is: its directory.
    public var location: String { path }

    /// How much the cache holds now.
    public func usage() -> Usage {
        var usage = Usage()
        for file in files(under: "cas") {
            usage.blobs += 1
            usage.blobBytes += file.size
        }
        for file in files(under: "ac") {
            usage.recordBytes += file.size
            let parts = file.path.split(separator: "/")
            guard parts.count >= 3, let data = FileManager.default.contents(atPath: file.path),
                  let record = try? CacheRecord(decoding: data) else { continue }
            if case .result = record {
                usage.results[String(parts[parts.count - 3]), default: 0] += 1
            } else {
                usage.otherRecords += 1
            }
        }
        usage.temporaries = ((try? FileManager.default.contentsOfDirectory(atPath: path + "/tmp")) ?? []).count
        return usage
    }

    /// The results kept in `namespaces` (every namespace when nil), the most recently used first.
    public func results(in namespaces: [String]? = nil) -> [Listed] {
        var listed: [Listed] = []
        for file in files(under: "ac") {
            let parts = file.path.split(separator: "/")
            guard parts.count >= 3, let key = CacheDigest(hex: String(parts[parts.count - 1])) else { continue }
            let namespace = String(parts[parts.count - 3])
            guard namespaces?.contains(namespace) ?? true, let data = FileManager.default.contents(atPath: file.path),
                  case .result(let result)? = try? CacheRecord(decoding: data) else { continue }
            listed.append(Listed(namespace: namespace, key: key, result: result, usedAt: file.modified))
        }
        return listed.sorted { $0.usedAt > $1.usedAt }
    }

    /// Reads every blob and record back; with `repair`, removes what is damaged, and results
    /// whose blobs are gone.
    public func verify(repair: Bool) throws -> Verification {
        if repair { try checkWritable() }
        var found = Verification()
        for file in files(under: "cas") {
            found.blobsChecked += 1
            let name = (file.path as NSString).lastPathComponent
            guard let digest = CacheDigest(hex: name), CacheDigest.ofFile(file.path)?.digest == digest else {
                found.damagedBlobs.append(file.path)
                if repair { unlink(file.path) }
                continue
            }
        }
        for file in files(under: "ac") {
            found.recordsChecked += 1
            guard let data = FileManager.default.contents(atPath: file.path),
                  let record = try? CacheRecord(decoding: data) else {
                found.damagedRecords.append(file.path)
                if repair { unlink(file.path) }
                continue
            }
            if case .result(let result) = record,
               result.blobs.contains(where: { !FileManager.default.fileExists(atPath: blobPath($0)) }) {
                found.incompleteResults.append(file.path)
                if repair { unlink(file.path) }
            }
        }
        return found
    }

    /// Removes what is least recently used until the cache holds at most `maxSize` bytes (no
    /// limit when nil), then results whose blobs are gone, and temporary files and claims older
    /// than `staleAfter` (left by writers that were killed).
    public func collect(maxSize: Int64?, staleAfter: TimeInterval = 3600) throws -> Collection {
        try checkWritable()
        var collection = Collection()
        func remove(_ file: CacheFile) {
            if unlink(file.path) == 0 {
                collection.removedFiles += 1
                collection.freedBytes += file.size
            }
        }
        let cutoff = Date(timeIntervalSinceNow: -staleAfter)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path + "/tmp")) ?? [] {
            let file = path + "/tmp/" + name
            if let info = Self.info(file), info.modified < cutoff { remove(info) }
        }
        // Claims no one holds, untouched for as long: what their holders left.
        for claim in files(under: "claims") where claim.modified < cutoff {
            let descriptor = open(claim.path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                remove(claim)
                _ = flock(descriptor, LOCK_UN)  // as a release does (see `DirectoryCache+Claims.swift`)
            }
            close(descriptor)
        }
        var all = files(under: "cas") + files(under: "ac")
        var size = all.reduce(Int64(0)) { $0 + $1.size }
        if let maxSize, size > maxSize {
            all.sort { $0.modified < $1.modified }
            for file in all where size > maxSize {
                remove(file)
                size -= file.size
            }
        }
        // Results whose blobs went: never served, so of no use.
        for file in files(under: "ac") {
            guard let data = FileManager.default.contents(atPath: file.path),
                  case .result(let result)? = try? CacheRecord(decoding: data) else { continue }
            if result.blobs.contains(where: { !FileManager.default.fileExists(atPath: blobPath($0)) }) {
                remove(file)
                size -= file.size
            }
        }
        collection.sizeAfter = max(0, size)
        return collection
    }

    // MARK: Walking

    struct CacheFile {
        var path: String
        var size: Int64
        var modified: Date
    }

    /// The files under `cas` or `ac`, at any depth.
    func files(under top: String) -> [CacheFile] {
        var found: [CacheFile] = []
        var pending = [path + "/" + top]
        while let directory = pending.popLast() {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                let child = directory + "/" + name
                var status = stat()
                guard lstat(child, &status) == 0 else { continue }
                if (status.st_mode & S_IFMT) == S_IFDIR {
                    pending.append(child)
                } else if (status.st_mode & S_IFMT) == S_IFREG, let info = Self.info(child, status) {
                    found.append(info)
                }
            }
        }
        return found
    }

    static func info(_ path: String, _ known: stat? = nil) -> CacheFile? {
        var status = known ?? stat()
        if known == nil, lstat(path, &status) != 0 { return nil }
        #if canImport(Darwin)
        let seconds = Double(status.st_mtimespec.tv_sec) + Double(status.st_mtimespec.tv_nsec) / 1e9
        #else
        let seconds = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        #endif
        return CacheFile(path: path, size: Int64(status.st_size), modified: Date(timeIntervalSince1970: seconds))
    }
}
