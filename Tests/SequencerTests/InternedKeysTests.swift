@testable import Sequencer
import Testing

/// Keys are numbered in batches as jobs are added, and those added since the last batch when
/// the workflow is compiled (see `InternedKeys`): the numbers must be the same as one at a time.
@Suite struct InternedKeysTests {
    /// `count` jobs whose keys repeat every `period` jobs (`k0`, `k1`, ..., then `k0` again);
    /// job `odd` returns another type.
    private func workflow(count: Int, period: Int, odd: Int? = nil) throws -> Workflow {
        var workflow = Workflow()
        for job in 0..<count {
            if job == odd {
                try workflow.add(JobID("j\(job)"), coalesce: "k\(job % period)") { _ in "text" }
            } else {
                try workflow.add(JobID("j\(job)"), coalesce: job % 7 == 3 ? nil : "k\(job % period)") { _ in 1 }
            }
        }
        return workflow
    }

    /// Over batch boundaries and into the tail not yet batched (1,000 jobs: three batches of 256
    /// and a tail of 232), each key is numbered by its first job, in the order keys first appear.
    @Test(arguments: [1, 300, 600, 2_000])
    func keysAreNumberedInTheOrderTheyFirstAppear(period: Int) throws {
        let plan = try Plan(workflow(count: 1_000, period: period))
        var numbers: [String: Int32] = [:]
        var firstJobs: [String: JobID] = [:]
        for job in 0..<1_000 {
            let key = plan.keys.key(of: job)
            guard job % 7 != 3 else {
                #expect(key == nil, "j\(job) has no key")
                continue
            }
            let name = "k\(job % period)"
            let expected = numbers[name] ?? Int32(numbers.count)
            numbers[name] = expected
            if firstJobs[name] == nil { firstJobs[name] = JobID("j\(job)") }
            #expect(key == expected, "j\(job) with \(name)")
        }
        #expect(plan.keys.count == numbers.count)
        let byName = plan.keys.byName(ids: plan.ids)
        #expect(byName.count == numbers.count)
        for (name, number) in numbers {
            #expect(byName[name]?.id == number)
            #expect(byName[name]?.firstJob == firstJobs[name])
        }
    }

    /// A job whose type differs from its key's first job is reported, whether it was numbered in
    /// a batch or in the tail.
    @Test(arguments: [10, 700, 990])
    func aTypeThatDiffersFromTheKeysFirstJobIsReported(odd: Int) throws {
        let workflow = try workflow(count: 1_000, period: 5, odd: odd)
        let error = #expect(throws: WorkflowError.self) { try workflow.validate() }
        #expect(error?.jobs.contains(JobID("j\(odd)")) == true)
    }
}
