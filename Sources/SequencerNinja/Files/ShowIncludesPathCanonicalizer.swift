/// ninja's path canonicalisation on POSIX, on bytes, for the paths `/showIncludes` lines name:
/// `.` components and repeated slashes go, `..` removes the component before it (and stays when
/// there is none), a leading `/` stays, a trailing one goes, and nothing left is `.` (but `/`
/// alone, or a leading `/` whose components all went, is the empty path, as in ninja 1.11).
/// Backslashes are not separators (ninja treats them as such only on Windows).
///
/// ninja stops with "path has too many components" past 60 components; this has no limit.
enum ShowIncludesPathCanonicalizer {
    static func canonical(_ path: [UInt8]) -> [UInt8] {
        guard !path.isEmpty else { return path }
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        var result: [UInt8] = []
        result.reserveCapacity(path.count)
        // Where each component kept so far starts in `result`.
        var componentStarts: [Int] = []
        var index = 0
        let end = path.count
        if path[0] == slash {
            result.append(slash)
            index = 1
        }
        while index < end {
            if path[index] == slash {
                index += 1
                continue
            }
            var componentEnd = index
            while componentEnd < end, path[componentEnd] != slash { componentEnd += 1 }
            let length = componentEnd - index
            if length == 1, path[index] == dot {
                index = componentEnd + 1
                continue
            }
            if length == 2, path[index] == dot, path[index + 1] == dot {
                if let start = componentStarts.popLast() {
                    result.removeSubrange(start...)
                } else {
                    result.append(contentsOf: [dot, dot, slash])
                }
                index = componentEnd + 1
                continue
            }
            componentStarts.append(result.count)
            result.append(contentsOf: path[index..<componentEnd])
            result.append(slash)
            index = componentEnd + 1
        }
        // Nothing left is ".". Otherwise the last byte goes: the slash after the last component,
        // or the leading slash when nothing follows it (ninja turns "/" and "/a/.." into "").
        if result.isEmpty { return [dot] }
        result.removeLast()
        return result
    }
}
