/// ninja's JSON string escaping (`EncodeJSONString`): `\b \f \n \r \t`, other control bytes
/// as `\u00XX`, `\\` and `\"`; everything else, UTF-8 included, as it is.
enum JSONText {
    /// `text` escaped for a JSON string (without the quotes).
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x5C || $0 == 0x22 }) else { return text }
        let hexDigits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x08: bytes += Array(#"\b"#.utf8)
            case 0x0C: bytes += Array(#"\f"#.utf8)
            case 0x0A: bytes += Array(#"\n"#.utf8)
            case 0x0D: bytes += Array(#"\r"#.utf8)
            case 0x09: bytes += Array(#"\t"#.utf8)
            case 0..<0x20: bytes += Array(#"\u00"#.utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            case 0x5C: bytes += Array(#"\\"#.utf8)
            case 0x22: bytes += Array(#"\""#.utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
