import Foundation

extension ProgramLookup {
    /// A program that ships with this one (`sequencer-serve` beside `sequencer`, `sequencer`
    /// beside `sequencer-serve`, Graphviz's `dot`): the file of that name in this executable's
    /// directory, else the first on the `PATH`; nil when there is none.
    package static func companion(_ name: String, besideSelf: Bool = true) -> String? {
        if besideSelf, let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let beside = (own as NSString).deletingLastPathComponent + "/" + name
            if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        }
        let path = ProcessInfo.processInfo.environment["PATH"]
        return try? resolve(name, path: path, directory: FileManager.default.currentDirectoryPath)
    }
}
