#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension NinjaDepsLog {
    /// Records that `output`, at `mtime`, was found to read `inputs` (canonical paths, in the
    /// order found), and returns the bytes to append to the file: a path record for each path
    /// that has no id yet (the output first, then the inputs in order), then the deps record.
    /// Returns no bytes when the log already has this very list, as ninja writes nothing then.
    ///
    /// - Throws: `ERANGE` when a record would exceed `maximumRecordSize` (ninja: "Error writing
    ///   to deps log: Numerical result out of range"), `EINVAL` for an empty path; the log is
    ///   unchanged then.
    public mutating func record(output: String, mtime: Int64, inputs: [String]) throws(NinjaLogFileError) -> [UInt8] {
        if 4 * (3 + inputs.count) > Self.maximumRecordSize { throw NinjaLogFileError(code: ERANGE) }
        // The ids the paths have; the new paths must fit in a record before anything changes.
        let outputID = id(of: output)
        if outputID == nil { try Self.checkNewPath(output) }
        var inputIDs: [Int32] = []
        inputIDs.reserveCapacity(inputs.count)
        var newInputs = false
        for input in inputs {
            if let id = id(of: input) {
                inputIDs.append(id)
            } else {
                try Self.checkNewPath(input)
                inputIDs.append(-1)
                newInputs = true
            }
        }

        var bytes: [UInt8] = []
        let madeChange = outputID == nil || newInputs
        let assignedOutputID = outputID ?? identify(output, into: &bytes)
        if newInputs {
            for (position, id) in inputIDs.enumerated() where id < 0 {
                // An input named twice gets its id the first time.
                inputIDs[position] = self.id(of: inputs[position]) ?? identify(inputs[position], into: &bytes)
            }
        }

        let deps = Deps(mtime: mtime, inputIDs: inputIDs)
        if !madeChange, self.deps(ofID: assignedOutputID) == deps { return [] }
        Self.appendDepsRecord(outputID: assignedOutputID, deps: deps, to: &bytes)
        setDeps(deps, ofID: assignedOutputID)
        return bytes
    }

    private static func checkNewPath(_ path: String) throws(NinjaLogFileError) {
        let length = path.utf8.count
        if length == 0 { throw NinjaLogFileError(code: EINVAL) }
        if length + (4 - length % 4) % 4 + 4 > maximumRecordSize { throw NinjaLogFileError(code: ERANGE) }
    }

    private mutating func identify(_ path: String, into bytes: inout [UInt8]) -> Int32 {
        let id = appendPath(path)
        Self.appendPathRecord(path: path, id: id, to: &bytes)
        return id
    }

    static func appendPathRecord(path: String, id: Int32, to bytes: inout [UInt8]) {
        let length = path.utf8.count
        let padding = (4 - length % 4) % 4
        appendWord(UInt32(length + padding + 4), to: &bytes)
        bytes.append(contentsOf: path.utf8)
        bytes.append(contentsOf: repeatElement(0, count: padding))
        appendWord(~UInt32(bitPattern: id), to: &bytes)
    }

    static func appendDepsRecord(outputID: Int32, deps: Deps, to bytes: inout [UInt8]) {
        appendWord(UInt32(4 * (3 + deps.inputIDs.count)) | 0x8000_0000, to: &bytes)
        appendWord(UInt32(bitPattern: outputID), to: &bytes)
        let mtime = UInt64(bitPattern: deps.mtime)
        appendWord(UInt32(truncatingIfNeeded: mtime), to: &bytes)
        appendWord(UInt32(truncatingIfNeeded: mtime >> 32), to: &bytes)
        for id in deps.inputIDs { appendWord(UInt32(bitPattern: id), to: &bytes) }
    }

    private static func appendWord(_ word: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The log with only the deps lists of the outputs `isLive` keeps, its paths renumbered, and
    /// the whole file that holds it: what ninja writes when it recompacts (the same bytes).
    /// ninja's `isLive` is "an edge of the manifest writes it, and that edge has `deps`".
    public func recompacted(isLive: (String) -> Bool) -> (log: NinjaDepsLog, file: [UInt8]) {
        var fresh = NinjaDepsLog()
        var file = Self.header
        for (id, deps) in depsByID.enumerated() {
            guard let deps, isLive(paths[id]) else { continue }
            let inputs = deps.inputIDs.map { paths[Int($0)] }
            // The records were read or recorded within the limits, so this does not throw.
            if let bytes = try? fresh.record(output: paths[id], mtime: deps.mtime, inputs: inputs) {
                file.append(contentsOf: bytes)
            }
        }
        fresh.loadedRecordCount = fresh.outputs.count
        fresh.loadedOutputCount = fresh.loadedRecordCount
        return (fresh, file)
    }
}
