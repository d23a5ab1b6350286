extension NinjaBuildLog {
    /// The first line of a log of `version`: `# ninja log v5` and a newline.
    public static func header(version: Int) -> [UInt8] {
        Array("# ninja log v\(version)\n".utf8)
    }

    /// The line ninja writes for `entry`: start, end, mtime, output and the hash in lowercase
    /// hexadecimal, separated by tabs, ending with a newline.
    public static func line(for entry: NinjaBuildLogEntry) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(entry.output.utf8.count + 48)
        line.append(contentsOf: String(entry.startTime).utf8)
        line.append(0x09)
        line.append(contentsOf: String(entry.endTime).utf8)
        line.append(0x09)
        line.append(contentsOf: String(entry.mtime).utf8)
        line.append(0x09)
        line.append(contentsOf: entry.output.utf8)
        line.append(0x09)
        line.append(contentsOf: String(entry.commandHash, radix: 16).utf8)
        line.append(0x0A)
        return line
    }

    /// A whole file of `version` holding the entries, one line each.
    public func encoded(version: Int) -> [UInt8] {
        var bytes = Self.header(version: version)
        for entry in entries { bytes.append(contentsOf: Self.line(for: entry)) }
        return bytes
    }
}
