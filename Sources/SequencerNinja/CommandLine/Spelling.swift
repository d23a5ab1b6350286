/// ninja's "did you mean" suggestions: the known word within an edit distance of 3 (counting a
/// replacement as one edit), the first of the nearest.
enum Spelling {
    static let maximumDistance = 3

    static func closest(to word: String, among known: [String]) -> String? {
        var best: (word: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(Array(word.utf8), Array(candidate.utf8), limit: maximumDistance)
            if distance <= maximumDistance, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.word
    }

    /// The Levenshtein distance, or more than `limit` once it is known to exceed it.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...max(1, b.count) where j <= b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
