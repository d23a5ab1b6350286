/// The hash `.ninja_log` keeps of each command: MurmurHash64A up to version 6 (ninja 1.11 and
/// 1.12), rapidhash from version 7 (ninja 1.13).
public enum NinjaCommandHashFunction: Sendable, Equatable {
    /// `MurmurHash64A` with ninja's seed: log versions 4 to 6.
    case murmurHash64A
    /// `RapidHash` with its default seed: log version 7.
    case rapidhash

    /// The function whose hashes a log of `version` holds (version 4 logs hold commands, which
    /// the reader hashes with MurmurHash64A, as ninja 1.11 does).
    public init(logVersion version: Int) {
        self = version >= 7 ? .rapidhash : .murmurHash64A
    }

    /// The hash of `command` (its UTF-8 bytes).
    public func hash(_ command: String) -> UInt64 {
        switch self {
        case .murmurHash64A: MurmurHash64A.hash(command)
        case .rapidhash: RapidHash.hash(command)
        }
    }

    /// The hash of `command`.
    public func hash(_ command: [UInt8]) -> UInt64 {
        switch self {
        case .murmurHash64A: MurmurHash64A.hash(command)
        case .rapidhash: RapidHash.hash(command)
        }
    }
}
