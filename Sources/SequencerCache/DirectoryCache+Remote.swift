#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation

/// What `sequencer cache serve` keeps for Bazel HTTP clients in a directory cache: blobs in
/// `cas/` as every client's, and the `/ac/` entries as the clients sent them (bytes this cache
/// does not read), in `ac-remote/`.
extension DirectoryCache {
    /// The blob's file, when the blob is there.
    public func blobFile(_ digest: CacheDigest) -> String? {
        let path = blobPath(digest)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Stores `data` as the blob `digest`, whole.
    /// - Throws: ``CacheError/Code/changed`` when `data` is not the blob `digest`.
    public func storeBlob(_ digest: CacheDigest, data: Data) throws {
        try checkWritable()
        let found = CacheDigest.of(data)
        guard found == digest else { throw CacheError(.changed, location: digest.hex, "the bytes sent are \(found.short), not \(digest.short)") }
        if FileManager.default.fileExists(atPath: blobPath(digest)) {
            Files.touch(blobPath(digest))
            return
        }
        try Files.write(data, to: blobPath(digest), temporaries: path + "/tmp")
    }

    /// The `/ac/` entry kept under `key`, as it was sent.
    public func remoteEntry(_ key: CacheDigest) -> Data? {
        let file = remoteEntryPath(key)
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        if !isReadOnly { Files.touch(file) }
        return data
    }

    /// Keeps an `/ac/` entry under `key`, whole.
    public func storeRemoteEntry(_ data: Data, for key: CacheDigest) throws {
        try checkWritable()
        try Files.write(data, to: remoteEntryPath(key), temporaries: path + "/tmp")
    }

    private func remoteEntryPath(_ key: CacheDigest) -> String {
        "\(path)/ac-remote/\(key.hex.prefix(2))/\(key.hex)"
    }
}
