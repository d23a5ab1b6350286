import SequencerTestHelpers
import Testing

@testable import Sequencer

/// `NameIndex` against a dictionary, as call sequences: the index of added jobs inserts,
/// replaces and forgets names (a queue reuses an ID, then forgets the oldest jobs), and a
/// removal moves entries back along their probe.
@Suite struct NameIndexTests {
    /// A random mix of claims, replacements and removals over a few hundred names, in a table
    /// that grows from empty: after every call, each name is found where the dictionary says.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(state: seed)
        var index = NameIndex<JobID>()
        var model: [JobID: Int32] = [:]
        var names: [JobID] = []  // the name at each position ever recorded
        let pool = (0..<300).map { JobID("job-\($0)") }
        for step in 0..<4000 {
            let id = pool[random.below(pool.count)]
            let position = Int32(names.count)
            let known = names
            switch random.next() % 3 {
            case 0:
                names.append(id)
                let earlier = index.insert(position, named: id) { known[Int($0)] }
                #expect(earlier == model[id], "step \(step): claim \(id)")
                if earlier == nil { model[id] = position }
            case 1:
                names.append(id)
                index.update(position, named: id) { known[Int($0)] }
                model[id] = position
            default:
                guard let recorded = model[id] else {
                    // Not recorded: nothing changes. (No name is at this position.)
                    index.remove(id, at: Int32.max)
                    #expect(index.count == model.count, "step \(step): removed \(id), which was not there")
                    continue
                }
                // Removing at a position the name had before leaves it where it is now.
                if let older = names.indices.first(where: { names[$0] == id && Int32($0) != recorded }) {
                    index.remove(id, at: Int32(older))
                    #expect(index.find(id) { names[Int($0)] } == recorded, "step \(step): kept \(id)")
                }
                index.remove(id, at: recorded)
                model[id] = nil
            }
            #expect(index.count == model.count, "step \(step)")
            for name in pool where index.find(name, name: { names[Int($0)] }) != model[name] {
                Issue.record("step \(step): \(name) found at \(String(describing: index.find(name) { names[Int($0)] })), expected \(String(describing: model[name]))")
                return
            }
        }
    }

    /// Positions are any Int32, as a queue's job numbers wrap: -1 and the extremes are kept
    /// apart from an empty slot.
    @Test func keepsEveryPosition() {
        var index = NameIndex<JobID>()
        let positions: [Int32] = [-1, 0, Int32.max, Int32.min, -2]
        let names = Dictionary(uniqueKeysWithValues: positions.map { ($0, JobID("at \($0)")) })
        for position in positions {
            #expect(index.insert(position, named: names[position] ?? "") { names[$0] ?? "" } == nil)
        }
        for position in positions {
            #expect(index.find(names[position] ?? "") { names[$0] ?? "" } == position)
        }
        index.remove(names[-1] ?? "", at: -1)
        #expect(index.find(names[-1] ?? "") { names[$0] ?? "" } == nil)
        #expect(index.find(names[Int32.max] ?? "") { names[$0] ?? "" } == Int32.max)
        #expect(index.count == positions.count - 1)
    }
}
