/// A file's bytes with a 0 byte after them, at an address that does not move: the lexer reads
/// it through a pointer, and stops at the 0 as ninja does (a 0 inside the file ends it too).
final class SourceBuffer {
    let base: UnsafeMutablePointer<UInt8>
    /// The file's length, without the 0 after it.
    let count: Int

    init(_ contents: [UInt8]) {
        count = contents.count
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: contents.count + 1)
        contents.withUnsafeBufferPointer { buffer in
            if let address = buffer.baseAddress { base.initialize(from: address, count: buffer.count) }
        }
        base[contents.count] = 0
    }

    deinit { base.deallocate() }
}
