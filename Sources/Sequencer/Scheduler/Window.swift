/// Elements numbered in the order they were appended, of which only the newest are kept: the
/// oldest can be dropped, so that a queue that runs for months keeps only what it can still be
/// asked about.
///
/// Numbers are `Int32` and wrap around after 2³² appends; a number is valid while its element
/// is kept (``contains(_:)``). A run that never drops anything numbers its elements from
/// ``base`` on, like an array.
struct Window<Element> {
    private var storage: [Element] = []
    /// Where element ``base`` is in `storage`.
    private var start = 0
    /// The number of the oldest element kept.
    private(set) var base: Int32

    init(base: Int32 = 0, _ elements: [Element] = []) {
        self.base = base
        storage = elements
    }

    /// How many elements are kept.
    var count: Int { storage.count - start }
    var isEmpty: Bool { storage.count == start }

    /// The number the next element will get.
    var end: Int32 { base &+ Int32(truncatingIfNeeded: count) }

    /// The element's position among those kept, if it is kept.
    func position(of number: Int32) -> Int? {
        let offset = Int(UInt32(bitPattern: number &- base))
        return offset < count ? offset : nil
    }

    func contains(_ number: Int32) -> Bool { position(of: number) != nil }

    /// The number of the element at `position` among those kept.
    func number(at position: Int) -> Int32 { base &+ Int32(truncatingIfNeeded: position) }

    subscript(number: Int32) -> Element {
        get { storage[start &+ Int(UInt32(bitPattern: number &- base))] }
        _modify { yield &storage[start &+ Int(UInt32(bitPattern: number &- base))] }
    }

    /// Appends an element; returns its number.
    @discardableResult
    mutating func append(_ element: Element) -> Int32 {
        let number = end
        storage.append(element)
        return number
    }

    /// Forgets the oldest element. Storage is compacted once half of it is forgotten, so that
    /// each drop costs O(1) amortized.
    mutating func dropOldest() {
        start += 1
        base &+= 1
        if start >= 1024, start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }

    /// The numbers of the elements kept, oldest first.
    var numbers: some Sequence<Int32> {
        let base = base
        return (0..<count).lazy.map { base &+ Int32(truncatingIfNeeded: $0) }
    }
}

extension Window: Sendable where Element: Sendable {}
