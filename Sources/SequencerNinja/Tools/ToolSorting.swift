/// Sorting as ninja's `std::set<std::string>` and `std::sort` do: by bytes.
enum ToolSorting {
    /// The strings in the order of their UTF-8 bytes.
    static func sortedAsBytes(_ strings: some Sequence<String>) -> [String] {
        strings.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
