/// `compdb -x`: a command that reads its response file (`@FILE`) gets the file's content in
/// its place, newlines made spaces, as the file's content would be evaluated.
enum ResponseFileExpansion {
    /// The command as it is.
    case none
    /// ninja 1.11: only `@FILE`, and only at the first place the file's path appears.
    case ninja111
    /// ninja 1.13 (`compdb-targets`): `@FILE`, and also `-f FILE` and `--option-file=FILE`
    /// when the first of those in the command is right before the path.
    case ninja113

    /// The edge's command, expanded as this mode expands it.
    func command(of edge: NinjaGraph.EdgeID, _ graph: NinjaGraph) throws(ManifestError) -> String {
        let command = try graph.command(of: edge)
        if case .none = self { return command }
        let responseFile = Array(try graph.rspfile(of: edge).utf8)
        guard !responseFile.isEmpty else { return command }
        let bytes = Array(command.utf8)
        guard let index = Self.firstIndex(of: responseFile, in: bytes), index > 0 else { return command }
        var prefixLength: Int
        if bytes[index - 1] == UInt8(ascii: "@") {
            prefixLength = 1
        } else {
            guard case .ninja113 = self else { return command }
            if index >= 3, Self.firstIndex(of: Array("-f ".utf8), in: bytes) == index - 3 {
                prefixLength = 3
            } else if index >= 14, Self.firstIndex(of: Array("--option-file=".utf8), in: bytes) == index - 14 {
                prefixLength = 14
            } else {
                return command
            }
        }
        let content = try graph.evaluate("rspfile_content", of: edge).utf8.map { $0 == 0x0A ? UInt8(ascii: " ") : $0 }
        let expanded = bytes[..<(index - prefixLength)] + content + bytes[(index + responseFile.count)...]
        return String(decoding: expanded, as: UTF8.self)
    }

    /// Where `needle` first appears in `haystack`.
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty ? 0 : nil }
        let first = needle[0]
        var start = 0
        while start <= haystack.count - needle.count {
            guard let candidate = haystack[start...(haystack.count - needle.count)].firstIndex(of: first) else { return nil }
            if haystack[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            start = candidate + 1
        }
        return nil
    }
}
