import Foundation

/// File patterns of a job's `inputs`: a plain path, or a glob with `*` (within a directory),
/// `?`, `[abc]`, and `**` (any number of directories).
public enum FilePattern {
    /// Whether `pattern` has glob characters.
    public static func isGlob(_ pattern: String) -> Bool {
        pattern.contains { "*?[".contains($0) }
    }

    /// The files matching `pattern` under `directory` (relative patterns) or anywhere
    /// (absolute ones), as paths in the pattern's form (relative stays relative), sorted.
    /// Hidden files match only a pattern that names them with a leading dot.
    public static func expand(_ pattern: String, in directory: String) -> [String] {
        guard isGlob(pattern), let regex = try? NSRegularExpression(pattern: "^" + regularExpression(pattern) + "$") else {
            return [pattern]
        }
        // Walk from the last directory before the first glob character.
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let fixed = segments.prefix { !isGlob(String($0)) }
        let prefix = fixed.joined(separator: "/")
        let absolute = pattern.hasPrefix("/")
        let root = absolute ? (prefix.isEmpty ? "/" : prefix) : (prefix.isEmpty ? directory : directory + "/" + prefix)
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        // Without `**`, a match is exactly as many levels down as the pattern has segments left.
        let depth = pattern.contains("**") ? Int.max : segments.count - fixed.count
        var matches: [String] = []
        while let relative = walker.nextObject() as? String {
            let candidate = prefix.isEmpty ? relative : prefix + "/" + relative
            let type = walker.fileAttributes?[.type] as? FileAttributeType
            if type == .typeDirectory, walker.level >= depth { walker.skipDescendants() }
            guard type == .typeRegular else { continue }
            let range = NSRange(candidate.startIndex..., in: candidate)
            if regex.firstMatch(in: candidate, range: range) != nil { matches.append(candidate) }
        }
        return matches.sorted()
    }

    /// The paths of `paths` that `pattern` matches (paths in the pattern's form: relative to the
    /// same directory, or absolute), in their order; a plain path matches itself.
    public static func matching(_ pattern: String, among paths: [String]) -> [String] {
        guard isGlob(pattern) else { return paths.filter { $0 == pattern } }
        guard let regex = try? NSRegularExpression(pattern: "^" + regularExpression(pattern) + "$") else { return [] }
        return paths.filter { regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
    }

    /// The pattern as a regular expression over paths.
    static func regularExpression(_ pattern: String) -> String {
        var result = ""
        var characters = Array(pattern)[...]
        var atSegmentStart = true
        while let character = characters.popFirst() {
            switch character {
            case "*" where characters.first == "*":
                characters.removeFirst()
                if characters.first == "/" {
                    characters.removeFirst()
                    result += "(?:[^/.][^/]*/)*"
                    atSegmentStart = true
                    continue
                } else {
                    result += "(?:[^/.][^/]*(?:/[^/.][^/]*)*)?"
                }
            case "*":
                result += atSegmentStart ? "(?:[^/.][^/]*)?" : "[^/]*"
            case "?":
                result += atSegmentStart ? "[^/.]" : "[^/]"
            case "[":
                if let close = characters.firstIndex(of: "]") {
                    var set = String(characters[..<close])
                    if set.hasPrefix("!") { set = "^" + set.dropFirst() }
                    result += "[" + set.replacingOccurrences(of: "\\", with: "\\\\") + "]"
                    characters = characters[characters.index(after: close)...]
                } else {
                    result += "\\["
                }
            default:
                result += NSRegularExpression.escapedPattern(for: String(character))
            }
            atSegmentStart = character == "/"
        }
        return result
    }
}
