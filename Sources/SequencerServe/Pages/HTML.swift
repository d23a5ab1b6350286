import Foundation
import SequencerOutput

/// Pieces of HTML: every text that comes from a run, a file or a request goes through
/// ``escape(_:)``; the page's script sets text with `textContent` only.
enum HTML {
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// `text` as a URL query value.
    static func query(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Whether the pages being made link to the queue page: set, for each request, by a server
    /// of a queue (``Guard``).
    @TaskLocal static var linksQueue = false

    /// A whole page: `body` is HTML already escaped; `page` names it for the script.
    static func page(title: String, page: String, token: String, body: String, data: String? = nil) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="sequencer-token" content="\(escape(token))">
        <title>\(escape(title)) · sequencer</title>
        <link rel="stylesheet" href="/assets/style.css">
        <link rel="icon" href="data:,">
        <script src="/assets/app.js" defer></script>
        </head>
        <body data-page="\(escape(page))">
        <header class="top"><a class="brand" href="/runs">sequencer</a><nav><a href="/runs">Runs</a>\(linksQueue ? "<a href=\"/queue\" id=\"nav-queue\">Queue</a>" : "")<a href="/workflow">Workflow</a></nav></header>
        <main>
        \(body)
        </main>
        \(data.map { "<script type=\"application/json\" id=\"page-data\">\($0)</script>" } ?? "")
        </body>
        </html>

        """
    }

    /// `yyyy-MM-dd HH:mm:ss` in the server's time zone, for nanoseconds since 1970.
    static func time(_ nanoseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(nanoseconds) / 1e9)
        return timeFormat.format(date)
    }

    private static let timeFormat = Date.VerbatimFormatStyle(
        format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
        timeZone: .current, calendar: Calendar(identifier: .gregorian))

    /// `5ms`, `1.2s`, `2m05s` (``durationText(seconds:)``, as the command line and the
    /// page's script write them), or `-`.
    static func duration(_ seconds: Double?) -> String {
        seconds.map { durationText(seconds: $0) } ?? "-"
    }

    /// A status's words: `up to date`, `timed out`, or the status.
    static func words(_ status: String) -> String {
        switch status {
        case "upToDate": "up to date"
        case "timedOut": "timed out"
        default: status
        }
    }

    static func badge(_ status: String) -> String {
        "<span class=\"badge st-\(escape(status))\">\(escape(words(status)))</span>"
    }
}
