#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
internal import Logging
internal import PostgresNIO
import SequencerQueue
public import SequencerCache

/// A shared output cache in a PostgreSQL database: the one a fleet's queue already has. Records
/// are rows of `sequencer_cache.records` (by namespace and key); blobs are rows of
/// `sequencer_cache.blobs`, their bytes inline when small and in 1 MiB rows of
/// `sequencer_cache.chunks` otherwise.
///
/// Every promise of ``CacheStore`` holds across processes and machines: a blob is written in
/// one transaction with its chunks, after its bytes were hashed (so it is whole or absent); a
/// result is stored only while its blobs are there (read `FOR SHARE`, so none goes meanwhile)
/// and found only with them, read in one snapshot.
public final class PostgresCache: CacheStore, CacheClaims, CustomStringConvertible {
    /// The format this version writes and reads.
    public static let format = 1
    /// Blobs this size or smaller are kept in their row.
    static let inlineLimit = 64 * 1024
    static let chunkSize = 1024 * 1024

    public let description: String
    public let isReadOnly: Bool
    private let client: PostgresClient
    private let pool: Task<Void, Never>
    /// How long a look-up or a store may take before it is given up (a server that hangs).
    public let deadline: Duration
    private static let logger = Logger(label: "sequencer.postgres.cache", factory: { _ in SwiftLogNoOpLogHandler() })
    private var logger: Logger { Self.logger }

    /// Connects to `url` and makes the cache's tables when they are not there (unless read-only).
    /// - Throws: ``CacheError`` naming the URL (its password masked) and the cause.
    public init(url: String, readOnly: Bool = false, deadline: Duration = .seconds(30)) async throws {
        self.deadline = deadline
        let parsed: PostgresURL
        do {
            parsed = try PostgresURL(url)
        } catch {
            throw CacheError(.notACache, location: PostgresURL.mask(url), "\((error as? QueueError)?.message ?? "\(error)")")
        }
        description = parsed.description
        isReadOnly = readOnly
        let first: PostgresConnection
        do {
            first = try await PostgresConnection.connect(configuration: parsed.connection, id: 0, logger: Self.logger)
        } catch {
            throw CacheError(.io, location: parsed.description, "cannot connect: \(PostgresQueueStore.describe(error))")
        }
        do {
            try await Self.prepare(first, readOnly: readOnly, location: parsed.description)
        } catch {
            _ = try? await first.close()
            throw Self.failure(error, parsed.description, "making the cache's tables")
        }
        _ = try? await first.close()
        let client = PostgresClient(configuration: parsed.configuration, backgroundLogger: Self.logger)
        self.client = client
        pool = Task { await client.run() }
    }

    /// Ends the pool's connections.
    public func close() async {
        pool.cancel()
        await pool.value
    }

    deinit { pool.cancel() }

    private static func prepare(_ connection: PostgresConnection, readOnly: Bool, location: String) async throws {
        let logger = Self.logger
        let exists = try await connection.rows(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = 'sequencer_cache' AND tablename = 'format'", logger)
        if exists.isEmpty {
            guard !readOnly else { throw CacheError(.notACache, location: location, "there is no cache in this database (it is opened read-only, so none is made)") }
            // "SEQC": processes starting at once take turns; the second finds the tables made.
            // The lock goes with the connection, which closes after this, whatever happens.
            try await connection.rows("SELECT pg_advisory_lock(\(Int64(0x5345_5143)))", logger)
            for statement in [
                "CREATE SCHEMA IF NOT EXISTS sequencer_cache",
                "CREATE TABLE IF NOT EXISTS sequencer_cache.blobs (digest TEXT PRIMARY KEY, size BIGINT NOT NULL, chunks INTEGER NOT NULL, data BYTEA, used_at BIGINT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS sequencer_cache.chunks (digest TEXT NOT NULL, index INTEGER NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (digest, index))",
                "CREATE TABLE IF NOT EXISTS sequencer_cache.records (namespace TEXT NOT NULL, key TEXT NOT NULL, record BYTEA NOT NULL, used_at BIGINT NOT NULL, PRIMARY KEY (namespace, key))",
                "CREATE TABLE IF NOT EXISTS sequencer_cache.claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, until BIGINT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS sequencer_cache.format (format INTEGER NOT NULL)",
                "INSERT INTO sequencer_cache.format (format) SELECT \(format) WHERE NOT EXISTS (SELECT 1 FROM sequencer_cache.format)",
            ] {
                try await connection.rows(PostgresQuery(unsafeSQL: statement), logger)
            }
        }
        let rows = try await connection.rows("SELECT max(format) FROM sequencer_cache.format", logger)
        let found = try rows.first?.decode(Int?.self) ?? nil
        if let found, found > format {
            throw CacheError(.newerFormat, location: location, "made by a newer Sequencer (format \(found); this one reads \(format)); left untouched")
        }
    }

    // MARK: Records

    public func record(for key: CacheDigest, in namespaces: [String]) async throws -> CacheLookup {
        for namespace in namespaces where !CacheNamespace.isValid(namespace) {
            throw CacheError(.invalidName, location: namespace, "not a namespace")
        }
        return try await transaction("looking up \(key.short)", isolation: "REPEATABLE READ") { connection, logger in
            for namespace in namespaces {
                let rows = try await connection.rows(
                    "SELECT record FROM sequencer_cache.records WHERE namespace = \(namespace) AND key = \(key.hex)", logger)
                guard let row = rows.first else { continue }
                let bytes = try row.decode(ByteBuffer.self)
                let record: CacheRecord
                do {
                    record = try CacheRecord(decoding: Data(bytes.readableBytesView))
                } catch {
                    throw CacheError(.damaged, location: "\(self.description) \(namespace)/\(key.short)", "a record that cannot be read (\(error)); not served")
                }
                if case .result(let result) = record {
                    let wanted = result.blobs.map(\.hex)
                    let present = Set(try await connection.rows(
                        "SELECT digest FROM sequencer_cache.blobs WHERE digest = ANY(\(wanted))", logger).map { try $0.decode(String.self) })
                    if let missing = result.blobs.first(where: { !present.contains($0.hex) }) {
                        return .incomplete(missing: missing, namespace: namespace)
                    }
                }
                if !self.isReadOnly {
                    let now = Self.now()
                    try await connection.rows(
                        "UPDATE sequencer_cache.records SET used_at = \(now) WHERE namespace = \(namespace) AND key = \(key.hex)", logger)
                    // Its blobs are used too: the least recently used go first (`gc`).
                    if case .result(let result) = record {
                        try await connection.rows(
                            "UPDATE sequencer_cache.blobs SET used_at = \(now) WHERE digest = ANY(\(result.blobs.map(\.hex)))", logger)
                    }
                }
                return .found(record, namespace: namespace)
            }
            return .missing
        }
    }

    public func store(_ record: CacheRecord, for key: CacheDigest, in namespace: String) async throws {
        try checkWritable()
        guard CacheNamespace.isValid(namespace) else { throw CacheError(.invalidName, location: namespace, "not a namespace") }
        let data = try record.encoded()
        try await transaction("storing \(key.short)") { connection, logger in
            if case .result(let result) = record {
                let wanted = result.blobs.map(\.hex)
                // Held until the record is in: no blob goes meanwhile.
                let present = Set(try await connection.rows(
                    "SELECT digest FROM sequencer_cache.blobs WHERE digest = ANY(\(wanted)) FOR SHARE", logger).map { try $0.decode(String.self) })
                if let missing = result.blobs.first(where: { !present.contains($0.hex) }) {
                    throw CacheError(.io, location: missing.hex, "a result names a blob that is not stored; the result is not stored")
                }
            }
            try await connection.rows(
                """
                INSERT INTO sequencer_cache.records (namespace, key, record, used_at)
                VALUES (\(namespace), \(key.hex), \(ByteBuffer(bytes: data)), \(Self.now()))
                ON CONFLICT (namespace, key) DO UPDATE SET record = excluded.record, used_at = excluded.used_at
                """, logger)
        }
    }

    // MARK: Blobs

    public func hasBlob(_ digest: CacheDigest) async throws -> Bool {
        try await transaction("looking for blob \(digest.short)") { connection, logger in
            let rows = try await connection.rows("SELECT 1 FROM sequencer_cache.blobs WHERE digest = \(digest.hex)", logger)
            return !rows.isEmpty
        }
    }

    public func storeBlob(_ digest: CacheDigest, from path: String) async throws {
        try checkWritable()
        if try await hasBlob(digest) {
            _ = try await transaction("using blob \(digest.short)") { connection, logger in
                try await connection.rows("UPDATE sequencer_cache.blobs SET used_at = \(Self.now()) WHERE digest = \(digest.hex)", logger)
            }
            return
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CacheError(.io, location: path, "cannot read") }
        defer { try? handle.close() }
        try await transaction("storing blob \(digest.short)") { connection, logger in
            var hashing = CacheDigest.Hashing()
            var size = 0
            var chunks = 0
            var inline: Data?
            while true {
                let chunk = try handle.read(upToCount: Self.chunkSize) ?? Data()
                if chunk.isEmpty { break }
                hashing.update(chunk)
                size += chunk.count
                if chunks == 0, inline == nil, chunk.count <= Self.inlineLimit {
                    inline = chunk
                    continue
                }
                // More than fits inline: what was kept goes first, as chunk 0.
                if let kept = inline {
                    try await Self.insertChunk(kept, digest, 0, connection, logger)
                    (inline, chunks) = (nil, 1)
                }
                try await Self.insertChunk(chunk, digest, chunks, connection, logger)
                chunks += 1
            }
            let found = hashing.finish()
            guard found == digest else {
                throw CacheError(.changed, location: path, "changed while it was stored (its digest is now \(found.short), not \(digest.short)); not stored")
            }
            let data = inline.map { ByteBuffer(bytes: $0) } ?? (chunks == 0 ? ByteBuffer() : nil)
            try await connection.rows(
                """
                INSERT INTO sequencer_cache.blobs (digest, size, chunks, data, used_at)
                VALUES (\(digest.hex), \(Int64(size)), \(chunks), \(data), \(Self.now()))
                ON CONFLICT (digest) DO NOTHING
                """, logger)
        }
    }

    private static func insertChunk(_ data: Data, _ digest: CacheDigest, _ index: Int, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.rows(
            """
            INSERT INTO sequencer_cache.chunks (digest, index, data) VALUES (\(digest.hex), \(index), \(ByteBuffer(bytes: data)))
            ON CONFLICT (digest, index) DO NOTHING
            """, logger)
    }

    public func fetchBlob(_ digest: CacheDigest, to target: String) async throws {
        let temporary = CacheFiles.temporary(beside: target)
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let output = FileHandle(forWritingAtPath: temporary) else {
            throw CacheError(.io, location: temporary, "cannot create")
        }
        var installed = false
        defer {
            try? output.close()
            if !installed { unlink(temporary) }
        }
        let found: CacheDigest = try await transaction("fetching blob \(digest.short)", isolation: "REPEATABLE READ") { connection, logger in
            let rows = try await connection.rows("SELECT chunks, data FROM sequencer_cache.blobs WHERE digest = \(digest.hex)", logger)
            guard let row = rows.first else { throw CacheError(.io, location: "\(self.description) blob \(digest.short)", "the blob is not there") }
            let (chunks, data) = try row.decode((Int, ByteBuffer?).self)
            var hashing = CacheDigest.Hashing()
            if chunks == 0 {
                let bytes = Data(data?.readableBytesView ?? ByteBuffer().readableBytesView)
                hashing.update(bytes)
                try output.write(contentsOf: bytes)
            } else {
                for index in 0..<chunks {
                    let part = try await connection.rows(
                        "SELECT data FROM sequencer_cache.chunks WHERE digest = \(digest.hex) AND index = \(index)", logger)
                    guard let bytes = try part.first?.decode(ByteBuffer.self) else { break }
                    let chunk = Data(bytes.readableBytesView)
                    hashing.update(chunk)
                    try output.write(contentsOf: chunk)
                }
            }
            return hashing.finish()
        }
        guard found == digest else {
            if !isReadOnly { try? await removeBlob(digest) }
            throw CacheError(.damaged, location: "\(description) blob \(digest.short)", "its bytes do not match its digest (\(found.short)); \(isReadOnly ? "not served" : "removed")")
        }
        try output.synchronize()
        guard rename(temporary, target) == 0 else { throw CacheError(.io, location: target, "cannot put in place: \(String(cString: strerror(errno)))") }
        installed = true
    }

    /// Removes a blob and its chunks (a damaged one; eviction).
    public func removeBlob(_ digest: CacheDigest) async throws {
        try checkWritable()
        try await transaction("removing blob \(digest.short)") { connection, logger in
            try await connection.rows("DELETE FROM sequencer_cache.blobs WHERE digest = \(digest.hex)", logger)
            try await connection.rows("DELETE FROM sequencer_cache.chunks WHERE digest = \(digest.hex)", logger)
        }
    }

    // MARK: Claims

    /// A row of `sequencer_cache.claims` per claimed key, with its owner and when its lease
    /// ends: taken when there is none, or when it is the owner's, or when its lease ran out.
    public func claim(_ key: CacheDigest, owner: String, lease: Duration) async throws -> Bool {
        try checkWritable()
        let now = Self.now()
        let until = now + Int64(lease.components.seconds) * 1000 + lease.components.attoseconds / 1_000_000_000_000_000
        return try await transaction("claiming \(key.short)") { connection, logger in
            let rows = try await connection.rows(
                """
                INSERT INTO sequencer_cache.claims (key, owner, until) VALUES (\(key.hex), \(owner), \(until))
                ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, until = excluded.until
                WHERE sequencer_cache.claims.owner = excluded.owner OR sequencer_cache.claims.until < \(now)
                RETURNING owner
                """, logger)
            return !rows.isEmpty
        }
    }

    public func release(_ key: CacheDigest, owner: String) async throws {
        try checkWritable()
        _ = try await transaction("releasing \(key.short)") { connection, logger in
            try await connection.rows("DELETE FROM sequencer_cache.claims WHERE key = \(key.hex) AND owner = \(owner)", logger)
        }
    }

    // MARK: Database access

    private func checkWritable() throws {
        if isReadOnly { throw CacheError(.readOnly, location: description, "the cache is opened read-only; nothing is written") }
    }

    func transaction<T: Sendable>(
        _ doing: String, isolation: String = "READ COMMITTED", _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let (logger, client) = (logger, client)
        do {
            return try await withCacheDeadline(deadline, location: description, doing: doing) {
                try await PostgresTransaction.run(client, isolation: isolation, logger: logger, body)
            }
        } catch {
            throw Self.failure(error, description, doing)
        }
    }

    private static func failure(_ error: any Error, _ location: String, _ doing: String) -> any Error {
        if error is CacheError || error is CancellationError { return error }
        return CacheError(.io, location: location, "\(doing) failed: \(PostgresQueueStore.describe(error))")
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
