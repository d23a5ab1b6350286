import Foundation

/// A number of bytes for people, in decimal units: `340 B`, `12 KB`, `1.2 MB`, `3.4 GB`.
package func byteCountText(_ count: Int64) -> String {
    let value = Double(count)
    if count < 1_000 { return "\(count) B" }
    if count < 1_000_000 { return "\(Int((value / 1_000).rounded())) KB" }
    if count < 1_000_000_000 { return String(format: "%.1f MB", value / 1_000_000) }
    return String(format: "%.1f GB", value / 1_000_000_000)
}
