public import Foundation
internal import Logging
internal import PostgresNIO
public import SequencerCache

/// `sequencer cache stats | ls | verify | gc` on a PostgreSQL cache. Least recently used goes
/// first, as in a directory: a record is used when it is stored or found, a blob when it is
/// stored or its result is found. Each statement is a transaction of its own, so that a cache
/// in use is never locked for long; what a reader finds half-removed is incomplete, and runs.
extension PostgresCache: CacheMaintenance {
    /// Where the cache is: its URL, the password masked.
    public var location: String { description }

    /// A row of `sequencer_cache.records`.
    private struct Row: Sendable {
        var namespace: String
        var key: String
        var size: Int64
        var usedAt: Int64
        /// Nil when it cannot be read.
        var record: CacheRecord?
    }

    private func records(in namespaces: [String]? = nil) async throws -> [Row] {
        try await transaction("reading the records") { connection, logger in
            let rows = try await connection.rows(
                "SELECT namespace, key, record, used_at FROM sequencer_cache.records ORDER BY used_at DESC", logger)
            var found: [Row] = []
            for row in rows {
                let (namespace, key, bytes, usedAt) = try row.decode((String, String, ByteBuffer, Int64).self)
                guard namespaces?.contains(namespace) ?? true else { continue }
                let record = try? CacheRecord(decoding: Data(bytes.readableBytesView))
                found.append(Row(namespace: namespace, key: key, size: Int64(bytes.readableBytes), usedAt: usedAt, record: record))
            }
            return found
        }
    }

    /// Each blob's digest, size and last use.
    private func blobs() async throws -> [(digest: String, size: Int64, usedAt: Int64)] {
        try await transaction("reading the blobs") { connection, logger in
            try await connection.rows("SELECT digest, size, used_at FROM sequencer_cache.blobs", logger).map {
                try $0.decode((String, Int64, Int64).self)
            }
        }
    }

    public func usage() async throws -> CacheUsage {
        var usage = CacheUsage()
        for blob in try await blobs() {
            usage.blobs += 1
            usage.blobBytes += blob.size
        }
        for row in try await records() {
            usage.recordBytes += row.size
            if case .result? = row.record { usage.results[row.namespace, default: 0] += 1 } else { usage.otherRecords += 1 }
        }
        return usage
    }

    public func results(in namespaces: [String]? = nil) async throws -> [CacheListing] {
        try await records(in: namespaces).compactMap { row in
            guard case .result(let result)? = row.record, let key = CacheDigest(hex: row.key) else { return nil }
            return CacheListing(namespace: row.namespace, key: key, result: result, usedAt: Date(timeIntervalSince1970: Double(row.usedAt) / 1000))
        }
    }

    public func verify(repair: Bool) async throws -> CacheVerification {
        if repair, isReadOnly { throw CacheError(.readOnly, location: description, "the cache is opened read-only; nothing is repaired") }
        var found = CacheVerification()
        var present = Set<String>()
        for blob in try await blobs() {
            found.blobsChecked += 1
            guard let digest = CacheDigest(hex: blob.digest), try await bytesDigest(of: blob.digest) == digest else {
                found.damagedBlobs.append("blob \(blob.digest)")
                // Removed when repairing; there still (and its result complete) otherwise.
                if repair { try await removeBlob(named: blob.digest) } else { present.insert(blob.digest) }
                continue
            }
            present.insert(blob.digest)
        }
        for row in try await records() {
            found.recordsChecked += 1
            let name = "\(row.namespace)/\(row.key)"
            guard let record = row.record else {
                found.damagedRecords.append(name)
                if repair { try await removeRecord(row) }
                continue
            }
            if case .result(let result) = record, result.blobs.contains(where: { !present.contains($0.hex) }) {
                found.incompleteResults.append(name)
                if repair { try await removeRecord(row) }
            }
        }
        return found
    }

    public func collect(maxSize: Int64?, staleAfter: TimeInterval = 3600) async throws -> CacheCollection {
        if isReadOnly { throw CacheError(.readOnly, location: description, "the cache is opened read-only; nothing is removed") }
        var collection = CacheCollection()
        // Claims whose leases ran out that long ago: their holders are gone.
        let stale = Self.now() - Int64(staleAfter * 1000)
        collection.removedFiles += try await transaction("removing old claims") { connection, logger in
            try await connection.rows("DELETE FROM sequencer_cache.claims WHERE until < \(stale) RETURNING key", logger).count
        }
        enum Item { case blob(String), record(Row) }
        let records = try await records()
        let blobs = try await blobs()
        var items: [(usedAt: Int64, size: Int64, item: Item)] = blobs.map { ($0.usedAt, $0.size, .blob($0.digest)) }
        items += records.map { ($0.usedAt, $0.size, .record($0)) }
        var size = items.reduce(Int64(0)) { $0 + $1.size }
        var gone = Set<String>()
        if let maxSize, size > maxSize {
            items.sort { $0.usedAt < $1.usedAt }
            for entry in items where size > maxSize {
                switch entry.item {
                case .blob(let digest):
                    try await removeBlob(named: digest)
                    gone.insert(digest)
                case .record(let row):
                    try await removeRecord(row)
                    gone.insert("\(row.namespace)/\(row.key)")
                }
                collection.removedFiles += 1
                collection.freedBytes += entry.size
                size -= entry.size
            }
        }
        // Results whose blobs went: never served, so of no use.
        let present = Set(blobs.map(\.digest)).subtracting(gone)
        for row in records where !gone.contains("\(row.namespace)/\(row.key)") {
            guard case .result(let result)? = row.record, result.blobs.contains(where: { !present.contains($0.hex) }) else { continue }
            try await removeRecord(row)
            collection.removedFiles += 1
            collection.freedBytes += row.size
            size -= row.size
        }
        collection.sizeAfter = max(0, size)
        return collection
    }

    /// The digest of a blob's bytes, read back (inline, or chunk by chunk).
    private func bytesDigest(of digest: String) async throws -> CacheDigest? {
        try await transaction("reading blob \(digest.prefix(12))", isolation: "REPEATABLE READ") { connection, logger in
            let rows = try await connection.rows("SELECT chunks, data FROM sequencer_cache.blobs WHERE digest = \(digest)", logger)
            guard let row = rows.first else { return nil }
            let (chunks, data) = try row.decode((Int, ByteBuffer?).self)
            var hashing = CacheDigest.Hashing()
            if chunks == 0 {
                hashing.update(Data(data?.readableBytesView ?? ByteBuffer().readableBytesView))
            } else {
                for index in 0..<chunks {
                    let part = try await connection.rows(
                        "SELECT data FROM sequencer_cache.chunks WHERE digest = \(digest) AND index = \(index)", logger)
                    guard let bytes = try part.first?.decode(ByteBuffer.self) else { return nil }
                    hashing.update(Data(bytes.readableBytesView))
                }
            }
            return hashing.finish()
        }
    }

    /// ``removeBlob(_:)`` by the name its row has (a damaged row's may not be a digest).
    private func removeBlob(named digest: String) async throws {
        if let parsed = CacheDigest(hex: digest) { return try await removeBlob(parsed) }
        _ = try await transaction("removing a blob named \(digest.prefix(12))") { connection, logger in
            try await connection.rows("DELETE FROM sequencer_cache.blobs WHERE digest = \(digest)", logger)
        }
    }

    private func removeRecord(_ row: Row) async throws {
        _ = try await transaction("removing record \(row.namespace)/\(row.key.prefix(12))") { connection, logger in
            try await connection.rows(
                "DELETE FROM sequencer_cache.records WHERE namespace = \(row.namespace) AND key = \(row.key)", logger)
        }
    }
}
