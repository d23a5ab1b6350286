import Foundation
import Yams

/// Templates: a job with `for` stands for one job per item, over a list or over files.
///
/// ```yaml
/// jobs:
///   compile-${stem}:
///     for: { files: "src/*.c", exclude: "src/test_*.c" }   # each file is an input of its job
///     run: cc -c ${item} -o build/${stem}.o
///     outputs: [build/${stem}.o]
///   test-${item}:
///     for: [unit, integration]
///     run: ./run-tests ${item}
/// ```
extension WorkflowFile {
    static let forKeys = ["files", "exclude"]

    /// What a template ranges over.
    struct Template {
        /// The items, in order: the list as written, or the files (sorted within each pattern).
        var items: [String]
        /// The files' patterns, when it ranges over files.
        var listing: FileListing?
        /// Where `for` is written.
        var location: SourceLocation
        /// The `exclude` patterns that match none of the files `files` matches (a typo, most
        /// likely), with where each is written.
        var idleExclusions: [(pattern: String, location: SourceLocation)] = []
    }

    /// The names a template's item defines: `${item}` (as written, or the file's path),
    /// `${file}` (its last component), `${stem}` (that without its extension), `${dir}` (the
    /// directory, `.` for none), `${ext}` (the extension, without its dot), and `${id}` (the
    /// path without its extension, `/` written `-`, leading `/`, `.` and `..` left out: a
    /// job name that tells `src/util.c` and `lib/util.c` apart).
    ///
    /// `src/lib/zstd.c` gives `zstd.c`, `zstd`, `src/lib`, `c` and `src-lib-zstd`; `.profile`
    /// has no extension.
    static func templateValues(of item: String) -> [String: String] {
        let slash = item.lastIndex(of: "/")
        let file = slash.map { String(item[item.index(after: $0)...]) } ?? item
        let directory = slash.map { String(item[..<$0]) } ?? "."
        var stem = file, ext = ""
        if let dot = file.lastIndex(of: "."), dot != file.startIndex {
            stem = String(file[..<dot])
            ext = String(file[file.index(after: dot)...])
        }
        let path = (slash.map { String(item[..<$0]) + "/" } ?? "") + stem
        let id = path.split(separator: "/").filter { $0 != "." && $0 != ".." }.joined(separator: "-")
        return ["item": item, "file": file, "stem": stem, "dir": directory.isEmpty ? "/" : directory, "ext": ext, "id": id]
    }

    /// The template a job's `for` describes; nil (with errors) when it is malformed.
    /// - Parameters:
    ///   - node: the value of `for`.
    ///   - directory: where file patterns start from (the workflow file's directory).
    static func template(
        _ node: Node, of job: String, directory: String, vars: Substitution, reader: inout NodeReader
    ) -> Template? {
        let what = "'for' of job '\(job)'"
        let location = reader.location(of: node)
        if node.sequence != nil {
            guard let items = reader.strings(node, what) else { return nil }
            return Template(items: items.map { reader.expanded($0.0, of: $0.1, what, by: vars, as: .command) }, location: location)
        }
        guard node.mapping != nil else {
            reader.error("\(what) must be a list of items or '{ files: PATTERN }', found \(reader.describe(node))", at: location)
            return nil
        }
        guard let options = reader.entries(of: node, what) else { return nil }
        var patterns: [String] = [], excluded: [String] = [], exclusionLocations: [SourceLocation] = []
        for option in reader.checkKeys(options, allowed: forKeys, in: what) {
            let name = "'\(option.key)' of \(what)"
            let strings = reader.strings(option.value, name) ?? []
            let values = strings.map { reader.expanded($0.0, of: $0.1, name, by: vars, as: .path) }
            if option.key == "files" {
                patterns = values
            } else {
                excluded = values
                exclusionLocations = strings.map { reader.location(of: $0.1) }
            }
        }
        guard options.contains(where: { $0.key == "files" }) else {
            reader.error("\(what) needs 'files' (a pattern such as \"src/*.c\", or a list of them)", at: location)
            return nil
        }
        let included = listFiles(patterns, excluding: [], in: directory)
        let listing = FileListing(patterns: patterns, excluded: excluded, files: listFiles(patterns, excluding: excluded, in: directory))
        var template = Template(items: listing.files, listing: listing, location: location)
        // With no file at all, the template's own warning says so.
        if !included.isEmpty {
            for (pattern, place) in zip(excluded, exclusionLocations) where FilePattern.matching(pattern, among: included).isEmpty {
                template.idleExclusions.append((pattern, place))
            }
        }
        return template
    }

    /// The files `patterns` match under `directory`, in pattern order (each pattern's sorted),
    /// without repeats and without those `excluded` matches.
    static func listFiles(_ patterns: [String], excluding excluded: [String], in directory: String) -> [String] {
        var seen: Set<String> = []
        var files = patterns.flatMap { FilePattern.expand($0, in: directory) }.filter { seen.insert($0).inserted }
        for pattern in excluded {
            let matched = Set(FilePattern.matching(pattern, among: files))
            files.removeAll { matched.contains($0) }
        }
        return files
    }

    /// Whether the files templates range over are still those the file was read with (a new
    /// source file makes a new job, so a compiled copy must not be used).
    public func listingsAreCurrent() -> Bool {
        listings.allSatisfy { $0.isCurrent(in: directory) }
    }

    /// Whether `name`, a job name with `${…}` (a template's), could be matched by the need
    /// pattern `pattern`: each substitution stands for a word.
    static func family(_ template: String, matches pattern: String) -> Bool {
        var example = ""
        var rest = Substring(template)
        while let start = rest.range(of: "${") {
            example += rest[..<start.lowerBound] + "x"
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "}") else { break }
            rest = rest[rest.index(after: end)...]
        }
        example += rest
        return !FilePattern.matching(pattern, among: [example]).isEmpty
    }
}
