import Foundation

/// A duration for people, in the unit that fits: `5ms` (under a tenth of a second), `0.4s`,
/// `1.2s`, `42s`, `3m20s`, `1h05m`; `<1ms` for less than half a millisecond but more than none. The command line and the web
/// page (whose script does the same, see `sequencer serve`) both write durations this way.
///
/// ```swift
/// durationText(seconds: 0.005)  // "5ms"
/// durationText(seconds: 200)    // "3m20s"
/// ```
package func durationText(seconds value: Double) -> String {
    let seconds = value.isFinite ? max(0, value) : 0
    if seconds == 0 { return "0ms" }
    let milliseconds = (seconds * 1000).rounded()
    if milliseconds < 1 { return "<1ms" }
    if milliseconds < 100 { return "\(Int(milliseconds))ms" }
    let tenths = (seconds * 10).rounded()
    if tenths < 100 { return String(format: "%.1fs", tenths / 10) }
    let whole = Int(seconds.rounded())
    if whole < 60 { return "\(whole)s" }
    if whole < 3600 { return String(format: "%dm%02ds", whole / 60, whole % 60) }
    let minutes = Int((seconds / 60).rounded())
    return String(format: "%dh%02dm", minutes / 60, minutes % 60)
}
