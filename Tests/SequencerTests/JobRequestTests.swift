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

    @Test func optionsAtTheirDefaultsAreNotStored() {
        #expect(JobRequest { _ in }.options == nil)
        let keyed = JobRequest(coalesce: "k") { _ in "text" }
        #expect(keyed.options == JobOptions(coalesce: "k", valueType: ObjectIdentifier(String.self)))
        #expect(keyed.hasValue && keyed.body is TypedJobBody<String>)
    }
}
