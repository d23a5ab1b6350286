/// Ninja's path canonicalisation (POSIX): every path a manifest or a dyndep file names is
/// stored this way, so that `./a`, `a` and `b/../a` are one node.
///
/// `.` components go, `..` removes the component before it (or stays, at the start of a
/// relative path), runs of `/` are one; a leading `/` stays. What is left of nothing is `.`,
/// and what is left of a root alone is the empty string (`/` and `/a/..` become `""`, as in
/// ninja). Like ninja, it gives up on a path that keeps more than 60 components.
public enum CanonicalPath {
    /// The most components a canonical path may have (ninja's `kMaxPathComponents`).
    public static let maximumComponents = 60

    /// `path`, canonicalised.
    ///
    /// - Throws: A fatal `ManifestError` (`path has too many components : ...`) when more than
    ///   60 components are left.
    public static func canonicalize(_ path: String) throws(ManifestError) -> String {
        var bytes = Array(path.utf8)
        try canonicalize(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Canonicalises `bytes` in place.
    static func canonicalize(_ bytes: inout [UInt8]) throws(ManifestError) {
        let length = bytes.count
        if length == 0 { return }
        // A 0 after the path, as ninja's strings have: the last component copies it.
        bytes.append(0)
        var newLength = 0
        var tooMany = false
        bytes.withUnsafeMutableBufferPointer { buffer in
            newLength = canonicalize(buffer, length: length, tooMany: &tooMany)
        }
        if tooMany {
            // The buffer as it stands, up to its 0: what ninja prints.
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            let text = String(decoding: bytes[..<end], as: UTF8.self)
            throw ManifestError("path has too many components : \(text)", isFatal: true)
        }
        bytes.removeSubrange(newLength...)
    }

    /// The canonical length of the `length` bytes at the start of `path` (followed by a 0),
    /// rewritten in place.
    private static func canonicalize(_ path: UnsafeMutableBufferPointer<UInt8>, length end: Int, tooMany: inout Bool) -> Int {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: maximumComponents) { components in
            // Where each kept component starts in the output.
            var componentCount = 0
            var source = 0
            var destination = 0
            if path[0] == Byte.slash {
                source += 1
                destination += 1
            }
            while source < end {
                if path[source] == Byte.dot {
                    if source + 1 == end || path[source + 1] == Byte.slash {
                        // A `.` component.
                        source += 2
                        continue
                    }
                    if path[source + 1] == Byte.dot && (source + 2 == end || path[source + 2] == Byte.slash) {
                        // A `..` component: remove the one before, or keep it if there is none.
                        if componentCount > 0 {
                            componentCount -= 1
                            destination = components[componentCount]
                            source += 3
                        } else {
                            for _ in 0..<3 {
                                path[destination] = path[source]
                                destination += 1
                                source += 1
                            }
                        }
                        continue
                    }
                }
                if path[source] == Byte.slash {
                    source += 1
                    continue
                }
                if componentCount == maximumComponents {
                    tooMany = true
                    return end
                }
                components[componentCount] = destination
                componentCount += 1
                while source != end && path[source] != Byte.slash {
                    path[destination] = path[source]
                    destination += 1
                    source += 1
                }
                // The `/`, or the 0 after the path, as ninja copies it.
                path[destination] = path[source]
                destination += 1
                source += 1
            }
            if destination == 0 {
                path[0] = Byte.dot
                path[1] = 0
                destination = 2
            }
            return destination - 1
        }
    }
}
