/// C's `atoi`/`atol` as glibc does them, which ninja uses for versions and pool depths: leading
/// white space, a sign, digits, and nothing after them counts; no digits is 0; too large is
/// clamped to the 64-bit range (`strtol`), and the `int` that ninja keeps is the low 32 bits.
enum CInteger {
    static func atoi(_ text: some StringProtocol) -> Int32 {
        Int32(truncatingIfNeeded: strtol(text))
    }

    /// `strtol(text, nil, 10)`.
    static func strtol(_ text: some StringProtocol) -> Int64 {
        var bytes = text.utf8.makeIterator()
        var byte = bytes.next()
        // isspace: space, \t, \n, \v, \f, \r.
        while let current = byte, current == 0x20 || (0x09...0x0D).contains(current) { byte = bytes.next() }
        var negative = false
        if byte == 0x2D || byte == 0x2B {
            negative = byte == 0x2D
            byte = bytes.next()
        }
        var magnitude: UInt64 = 0
        var overflow = false
        while let current = byte, (0x30...0x39).contains(current) {
            let (times, timesOverflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, sumOverflow) = times.addingReportingOverflow(UInt64(current - 0x30))
            if timesOverflow || sumOverflow { overflow = true }
            magnitude = sum
            byte = bytes.next()
        }
        if negative {
            if overflow || magnitude > UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        if overflow || magnitude > UInt64(Int64.max) { return Int64.max }
        return Int64(magnitude)
    }
}
