/// Tracks that slices are packed onto so that no two slices on a track overlap: each slice
/// goes on the first track that is free when it starts, and a new track is opened when none is.
/// Placing slices in order of their start uses as few tracks as the most slices that overlap
/// at any moment (a lane of width 2 fills at most 2 tracks).
struct TrackPacking {
    /// When the last slice on each track ends.
    private(set) var ends: [Int64] = []

    /// Places a slice; slices must come in order of their start.
    ///
    /// - Parameters:
    ///   - start: when the slice starts.
    ///   - end: when it ends, not before `start`.
    /// - Returns: the track, counting from 0.
    mutating func place(start: Int64, end: Int64) -> Int {
        if let track = ends.firstIndex(where: { $0 <= start }) {
            ends[track] = end
            return track
        }
        ends.append(end)
        return ends.count - 1
    }
}
