#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOCore
import NIOHTTP1
public import SequencerCache

/// A Bazel HTTP cache as a backend: bazel-remote, BuildBuddy, or `sequencer cache serve`,
/// speaking `GET`, `HEAD` and `PUT` of `/cas/SHA256` (blobs) and `/ac/SHA256` (action results).
///
/// What goes under `/ac/` is a well-formed Remote Execution `ActionResult`
/// (``RemoteActionResult``): the job's output files and printed output, and Sequencer's own
/// record (a blob too), so a server that validates its entries takes it and other clients can
/// read the outputs. A namespace is part of the key under which an entry is put: a reader that
/// does not trust `pr-7` never asks for its keys. (That keeps readers apart; keeping an
/// untrusted writer from writing `main`'s keys is the server's job: give it a read-only
/// credential, or a server of its own.)
///
/// A result is found only when every blob it names answers `HEAD` (the server may have evicted
/// one); a blob whose bytes do not match its digest is not served (the protocol cannot remove
/// it: the job runs, and its store puts the blob right).
public final class HTTPCache: CacheStore, CustomStringConvertible {
    public let description: String
    public let isReadOnly: Bool
    private let client: HTTPClient
    /// How long a request may take before it is given up (a server that hangs).
    public let deadline: Duration

    /// - Throws: ``CacheError`` when `url` is not an `http://` or `https://` URL.
    public init(url: String, readOnly: Bool = false, deadline: Duration = .seconds(30)) throws {
        self.deadline = deadline
        do {
            client = try HTTPClient(url: url)
        } catch {
            throw CacheError(.notACache, location: url, error.description)
        }
        description = Self.masked(url)
        isReadOnly = readOnly
    }

    /// The URL with its password as `***`.
    static func masked(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

    /// The key an entry of `namespace` is put under.
    static func entryKey(_ key: CacheDigest, _ namespace: String) -> CacheDigest {
        CacheDigest.of(Data("sequencer-cache 1\u{0}\(namespace)\u{0}\(key.hex)".utf8))
    }

    // MARK: Records

    public func record(for key: CacheDigest, in namespaces: [String]) async throws -> CacheLookup {
        for namespace in namespaces {
            guard CacheNamespace.isValid(namespace) else { throw CacheError(.invalidName, location: namespace, "not a namespace") }
            let response = try await send(.GET, "/ac/\(Self.entryKey(key, namespace).hex)", "looking up \(key.short)")
            if response.status == 404 { continue }
            guard response.status == 200 else { throw unexpected(response, "looking up \(key.short)") }
            guard let entry = RemoteActionResult(decoding: Array(response.body.readableBytesView)), let file = entry.record else {
                throw CacheError(.damaged, location: "\(description) \(namespace)/\(key.short)", "an entry that is not Sequencer's or cannot be read; not served")
            }
            let blob = try await send(.GET, "/cas/\(file.digest.hex)", "reading the record \(file.digest.short)")
            if blob.status == 404 { return .incomplete(missing: file.digest, namespace: namespace) }
            guard blob.status == 200 else { throw unexpected(blob, "reading the record \(file.digest.short)") }
            let record: CacheRecord
            do {
                let bytes = Data(blob.body.readableBytesView)
                guard CacheDigest.of(bytes) == file.digest else { throw CacheError(.damaged, location: file.digest.hex, "its bytes do not match") }
                record = try CacheRecord(decoding: bytes)
            } catch {
                throw CacheError(.damaged, location: "\(description) \(namespace)/\(key.short)", "a record that cannot be read (\(error)); not served")
            }
            if case .result(let result) = record {
                for digest in result.blobs where try await !hasBlob(digest) {
                    return .incomplete(missing: digest, namespace: namespace)
                }
            }
            return .found(record, namespace: namespace)
        }
        return .missing
    }

    public func store(_ record: CacheRecord, for key: CacheDigest, in namespace: String) async throws {
        try checkWritable()
        guard CacheNamespace.isValid(namespace) else { throw CacheError(.invalidName, location: namespace, "not a namespace") }
        var files: [RemoteActionResult.File] = []
        var stdout: (digest: CacheDigest, size: Int64)?
        if case .result(let result) = record {
            for digest in result.blobs where try await !hasBlob(digest) {
                throw CacheError(.io, location: digest.hex, "a result names a blob that is not stored; the result is not stored")
            }
            files = result.outputs.map { .init(path: $0.path, digest: $0.digest, size: $0.size, executable: $0.executable) }
            stdout = result.printed.map { ($0, result.printedSize ?? 0) }
        }
        let data = try record.encoded()
        let digest = CacheDigest.of(data)
        try await put("/cas/\(digest.hex)", ByteBuffer(bytes: data), "storing the record of \(key.short)")
        files.append(.init(path: RemoteActionResult.recordPath, digest: digest, size: Int64(data.count)))
        let entry = RemoteActionResult(files: files, stdout: stdout)
        try await put("/ac/\(Self.entryKey(key, namespace).hex)", ByteBuffer(bytes: entry.encoded()), "storing \(key.short)")
    }

    // MARK: Blobs

    public func hasBlob(_ digest: CacheDigest) async throws -> Bool {
        let response = try await send(.HEAD, "/cas/\(digest.hex)", "looking for blob \(digest.short)")
        guard response.status == 200 || response.status == 404 else { throw unexpected(response, "looking for blob \(digest.short)") }
        return response.status == 200
    }

    public func storeBlob(_ digest: CacheDigest, from path: String) async throws {
        try checkWritable()
        if try await hasBlob(digest) { return }
        guard let data = FileManager.default.contents(atPath: path) else { throw CacheError(.io, location: path, "cannot read") }
        let found = CacheDigest.of(data)
        guard found == digest else {
            throw CacheError(.changed, location: path, "changed while it was stored (its digest is now \(found.short), not \(digest.short)); not stored")
        }
        try await put("/cas/\(digest.hex)", ByteBuffer(bytes: data), "storing blob \(digest.short)")
    }

    public func fetchBlob(_ digest: CacheDigest, to target: String) async throws {
        let response = try await send(.GET, "/cas/\(digest.hex)", "fetching blob \(digest.short)")
        if response.status == 404 { throw CacheError(.io, location: "\(description) blob \(digest.short)", "the blob is not there") }
        guard response.status == 200 else { throw unexpected(response, "fetching blob \(digest.short)") }
        let data = Data(response.body.readableBytesView)
        let found = CacheDigest.of(data)
        guard found == digest else {
            throw CacheError(.damaged, location: "\(description) blob \(digest.short)", "its bytes do not match its digest (\(found.short)); not served")
        }
        let temporary = CacheFiles.temporary(beside: target)
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch {
            throw CacheError(.io, location: temporary, "cannot write: \(error.localizedDescription)")
        }
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw CacheError(.io, location: target, "cannot put in place: \(String(cString: strerror(errno)))")
        }
    }

    // MARK: Requests

    private func checkWritable() throws {
        if isReadOnly { throw CacheError(.readOnly, location: description, "the cache is opened read-only; nothing is written") }
    }

    private func send(_ method: HTTPMethod, _ path: String, _ doing: String, body: ByteBuffer? = nil) async throws -> HTTPClient.Response {
        let client = client
        do {
            return try await withCacheDeadline(deadline, location: description, doing: doing) {
                try await client.send(method, path, body: body)
            }
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(.io, location: description, "\(doing) failed: \(error)")
        }
    }

    private func put(_ path: String, _ body: ByteBuffer, _ doing: String) async throws {
        let response = try await send(.PUT, path, doing, body: body)
        guard (200..<300).contains(response.status) else { throw unexpected(response, doing) }
    }

    private func unexpected(_ response: HTTPClient.Response, _ doing: String) -> CacheError {
        let text = String(decoding: response.body.readableBytesView.prefix(200), as: UTF8.self)
        return CacheError(.io, location: description, "\(doing): the server answered \(response.status)" + (text.isEmpty ? "" : ": \(text)"))
    }
}
