extension NinjaDepsLog {
    /// The warning ninja prints when it discards a deps log for its signature or version.
    public static let badHeaderWarning = "bad deps log signature or version; starting over"
    /// The warning ninja prints when it discards a deps log of version 1.
    public static let versionOneWarning = "deps log version change; rebuilding"
    /// The warning ninja prints when it cuts off a damaged or unfinished record and what follows.
    public static let damagedTailWarning = "premature end of file; recovering"

    /// Reads a deps log as ninja does:
    /// - a file that does not start with the signature and version 4 is discarded (`repair` is
    ///   `.delete`), with ninja's warning;
    /// - records are read up to the first one that is unfinished or damaged: a size over
    ///   `maximumRecordSize` or past the end, a path record whose check does not match its id
    ///   (two ninjas wrote at once), that is empty or names a path already named, a deps record
    ///   whose length is not a multiple of 4 or too short, or whose ids are not ids of paths
    ///   read before it. The file is cut there (`.truncate`), with ninja's warning "premature
    ///   end of file; recovering", and what came before is kept;
    /// - a later deps list of an output replaces the earlier one.
    ///
    /// ninja 1.11 trusts the ids and the lengths (and may crash on them); the checks above are
    /// those of later ninjas, a few more for what none checks (an output id out of range, a
    /// deps record under 12 bytes). 1 to 3 stray bytes after the last record, which ninja leaves
    /// (and appends after), are cut off too, without a warning.
    ///
    /// Nothing in `bytes` can make it fail: a log is a cache, and the worst is an empty one.
    public static func decode(_ bytes: [UInt8]) -> NinjaLogDecoding<NinjaDepsLog> {
        bytes.withUnsafeBytes { decode(buffer: $0) }
    }

    private static func decode(buffer bytes: UnsafeRawBufferPointer) -> NinjaLogDecoding<NinjaDepsLog> {
        // ninja reads the first line (up to a newline, at most `maximumRecordSize` bytes), then
        // the version after it.
        var lineLength = 0
        while lineLength < min(bytes.count, maximumRecordSize) {
            lineLength += 1
            if bytes[lineLength - 1] == 0x0A { break }
        }
        var version: Int32 = 0
        if lineLength > 0, bytes.count - lineLength >= 4 {
            version = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: lineLength, as: Int32.self))
        }
        let signatureMatches = lineLength == signature.count && bytes.prefix(lineLength).elementsEqual(signature)
        guard signatureMatches, version == Self.version else {
            let warning = version == 1 ? versionOneWarning : badHeaderWarning
            return NinjaLogDecoding(log: NinjaDepsLog(), warning: warning, repair: .delete)
        }

        var log = NinjaDepsLog()
        var offset = header.count
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else {
                return NinjaLogDecoding(log: log, warning: nil, repair: .truncate(toByteCount: offset))
            }
            let sizeField = word(bytes, offset)
            let isDeps = sizeField & 0x8000_0000 != 0
            let size = Int(sizeField & 0x7FFF_FFFF)
            let body = offset + 4
            let recordIsWhole = size <= maximumRecordSize && bytes.count - body >= size
            let recorded = recordIsWhole && (isDeps ? readDeps(bytes, body, size, into: &log) : readPath(bytes, body, size, into: &log))
            guard recorded else {
                return NinjaLogDecoding(log: log, warning: damagedTailWarning, repair: .truncate(toByteCount: offset))
            }
            offset = body + size
        }
        return NinjaLogDecoding(log: log, warning: nil, repair: .none)
    }

    /// Reads the deps record of `size` bytes at `start`; false when it is damaged.
    private static func readDeps(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ size: Int, into log: inout NinjaDepsLog) -> Bool {
        guard size % 4 == 0, size >= 12 else { return false }
        let pathCount = UInt32(log.paths.count)
        let outputID = word(bytes, start)
        guard outputID < pathCount else { return false }
        let mtime = UInt64(word(bytes, start + 4)) | UInt64(word(bytes, start + 8)) << 32
        var inputIDs: [Int32] = []
        inputIDs.reserveCapacity(size / 4 - 3)
        var offset = start + 12
        while offset < start + size {
            let id = word(bytes, offset)
            // A negative id reads as a large unsigned one.
            guard id < pathCount else { return false }
            inputIDs.append(Int32(id))
            offset += 4
        }
        let replaced = log.setDeps(Deps(mtime: Int64(bitPattern: mtime), inputIDs: inputIDs), ofID: Int32(outputID))
        log.countLoadedRecord(replaced: replaced)
        return true
    }

    /// Reads the path record of `size` bytes at `start`; false when it is damaged.
    private static func readPath(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ size: Int, into log: inout NinjaDepsLog) -> Bool {
        guard size > 4 else { return false }
        var length = size - 4
        // Up to 3 bytes of NUL padding.
        for _ in 0..<3 where length > 0 && bytes[start + length - 1] == 0 { length -= 1 }
        guard length > 0 else { return false }
        let expectedID = ~word(bytes, start + size - 4)
        guard expectedID == UInt32(log.paths.count) else { return false }
        let path = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]), as: UTF8.self)
        guard log.id(of: path) == nil else { return false }
        _ = log.appendPath(path)
        return true
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}
