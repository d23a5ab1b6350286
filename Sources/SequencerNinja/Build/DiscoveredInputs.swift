#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inputs a command discovered: the depfile it wrote (`deps = gcc`), or the include lines
/// it printed (`deps = msvc`, taken out of its output), as ninja reads them after the command.
enum DiscoveredInputs {
    struct Failure: Error {
        var message: String
    }

    /// The discovered inputs and what remains of the output.
    static func extract(facts: EdgeFacts, output: [UInt8], keepDepfile: Bool) throws(Failure) -> ([String], [UInt8]) {
        switch facts.deps {
        case "msvc":
            let parsed = ShowIncludesParser.parse(output, prefix: facts.msvcDepsPrefix)
            return (parsed.includes, parsed.remainingOutput)
        case "gcc":
            guard !facts.depfile.isEmpty else { throw Failure(message: "edge with deps=gcc but no depfile makes no sense") }
            let inputs = try readDepfile(facts.depfile)
            if !keepDepfile, unlink(facts.depfile) != 0, errno != ENOENT {
                throw Failure(message: "deleting depfile: \(String(cString: strerror(errno)))\n")
            }
            return (inputs, output)
        case "":
            return ([], output)
        default:
            throw Failure(message: "unknown deps type '\(facts.deps)'")
        }
    }

    /// The inputs a depfile lists, canonical; none when it is missing or empty.
    static func readDepfile(_ path: String) throws(Failure) -> [String] {
        guard let bytes = readWhole(path), !bytes.isEmpty else { return [] }
        let depfile: NinjaDepfile
        do {
            depfile = try NinjaDepfile(parsing: bytes)
        } catch {
            throw Failure(message: "\(path): \(error.message)")
        }
        return depfile.inputs.map { (try? CanonicalPath.canonicalize($0)) ?? $0 }
    }
}
