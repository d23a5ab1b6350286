import Foundation

/// The directory a job's paths are written relative to before they are hashed, so that two
/// checkouts of one project at different absolute paths share their results (sccache#35).
///
/// ```swift
/// let root = ProjectRoot("/home/ada/project")
/// root.relative("/home/ada/project/src/a.c")                   // "src/a.c"
/// root.relativeText("cc -I/home/ada/project/include -c a.c")   // "cc -Iinclude -c a.c"
/// ```
public struct ProjectRoot: Sendable, Hashable {
    /// Absolute and standard, without a trailing slash.
    public let path: String

    public init(_ path: String) {
        var standard = URL(fileURLWithPath: path).standardizedFileURL.path
        while standard.count > 1, standard.hasSuffix("/") { standard.removeLast() }
        self.path = standard
    }

    /// `path` relative to the root when it is under it, `.` for the root itself, and as it is
    /// otherwise (a system header, a tool): a relative path is taken as relative already.
    public func relative(_ path: String) -> String {
        guard path.hasPrefix("/"), self.path != "/" else { return path }
        let standard = ProjectRoot(path).path
        if standard == self.path { return "." }
        guard standard.hasPrefix(self.path + "/") else { return standard }
        return String(standard.dropFirst(self.path.count + 1))
    }

    /// `text` (a command line, a variable's value, a file name that holds a path, as CMake's
    /// object files for sources outside its tree do) with the root's absolute path written
    /// relative wherever it appears: `ROOT/src` becomes `src`, and `ROOT` alone `.`. A longer
    /// name that only starts like the root (`ROOT2/x`) is left as it is.
    public func relativeText(_ text: String) -> String {
        guard path != "/", text.contains(path) else { return text }
        var result = ""
        var rest = Substring(text)
        while let found = rest.range(of: path) {
            result += rest[..<found.lowerBound]
            let after = rest[found.upperBound...]
            if after.hasPrefix("/") {
                rest = after.dropFirst()
            } else if let next = after.first, Self.continuesName(next) {
                result += path
                rest = after
            } else {
                result += "."
                rest = after
            }
        }
        return result + rest
    }

    /// Whether `character` after the root's path means the path goes on into a longer name.
    private static func continuesName(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || "-_.+@~".contains(character)
    }
}
