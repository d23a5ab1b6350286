/// The candidate closest to a misspelt word, if one is close enough to be what was meant:
/// at most two edits away and fewer edits than the word has characters.
///
/// - Complexity: O(candidates × word length × candidate length).
func suggestion(for word: String, among candidates: some Sequence<String>) -> String? {
    let limit = min(2, max(1, word.count / 3))
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(word, candidate, limit: limit)
        if distance <= limit, distance < word.count, distance < (best?.distance ?? .max) {
            best = (candidate, distance)
        }
    }
    return best?.candidate
}

/// Levenshtein distance counting a swap of neighbours as one edit; stops early once every path
/// is over `limit` (then returns a number over it).
func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
    let a = Array(a.lowercased()), b = Array(b.lowercased())
    if abs(a.count - b.count) > limit { return limit + 1 }
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var twoBack = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        var rowMinimum = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            var best = min(previous[j] + 1, current[j - 1] + 1, substitution)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                best = min(best, twoBack[j - 2] + 1)
            }
            current[j] = best
            rowMinimum = min(rowMinimum, best)
        }
        if rowMinimum > limit { return limit + 1 }
        (twoBack, previous, current) = (previous, current, twoBack)
    }
    return previous[b.count]
}

/// `; did you mean 'x'?` when a candidate is close, else nothing.
func didYouMean(_ word: String, among candidates: some Sequence<String>) -> String {
    suggestion(for: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
}
