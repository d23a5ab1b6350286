import Foundation
import PostgresTestSupport
import SequencerCache
import Testing

/// What `sequencer cache stats | ls | verify | gc` promise (``CacheMaintenance``), checked on
/// each cache they keep: a directory, and PostgreSQL on a real server.
extension CacheStoreContractTests {
    static let kept: [Backend] = TestServer.available ? [.directory, .postgres] : [.directory]

    @Test(arguments: kept)
    func statsAndListSayWhatIsKeptAndVerifyFindsDamageThatRepairRemoves(_ backend: Backend) async throws {
        try await with(backend) { subject in
            let cache = try #require(subject.store as? any CacheMaintenance)
            let texts = ["kept as it was stored", "to be damaged", "its blob to go"]
            let sound = try await subject.storeResult(texts[0])
            let damaged = try await subject.storeResult(texts[1], in: "pr-7")
            let incomplete = try await subject.storeResult(texts[2])
            let usage = try await cache.usage()
            #expect(usage.results == ["main": 2, "pr-7": 1], "\(usage)")
            #expect(usage.blobs == 3 && usage.blobBytes == Int64(texts.joined().utf8.count), "\(usage)")
            #expect(usage.recordBytes > 0 && usage.totalBytes == usage.blobBytes + usage.recordBytes)
            #expect(try await cache.results(in: ["pr-7"]).map(\.key) == [damaged.key])
            #expect(Set(try await cache.results(in: nil).map(\.key)) == [sound.key, damaged.key, incomplete.key])
            #expect(try await cache.verify(repair: false).isClean)

            try await subject.damageBlob(damaged.result.outputs[0].digest, "not what was stored")
            try await subject.removeBlob(incomplete.result.outputs[0].digest)
            let found = try await cache.verify(repair: false)
            #expect(found.blobsChecked == 2 && found.recordsChecked == 3, "\(found)")
            #expect(found.damagedBlobs.count == 1 && found.damagedBlobs.allSatisfy { $0.contains(damaged.result.outputs[0].digest.hex) }, "\(found)")
            #expect(found.incompleteResults.count == 1 && found.incompleteResults.allSatisfy { $0.contains(incomplete.key.hex) }, "\(found)")
            // Looking repairs nothing.
            #expect(try await cache.verify(repair: false) == found)

            let repaired = try await cache.verify(repair: true)
            #expect(repaired.damagedBlobs == found.damagedBlobs, "\(repaired)")
            // The damaged blob's result lost its blob with it: removed in the same pass.
            #expect(repaired.incompleteResults.count == 2, "\(repaired)")
            #expect(try await cache.verify(repair: false).isClean)
            #expect(try await cache.results(in: nil).map(\.key) == [sound.key])
            #expect(try await subject.store.record(for: sound.key, in: ["main"]) == .found(.result(sound.result), namespace: "main"))
        }
    }

    @Test(arguments: kept)
    func gcRemovesTheLeastRecentlyUsedFirstUntilTheCacheFits(_ backend: Backend) async throws {
        try await with(backend) { subject in
            let cache = try #require(subject.store as? any CacheMaintenance)
            let old = try await subject.storeResult(String(repeating: "o", count: 1000))
            let new = try await subject.storeResult(String(repeating: "n", count: 1000))
            try await subject.age(old.key, old.result.outputs[0].digest, 3600)
            let before = try await cache.usage().totalBytes
            let collected = try await cache.collect(maxSize: before - 500, staleAfter: 3600)
            let after = try await cache.usage().totalBytes
            #expect(collected.sizeAfter <= before - 500 && collected.sizeAfter == after, "\(collected)")
            #expect(collected.freedBytes >= 1000 && collected.removedFiles >= 2, "the old blob, then its result: \(collected)")
            #expect(try await subject.store.record(for: old.key, in: ["main"]) == .missing)
            #expect(try await subject.store.record(for: new.key, in: ["main"]) == .found(.result(new.result), namespace: "main"))
            #expect(try await cache.verify(repair: false).isClean)

            let emptied = try await cache.collect(maxSize: 0, staleAfter: 3600)
            #expect(emptied.sizeAfter == 0)
            let usage = try await cache.usage()
            #expect(usage.blobs == 0 && usage.results.isEmpty && usage.totalBytes == 0, "\(usage)")
        }
    }

    @Test(arguments: kept)
    func aReadOnlyCacheIsNeitherRepairedNorCollected(_ backend: Backend) async throws {
        try await with(backend) { subject in
            _ = try await subject.storeResult("stays")
            let readOnly = try #require(try await subject.readOnly() as? any CacheMaintenance)
            await #expect { _ = try await readOnly.collect(maxSize: 0, staleAfter: 0) } throws: { ($0 as? CacheError)?.code == .readOnly }
            await #expect { _ = try await readOnly.verify(repair: true) } throws: { ($0 as? CacheError)?.code == .readOnly }
            #expect(try await readOnly.usage().results == ["main": 1])
        }
    }
}
