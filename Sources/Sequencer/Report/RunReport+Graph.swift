extension RunReport {
    /// The jobs that the job at `position` of ``outcomes`` needs, as positions in ``outcomes``.
    ///
    /// ```swift
    /// for (position, outcome) in report.outcomes.enumerated() {
    ///     let needs = report.needs(ofJobAt: position).map { report.outcomes[$0].id }
    ///     print(outcome.id, "needs", needs)
    /// }
    /// ```
    ///
    /// - Parameter position: A position in ``outcomes``.
    /// - Returns: The positions of its needs, in the order they were given; empty for a
    ///   position out of range.
    public func needs(ofJobAt position: Int) -> [Int] {
        guard outcomes.indices.contains(position) else { return [] }
        return record.needs(of: position)
    }

    /// The name of the lane of the job at `position` of ``outcomes``.
    ///
    /// - Parameter position: A position in ``outcomes``.
    /// - Returns: The lane's name; nil for a job in no lane, or a position out of range.
    public func lane(ofJobAt position: Int) -> String? {
        guard outcomes.indices.contains(position) else { return nil }
        return record.lane(of: position).map { record.laneNames[$0] }
    }
}
