/// A thin archive (`ar T`, what Meson writes for static libraries) names its members' files
/// instead of holding their bytes: a member can change while the archive's bytes do not. Its
/// content, for deciding what is up to date, is its bytes and its members' contents.
enum ThinArchive {
    static let magic: [UInt8] = Array("!<thin>\n".utf8)

    /// The members' paths as written (relative to the archive's directory unless absolute), or
    /// nil when `bytes` is not a thin archive or is malformed.
    static func members(of bytes: [UInt8]) -> [String]? {
        guard bytes.starts(with: magic) else { return nil }
        var members: [String] = []
        var longNames: ArraySlice<UInt8> = []
        var offset = magic.count
        while offset + 60 <= bytes.count {
            let header = bytes[offset..<(offset + 60)]
            guard header[header.startIndex + 58] == UInt8(ascii: "`"), header[header.startIndex + 59] == UInt8(ascii: "\n") else { return nil }
            let name = header.prefix(16)
            let sizeText = String(decoding: header[(header.startIndex + 48)..<(header.startIndex + 58)], as: UTF8.self)
            guard let size = Int(sizeText.trimmingCharacters(in: " ")) else { return nil }
            let dataStart = offset + 60
            let nameText = String(decoding: name, as: UTF8.self).trimmingCharacters(in: " ")
            // The symbol tables and the long-name table are held; members are not.
            let held = nameText == "/" || nameText == "/SYM64/" || nameText == "//"
            if held {
                guard dataStart + size <= bytes.count else { return nil }
                if nameText == "//" { longNames = bytes[dataStart..<(dataStart + size)] }
                offset = dataStart + size + (size % 2)
                continue
            }
            if nameText.hasPrefix("/"), let start = Int(nameText.dropFirst()) {
                let from = longNames.startIndex + start
                guard from < longNames.endIndex else { return nil }
                let rest = longNames[from...]
                let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
                var member = String(decoding: longNames[from..<end], as: UTF8.self)
                if member.hasSuffix("/") { member.removeLast() }
                members.append(member)
            } else {
                var member = nameText
                if member.hasSuffix("/") { member.removeLast() }
                members.append(member)
            }
            offset = dataStart
        }
        return members
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var text = Substring(self)
        while text.first == character { text.removeFirst() }
        while text.last == character { text.removeLast() }
        return String(text)
    }
}
