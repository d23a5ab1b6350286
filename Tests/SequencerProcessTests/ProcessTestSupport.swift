#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SequencerTestHelpers
import SequencerTestSupport

/// A `PATH` for test commands.
let testPath = "/usr/bin:/bin"

/// Waits (up to 5 s) for the file `name` in `directory` to hold a full line, as written by `echo $x > name`.
///
/// - Returns: The line without its newline, or `nil` if it did not come.
func line(_ name: String, in directory: TemporaryDirectory) async -> String? {
    var text: String?
    _ = await eventually {
        text = directory.read(name)
        return text?.hasSuffix("\n") == true
    }
    guard let text, text.hasSuffix("\n") else { return nil }
    return String(text.dropLast())
}
