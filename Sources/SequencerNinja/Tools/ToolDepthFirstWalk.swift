/// A depth-first walk without recursion, so that a chain of a hundred thousand edges does not
/// exhaust a thread's stack: ninja's tools walk the graph recursively, and this visits in the
/// same order.
enum ToolDepthFirstWalk {
    /// Walks from each root in turn. `enter` is called when an item is reached (for a root, and
    /// for each child when the walk comes to it, after its earlier siblings are done) and says
    /// whether to go into it; its `children` are asked for right after, and `leave` is called
    /// once they are all done.
    static func walk<Item>(
        roots: some Sequence<Item>, children: (Item) -> [Item], enter: (Item) -> Bool, leave: (Item) -> Void = { _ in }
    ) {
        var stack: [(item: Item, children: [Item], next: Int)] = []
        for root in roots {
            guard enter(root) else { continue }
            stack.append((root, children(root), 0))
            while let top = stack.last {
                if top.next < top.children.count {
                    stack[stack.count - 1].next += 1
                    let child = top.children[top.next]
                    if enter(child) { stack.append((child, children(child), 0)) }
                } else {
                    stack.removeLast()
                    leave(top.item)
                }
            }
        }
    }
}
