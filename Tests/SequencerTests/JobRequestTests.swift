@testable import Sequencer
import Testing

/// The `add` overloads build their jobs through ``JobRequest``: a body returning nothing is kept
/// as it is, a body returning a value is wrapped to return it.
@Suite struct JobRequestTests {
    @Test func aBodyReturningNothingIsNotWrapped() throws {
        var workflow = Workflow()
        try workflow.add("void") { _ in }
        try workflow.add("value", timeout: .seconds(5)) { _ in 1 }
        #expect(workflow.bodies[0] is VoidJobBody)
        #expect(workflow.bodies[1] is TypedJobBody<Int>)
        #expect(!workflow.hasValue(0) && workflow.hasValue(1))
        #expect(workflow.optionSets == [JobOptions(timeout: .seconds(5))], "only the job with a timeout has options")
    }

    /// Jobs added in a row with the same timeout and retry policy share one entry, whatever
    /// their keys; options that differ start another. Options equal to the last entry's are not
    /// checked again, but a job's own key still is.
    @Test func jobsAddedInARowWithTheSameOptionsShareAnEntry() throws {
        let retry = RetryPolicy.fixed(attempts: 3, delay: .milliseconds(5))
        let picky = RetryPolicy.fixed(attempts: 3, delay: .milliseconds(5)).retrying(when: { _ in true })
        var workflow = Workflow()
        try workflow.add("a", timeout: .seconds(5)) { _ in }
        try workflow.add("b", timeout: .seconds(5), coalesce: "b") { _ in }
        try workflow.add("c", timeout: .seconds(5), retry: retry) { _ in }
        try workflow.add("d", timeout: .seconds(5), retry: retry) { _ in }
        try workflow.add("e", timeout: .seconds(5), retry: picky) { _ in }
        try workflow.add("f", coalesce: "f") { _ in }
        try workflow.add("g", timeout: .seconds(5), retry: picky) { _ in }
        try workflow.add("h", timeout: .seconds(6), retry: picky) { _ in }
        #expect(workflow.optionSets == [
            JobOptions(timeout: .seconds(5)), JobOptions(timeout: .seconds(5), retry: retry),
            JobOptions(timeout: .seconds(5), retry: picky), JobOptions(timeout: .seconds(6), retry: picky),
        ])
        #expect(workflow.optionRefs == [0, 0, 1, 1, 2, -1, 2, 3])
        let error = #expect(throws: WorkflowError.self) { try workflow.add("i", timeout: .seconds(6), retry: picky, coalesce: "") { _ in } }
        #expect(error?.code == .invalidOption && error?.message == "job 'i' has an empty coalescing key")
        let negative = #expect(throws: WorkflowError.self) { try workflow.add("j", timeout: .seconds(-6), retry: picky) { _ in } }
        #expect(negative?.message == "job 'j' has timeout -6.0 seconds; a timeout must be positive")
        #expect(workflow.count == 8 && workflow.optionSets.count == 4, "a rejected job adds nothing")
    }

    @Test func optionsAtTheirDefaultsAreNotStored() {
        #expect(JobRequest { _ in }.options == nil)
        let keyed = JobRequest(coalesce: "k") { _ in "text" }
        #expect(keyed.options == JobOptions(coalesce: "k", valueType: ObjectIdentifier(String.self)))
        #expect(keyed.hasValue && keyed.body is TypedJobBody<String>)
    }
}
