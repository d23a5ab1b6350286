import Dispatch
import Foundation
import Sequencer
import SequencerProcess

/// Graphviz's `dot`, when it is installed: it lays out the graphs (`dot -Tsvg`). Without it
/// the page draws a plainer graph itself. Layouts are kept by their dot text, a few at a time.
final class Graphviz: Sendable {
    /// The `dot` executable; nil when there is none.
    let executable: String?
    private let kept = Locked<[(text: String, svg: String)]>([])

    init(executable: String?) {
        self.executable = executable
    }

    /// `dot` on the `PATH`, or nil.
    static func find() -> String? { ProgramLookup.companion("dot", besideSelf: false) }

    enum Failure: Error, CustomStringConvertible {
        case missing
        case failed(String)

        var description: String {
            switch self {
            case .missing: "Graphviz is not in use (not installed: apt install graphviz; or --no-graphviz)"
            case .failed(let reason): "dot failed: \(reason)"
            }
        }
    }

    /// The SVG of `text` (from its `<svg` element on).
    func svg(of text: String) async throws(Failure) -> String {
        guard let executable else { throw .missing }
        if let svg = kept.withLock({ $0.first { $0.text == text }?.svg }) { return svg }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, Failure>, Never>) in
            // `dot` is waited for on a thread of its own, never on one of Swift's.
            Thread.detachNewThread { continuation.resume(returning: Self.run(executable, text)) }
        }
        let svg = try result.get()
        kept.withLock { kept in
            kept.append((text, svg))
            if kept.count > 16 { kept.removeFirst() }
        }
        return svg
    }

    private static func run(_ executable: String, _ text: String) -> Result<String, Failure> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failure(.failed("cannot start \(executable): \(error.localizedDescription)"))
        }
        // A layout that takes too long is stopped: the page says so rather than waiting.
        let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: deadline)
        defer { deadline.cancel() }
        // Writing, and reading what it prints on stderr, on threads of their own: no pipe fills.
        let helpers = DispatchGroup()
        let errorText = Locked(Data())
        DispatchQueue.global().async(group: helpers) {
            try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
            try? input.fileHandleForWriting.close()
        }
        DispatchQueue.global().async(group: helpers) {
            let data = (try? errors.fileHandleForReading.readToEnd()) ?? Data()
            errorText.withLock { $0 = data }
        }
        let svg = (try? output.fileHandleForReading.readToEnd()) ?? Data()
        process.waitUntilExit()
        helpers.wait()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let reason = String(decoding: errorText.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(.failed(process.terminationReason == .uncaughtSignal ? "stopped after 20 s" : reason))
        }
        let text = String(decoding: svg, as: UTF8.self)
        guard let start = text.range(of: "<svg") else { return .failure(.failed("no SVG in its output")) }
        return .success(String(text[start.lowerBound...]))
    }
}
