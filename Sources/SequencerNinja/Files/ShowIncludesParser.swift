/// ninja's reading of MSVC's `/showIncludes` output (`deps = msvc`), on POSIX.
public enum ShowIncludesParser {
    /// The prefix of include lines when the edge sets no `msvc_deps_prefix` (English `cl.exe`).
    public static let defaultPrefix = "Note: including file: "

    /// Splits a command's output into includes and the rest, as ninja does:
    /// - lines end at CR, LF or CRLF;
    /// - a line that starts with `prefix` (`defaultPrefix` when empty) and has more after it is
    ///   an include: the rest after the prefix and its spaces, canonicalised (`.`, `..`, repeated
    ///   slashes), and dropped when it looks like a system header (its lowercase has "program
    ///   files" or "microsoft visual studio");
    /// - before the first include, a line that ends with `.c`, `.cc`, `.cxx`, `.cpp` or `.c++`
    ///   (any case) is the source file's name, which `cl.exe` echoes, and is dropped;
    /// - every other line is kept, with a LF.
    public static func parse(_ output: [UInt8], prefix: String = "") -> ShowIncludesOutput {
        let prefixBytes = Array((prefix.isEmpty ? defaultPrefix : prefix).utf8)
        var includes = Set<[UInt8]>()
        var remaining: [UInt8] = []
        var seenInclude = false
        var start = 0
        let count = output.count
        while start < count {
            var end = start
            while end < count, output[end] != 0x0A, output[end] != 0x0D { end += 1 }
            let line = output[start..<end]
            if let include = includedPath(inLine: line, prefix: prefixBytes) {
                seenInclude = true
                let canonical = ShowIncludesPathCanonicalizer.canonical(include)
                if !isSystemInclude(canonical) { includes.insert(canonical) }
            } else if !seenInclude, isSourceFileName(line) {
                // The source file's name, which cl.exe prints first.
            } else {
                remaining.append(contentsOf: line)
                remaining.append(0x0A)
            }
            if end < count, output[end] == 0x0D { end += 1 }
            if end < count, output[end] == 0x0A { end += 1 }
            start = end
        }
        let sorted = includes.sorted { $0.lexicographicallyPrecedes($1) }
        return ShowIncludesOutput(includeBytes: sorted, remainingOutput: remaining)
    }

    /// `parse(_:prefix:)` on the UTF-8 bytes of `output`.
    public static func parse(_ output: String, prefix: String = "") -> ShowIncludesOutput {
        parse(Array(output.utf8), prefix: prefix)
    }

    /// The path an include line names: what follows `prefix` (`defaultPrefix` when empty) and the
    /// spaces after it; nil when the line does not start with the prefix, or has nothing after
    /// it (ninja then treats it as an ordinary line).
    public static func includedPath(inLine line: String, prefix: String = "") -> String? {
        let prefixBytes = Array((prefix.isEmpty ? defaultPrefix : prefix).utf8)
        return includedPath(inLine: Array(line.utf8)[...], prefix: prefixBytes).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `path` looks like a system header's (Windows SDK, Visual Studio): ninja leaves
    /// those out of the deps.
    public static func isSystemInclude(_ path: String) -> Bool {
        isSystemInclude(Array(path.utf8))
    }

    /// Whether `line` looks like the source file name `cl.exe` prints before its output.
    public static func isSourceFileName(_ line: String) -> Bool {
        isSourceFileName(Array(line.utf8)[...])
    }

    static func includedPath(inLine line: ArraySlice<UInt8>, prefix: [UInt8]) -> [UInt8]? {
        guard line.count > prefix.count, line.starts(with: prefix) else { return nil }
        var index = line.startIndex + prefix.count
        while index < line.endIndex, line[index] == 0x20 { index += 1 }
        // An empty rest means "no include".
        return index < line.endIndex ? Array(line[index...]) : nil
    }

    static func isSystemInclude(_ path: [UInt8]) -> Bool {
        let lowered = path.map(lowercasedASCII)
        return contains(lowered, Array("program files".utf8)) || contains(lowered, Array("microsoft visual studio".utf8))
    }

    static func isSourceFileName(_ line: ArraySlice<UInt8>) -> Bool {
        let lowered = line.map(lowercasedASCII)
        return [".c", ".cc", ".cxx", ".cpp", ".c++"].contains { suffix in
            let suffix = Array(suffix.utf8)
            return lowered.count >= suffix.count && lowered[(lowered.count - suffix.count)...].elementsEqual(suffix)
        }
    }

    private static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
