/// Writing `.ninja_log` as ninja's `recompact` and `restat` write it: its entries in the order
/// of ninja's table of them (`NinjaHashTableOrder`), through a file beside it.
extension NinjaBuildLog {
    /// The entries in the order ninja walks them.
    var entriesInNinjaOrder: [NinjaBuildLogEntry] {
        let entries = self.entries
        return NinjaHashTableOrder.iterationOrder(ofInsertedKeys: entries.map(\.output)).map { entries[$0] }
    }

    /// Rewrites the log at `path` without the entries `isDead` says are dead (asked in ninja's
    /// order), and forgets them (ninja's `BuildLog::Recompact`).
    mutating func recompactAsNinja(at path: String, version: Int, isDead: (String) -> Bool) throws(NinjaLogFileError) {
        var bytes = Self.header(version: version)
        var dead = Set<String>()
        for entry in entriesInNinjaOrder {
            if isDead(entry.output) {
                dead.insert(entry.output)
            } else {
                bytes += Self.line(for: entry)
            }
        }
        try ToolInvocation.replaceFile(path, with: bytes, temporarySuffix: ".recompact")
        removeAll { dead.contains($0.output) }
        self.version = version
    }

    /// The whole log in `version`, its entries in ninja's order.
    func encodedInNinjaOrder(version: Int) -> [UInt8] {
        var bytes = Self.header(version: version)
        for entry in entriesInNinjaOrder { bytes += Self.line(for: entry) }
        return bytes
    }
}
