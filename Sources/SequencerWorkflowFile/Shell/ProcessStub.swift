// Temporary: the process runner lands from its own branch; this file goes when it does.
public enum ProcessExit: Sendable, Hashable {
    case exited(Int32)
    case signaled(Int32)
    public var succeeded: Bool { self == .exited(0) }
}
