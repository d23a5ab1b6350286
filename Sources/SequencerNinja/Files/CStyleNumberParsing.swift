/// The C library's number parsing, as ninja uses it on `.ninja_log` fields (`atoi`, `strtoll`,
/// `strtoull` in base 16): leading white space and a sign are accepted, parsing stops at the first
/// byte that is not a digit, no digit gives 0, and an overflow gives the limit (glibc's
/// behaviour). The field ends at `end`, as ninja ends it with a NUL.
enum CStyleNumberParsing {
    /// `strtoll(text, NULL, 10)`.
    static func signed64(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int64 {
        var index = skipSpace(bytes, start, end)
        var negative = false
        if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // Accumulated as a magnitude so that Int64.min parses.
        var magnitude: UInt64 = 0
        var overflow = false
        while index < end, let digit = decimalDigit(bytes[index]) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { overflow = true } else { magnitude = sum }
            index += 1
        }
        if negative {
            if overflow || magnitude > UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        if overflow || magnitude > UInt64(Int64.max) { return Int64.max }
        return Int64(magnitude)
    }

    /// `atoi(text)` as glibc computes it: `(int) strtol(text, NULL, 10)` on a 64-bit `long`.
    static func int32(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int32 {
        Int32(truncatingIfNeeded: signed64(bytes, from: start, to: end))
    }

    /// `strtoull(text, NULL, 16)`: an optional `0x`, hexadecimal digits in either case; a minus
    /// sign negates the result modulo 2⁶⁴.
    static func unsignedHex64(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> UInt64 {
        var index = skipSpace(bytes, start, end)
        var negative = false
        if index < end, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // "0x" counts as a prefix only when a hexadecimal digit follows it.
        if index + 2 < end, bytes[index] == UInt8(ascii: "0"),
            bytes[index + 1] | 0x20 == UInt8(ascii: "x"), hexDigit(bytes[index + 2]) != nil
        {
            index += 2
        }
        var value: UInt64 = 0
        var overflow = false
        while index < end, let digit = hexDigit(bytes[index]) {
            if value > UInt64.max >> 4 { overflow = true } else { value = value << 4 | UInt64(digit) }
            index += 1
        }
        if overflow { return UInt64.max }
        return negative ? 0 &- value : value
    }

    static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var index = start
        while index < end, isSpace(bytes[index]) { index += 1 }
        return index
    }

    /// `isspace` in the C locale.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    static func decimalDigit(_ byte: UInt8) -> UInt8? {
        byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : nil
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
