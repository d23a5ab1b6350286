import Foundation
import SequencerQueue

/// The last hour of a queue as an SVG drawn by the server (no script, no CDN): a bar a minute,
/// the jobs that succeeded below those that failed, and those cancelled or skipped on top.
struct QueueChart {
    static let minute: Int64 = 60_000
    static let minutes = 60

    let endings: [QueueEndings]
    let now: Int64

    /// The start of the first minute shown: the chart ends with the minute `now` is in.
    static func firstMinute(now: Int64) -> Int64 { (now / minute - Int64(minutes - 1)) * minute }

    /// The count of each minute shown, by what the bar shows of it.
    var bars: [(start: Int64, succeeded: Int, failed: Int, other: Int)] {
        let first = Self.firstMinute(now: now)
        let byStart = Dictionary(endings.map { ($0.start, $0.counts) }, uniquingKeysWith: { a, _ in a })
        return (0..<Self.minutes).map { index in
            let start = first + Int64(index) * Self.minute
            let counts = byStart[start] ?? [:]
            return (start, counts[.succeeded] ?? 0, counts[.failed] ?? 0, (counts[.cancelled] ?? 0) + (counts[.skipped] ?? 0))
        }
    }

    func svg() -> String {
        let bars = bars
        let width = 12, height = 120, top = 14, left = 36
        let highest = max(1, bars.map { $0.succeeded + $0.failed + $0.other }.max() ?? 0)
        let totals = bars.reduce(into: (0, 0, 0)) { $0.0 += $1.succeeded; $0.1 += $1.failed; $0.2 += $1.other }
        var svg = """
            <svg id="throughput" class="chart" xmlns="http://www.w3.org/2000/svg" width="\(left + width * bars.count + 8)" \
            height="\(top + height + 22)" role="img" data-succeeded="\(totals.0)" data-failed="\(totals.1)" data-other="\(totals.2)" \
            aria-label="Jobs ended each minute of the last hour: \(totals.0) succeeded, \(totals.1) failed, \(totals.2) cancelled or skipped">
            <line x1="\(left)" y1="\(top + height)" x2="\(left + width * bars.count)" y2="\(top + height)" stroke="#b9c1d0"/>
            <text x="\(left - 4)" y="\(top + 4)" text-anchor="end" font-size="10" fill="#5b6475">\(highest)</text>
            <text x="\(left - 4)" y="\(top + height)" text-anchor="end" font-size="10" fill="#5b6475">0</text>

            """
        for (index, bar) in bars.enumerated() {
            let x = left + index * width + 1
            var y = top + height
            for (count, colour, what) in [(bar.succeeded, "#2e9e5b", "succeeded"), (bar.failed, "#d14343", "failed"), (bar.other, "#9a8fb0", "other")]
            where count > 0 {
                let tall = max(1, count * height / highest)
                y -= tall
                svg += """
                    <rect class="\(what)" x="\(x)" y="\(y)" width="\(width - 2)" height="\(tall)" fill="\(colour)" data-count="\(count)">\
                    <title>\(Self.clock(bar.start)): \(count) \(what == "other" ? "cancelled or skipped" : what)</title></rect>

                    """
            }
        }
        for (index, label) in [(0, "−60 min"), (30, "−30 min"), (bars.count - 1, "now")] {
            svg += "<text x=\"\(left + index * width + width / 2)\" y=\"\(top + height + 16)\" text-anchor=\"middle\" font-size=\"10\" fill=\"#5b6475\">\(label)</text>\n"
        }
        return svg + "</svg>"
    }

    /// `HH:mm` in the server's time zone.
    static func clock(_ milliseconds: Int64) -> String {
        String(HTML.time(milliseconds * 1_000_000).split(separator: " ").last?.prefix(5) ?? "")
    }
}
