import Testing
import Sequencer

@Test func smoke() async throws {
    var w = Workflow()
    w.lane("net", width: 2)
    let a = try w.add("a") { _ in 1 }
    let b = try w.add("b", needs: ["a"], lane: "net") { ctx in try await ctx.value(of: a) + 1 }
    try w.add("c", needs: ["a", "b"]) { ctx in _ = try await ctx.value(of: b) }
    let r = try await w.start().report()
    #expect(r.status == .succeeded)
    #expect(r.value(of: b) == 2)
    #expect(r.criticalPath == ["a", "b", "c"])
    var big = Workflow()
    for i in 0..<100_000 { try big.add(JobID(String(i)), needs: i > 0 ? [JobID(String(i / 2))] : []) { _ in } }
    let clock = ContinuousClock()
    let t = clock.now
    let rr = try await big.start().report()
    print("100k", clock.now - t, rr.status)
    #expect(rr.count(.succeeded) == 100_000)
}
