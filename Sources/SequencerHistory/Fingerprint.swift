/// The fingerprint of a job's last success; the parts it was made of (`command`, `env`,
/// `input:PATH`, `need:JOB`, each with its hash), to tell what changed; and the stamps its
/// outputs had after it, to tell whether something wrote them since.
///
/// The journal and both queue stores keep it alike: the fingerprint, and its parts and its
/// outputs each as text of one line per entry (``partsText``, ``outputsText``).
public struct Fingerprint: Sendable, Hashable {
    public let fingerprint: String
    /// The parts as every store keeps them: a line per part, `KEY<TAB>HASH`, sorted by key.
    public let partsText: String
    /// The outputs' stamps as every store keeps them: a line per output, `PATH<TAB>STAMP`.
    public let outputsText: String

    public init(fingerprint: String, parts: [String: String], outputs: [String: String]) {
        self.fingerprint = fingerprint
        partsText = Self.encode(parts)
        outputsText = Self.encode(outputs)
    }

    /// A fingerprint as a store kept it (see ``partsText``).
    public init(fingerprint: String, partsText: String, outputsText: String) {
        self.fingerprint = fingerprint
        self.partsText = partsText
        self.outputsText = outputsText
    }

    /// The parts, decoded when asked for (explaining a change).
    public var parts: [String: String] { Self.decode(partsText) }
    /// Each output's stamp after the success, by path.
    public var outputs: [String: String] { Self.decode(outputsText) }

    /// Whether `output`, whose stamp is now `stamp` (as `FileHasher.describeStamp(of:into:)`
    /// writes it), is as the success left it: its stamp is the one ``outputs`` has, or
    /// ``outputs`` has none. An up-to-date check asks this of every output of every job, so
    /// the others are not decoded.
    ///
    /// - Complexity: O(length of the outputs' text).
    public func outputMatches(_ output: String, stamp: [UInt8]) -> Bool {
        var text = outputsText
        var output = output
        return text.withUTF8 { text in
            output.withUTF8 { output in
                var recorded: Slice<UnsafeBufferPointer<UInt8>>?
                var start = 0
                while start < text.count {
                    var end = start
                    while end < text.count, text[end] != UInt8(ascii: "\n") { end += 1 }
                    let line = text[start..<end]
                    if let tab = line.lastIndex(of: UInt8(ascii: "\t")), line[..<tab].elementsEqual(output) {
                        recorded = line[(tab + 1)...]  // the last line wins, as in `outputs`
                    }
                    start = end + 1
                }
                return recorded.map { $0.elementsEqual(stamp) } ?? true
            }
        }
    }

    /// `parts` in the stored encoding (see ``partsText``).
    public static func encode(_ parts: [String: String]) -> String {
        parts.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)" }.joined(separator: "\n")
    }

    /// Text in the stored encoding, decoded; a line without a tab is passed over.
    public static func decode(_ text: String) -> [String: String] {
        var parts: [String: String] = [:]
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            guard let tab = line.lastIndex(of: UInt8(ascii: "\t")) else { continue }
            parts[String(decoding: line[..<tab], as: UTF8.self)] = String(decoding: line[line.index(after: tab)...], as: UTF8.self)
        }
        return parts
    }
}

