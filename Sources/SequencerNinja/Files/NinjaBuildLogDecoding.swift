extension NinjaBuildLog {
    /// ninja reads the log through a buffer of this many bytes: of a longer line it reads only
    /// the part after the last whole buffer's worth (`decode(_:readableVersions:)`).
    static let lineBufferSize = 256 << 10

    /// The warning ninja 1.11 prints when it discards a log older than version 4, or without a
    /// version.
    public static let tooOldWarning = "build log version invalid, perhaps due to being too old; starting over"
    /// The warning ninja 1.12 and later print when they discard a log newer than they know.
    public static let tooNewWarning = "build log version is too new; starting over"

    /// Reads a log as ninja 1.11 does (reading versions 6 and 7 too):
    /// - a first line that is not `# ninja log vN` with N in `readableVersions` discards the
    ///   file, with ninja's warning (1.11's for an old or missing version, 1.12's for a newer one);
    /// - lines with fewer than four tabs are skipped, numbers are read as C's `atoi`/`strtoll`
    ///   read them, and a later line for an output replaces the earlier one;
    /// - an unfinished last line (no newline) is ignored, and cut off (`repair`) so that lines
    ///   appended later start on a line of their own;
    /// - of a line longer than 256 KiB only its end is read, as ninja's buffer reads it.
    ///
    /// Nothing in `bytes` can make it fail: a log is a cache, and the worst is an empty one.
    public static func decode(
        _ bytes: [UInt8], readableVersions: ClosedRange<Int> = readableVersions
    ) -> NinjaLogDecoding<NinjaBuildLog> {
        bytes.withUnsafeBufferPointer { decode(buffer: $0, readableVersions: readableVersions) }
    }

    private static func decode(
        buffer bytes: UnsafeBufferPointer<UInt8>, readableVersions: ClosedRange<Int>
    ) -> NinjaLogDecoding<NinjaBuildLog> {
        guard !bytes.isEmpty else { return NinjaLogDecoding(log: NinjaBuildLog(), warning: nil, repair: .none) }
        let version = Int(headerVersion(bytes))
        if version < readableVersions.lowerBound {
            return NinjaLogDecoding(log: NinjaBuildLog(), warning: tooOldWarning, repair: .delete)
        }
        if version > readableVersions.upperBound {
            return NinjaLogDecoding(log: NinjaBuildLog(), warning: tooNewWarning, repair: .delete)
        }
        var log = NinjaBuildLog(version: version)
        var lineStart = 0
        while lineStart < bytes.count {
            guard let newline = firstIndex(of: 0x0A, in: bytes, from: lineStart, to: bytes.count) else { break }
            var start = lineStart
            let length = newline - lineStart
            if length >= lineBufferSize { start = newline - length % lineBufferSize }
            if let entry = entry(bytes, from: start, to: newline, version: version) {
                let isNew = log[output: entry.output] == nil
                log.record(entry)
                log.countLoadedLine(newOutput: isNew)
            }
            lineStart = newline + 1
        }
        let repair: NinjaLogDecoding<NinjaBuildLog>.Repair =
            lineStart < bytes.count ? .truncate(toByteCount: lineStart) : .none
        return NinjaLogDecoding(log: log, warning: nil, repair: repair)
    }

    /// The entry of one line, or nil when the line has fewer than four tabs.
    private static func entry(
        _ bytes: UnsafeBufferPointer<UInt8>, from lineStart: Int, to lineEnd: Int, version: Int
    ) -> NinjaBuildLogEntry? {
        let tab: UInt8 = 0x09
        guard let tab1 = firstIndex(of: tab, in: bytes, from: lineStart, to: lineEnd),
            let tab2 = firstIndex(of: tab, in: bytes, from: tab1 + 1, to: lineEnd),
            let tab3 = firstIndex(of: tab, in: bytes, from: tab2 + 1, to: lineEnd),
            let tab4 = firstIndex(of: tab, in: bytes, from: tab3 + 1, to: lineEnd)
        else { return nil }
        let output = String(decoding: UnsafeBufferPointer(rebasing: bytes[(tab3 + 1)..<tab4]), as: UTF8.self)
        let hash: UInt64
        if version >= 5 {
            hash = CStyleNumberParsing.unsignedHex64(bytes, from: tab4 + 1, to: lineEnd)
        } else {
            // Version 4 kept the command itself.
            hash = MurmurHash64A.hash(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(tab4 + 1)..<lineEnd])))
        }
        return NinjaBuildLogEntry(
            output: output,
            commandHash: hash,
            startTime: CStyleNumberParsing.int32(bytes, from: lineStart, to: tab1),
            endTime: CStyleNumberParsing.int32(bytes, from: tab1 + 1, to: tab2),
            mtime: CStyleNumberParsing.signed64(bytes, from: tab2 + 1, to: tab3)
        )
    }

    /// The version `sscanf(first line, "# ninja log v%d\n", &version)` finds, 0 when none: a
    /// blank in the pattern matches any run of white space, even none.
    static func headerVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        var index = 0
        for byte in "# ninja log v".utf8 {
            if byte == 0x20 {
                index = CStyleNumberParsing.skipSpace(bytes, index, bytes.count)
                continue
            }
            guard index < bytes.count, bytes[index] == byte else { return 0 }
            index += 1
        }
        let start = CStyleNumberParsing.skipSpace(bytes, index, bytes.count)
        var digits = start
        if digits < bytes.count, bytes[digits] == UInt8(ascii: "-") || bytes[digits] == UInt8(ascii: "+") { digits += 1 }
        guard digits < bytes.count, CStyleNumberParsing.decimalDigit(bytes[digits]) != nil else { return 0 }
        var end = digits
        while end < bytes.count, CStyleNumberParsing.decimalDigit(bytes[end]) != nil { end += 1 }
        return CStyleNumberParsing.int32(bytes, from: start, to: end)
    }

    private static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        var index = start
        while index < end {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }
}
