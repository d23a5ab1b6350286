/// NUL-terminated strings in one allocation, with a null-terminated array of pointers to them:
/// an `argv` or an `envp` for `posix_spawn`. Owns its memory until ``deallocate()``.
struct CStringArray {
    /// The pointers, one per string, then `nil`.
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let bytes: UnsafeMutablePointer<CChar>

    /// Copies `strings`, which must not contain NUL bytes.
    init(_ strings: [String]) {
        let size = strings.reduce(0) { $0 + $1.utf8.count + 1 }
        pointers = .allocate(capacity: strings.count + 1)
        bytes = .allocate(capacity: max(size, 1))
        var offset = 0
        for (index, string) in strings.enumerated() {
            pointers[index] = bytes + offset
            Self.copy(string, to: bytes, at: &offset)
            Self.terminate(bytes, at: &offset)
        }
        pointers[strings.count] = nil
    }

    /// Copies `environment` as `NAME=value` strings; names and values must not contain NUL bytes.
    init(environment: [String: String]) {
        let size = environment.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 }
        pointers = .allocate(capacity: environment.count + 1)
        bytes = .allocate(capacity: max(size, 1))
        var offset = 0
        for (index, (name, value)) in environment.enumerated() {
            pointers[index] = bytes + offset
            Self.copy(name, to: bytes, at: &offset)
            bytes[offset] = CChar(bitPattern: UInt8(ascii: "="))
            offset += 1
            Self.copy(value, to: bytes, at: &offset)
            Self.terminate(bytes, at: &offset)
        }
        pointers[environment.count] = nil
    }

    /// Frees the strings and the pointers.
    func deallocate() {
        pointers.deallocate()
        bytes.deallocate()
    }

    private static func copy(_ string: String, to bytes: UnsafeMutablePointer<CChar>, at offset: inout Int) {
        var string = string
        string.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return }
            (bytes + offset).withMemoryRebound(to: UInt8.self, capacity: utf8.count) { target in
                target.update(from: base, count: utf8.count)
            }
            offset += utf8.count
        }
    }

    private static func terminate(_ bytes: UnsafeMutablePointer<CChar>, at offset: inout Int) {
        bytes[offset] = 0
        offset += 1
    }
}
