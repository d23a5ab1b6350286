/// The benchmark's random graph: `count` jobs, each needing up to three earlier jobs.
///
/// Every implementation of the `dag` workload runs this same graph, built by a fixed rule:
/// a 64-bit LCG (`state = state &* 6364136223846793005 &+ 1442695040888963407`, a draw is
/// `state >> 33` taken after advancing, initial state 42); for job `i`, draw `k = r % 4`, then
/// `min(k, i)` fresh draws of `r % i`, dropping duplicates.
///
/// ```swift
/// let dag = RandomDAG(count: 10_000)
/// for need in dag.needs(of: 17) { print(need) }   // indices below 17
/// ```
struct RandomDAG: Sendable {
    /// The number of jobs.
    let count: Int
    /// `needStart[i] ..< needStart[i + 1]` are job i's needs in ``needs``.
    let needStart: [Int32]
    /// Every job's needs, job after job; each need is an earlier job's index.
    let needs: [Int32]

    /// Generates the graph.
    /// - Complexity: O(count).
    init(count: Int, seed: UInt64 = 42) {
        var state = seed
        func draw() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var needStart = [Int32]()
        needStart.reserveCapacity(count + 1)
        needStart.append(0)
        var needs = [Int32]()
        needs.reserveCapacity(count * 3 / 2 + 16)
        for job in 0..<count {
            let k = Int(draw() % 4)
            let first = needs.count
            for _ in 0..<min(k, job) {
                let need = Int32(draw() % UInt64(job))
                if !needs[first...].contains(need) { needs.append(need) }
            }
            needStart.append(Int32(needs.count))
        }
        self.count = count
        self.needStart = needStart
        self.needs = needs
    }

    /// The jobs job `job` needs.
    func needs(of job: Int) -> ArraySlice<Int32> {
        needs[Int(needStart[job])..<Int(needStart[job + 1])]
    }

    /// The number of edges (needs) in the graph.
    var edgeCount: Int { needs.count }

    /// The fraction of jobs that need nothing.
    var rootFraction: Double {
        guard count > 0 else { return 0 }
        let roots = (0..<count).lazy.filter { needStart[$0] == needStart[$0 + 1] }.count
        return Double(roots) / Double(count)
    }
}
