/// The content of `.ninja_deps`: the inputs ninja learned from depfiles (`deps = gcc`) and from
/// `/showIncludes` (`deps = msvc`), for each output the latest list.
///
/// Every path has a dense id, numbered in the order the file names the paths; a deps list maps
/// an output's id to its mtime (when the list was recorded) and its inputs' ids. Read it with
/// `load(from:)` (or `decode(_:)`), ask `deps(of:)`, `record(output:mtime:inputs:)` what a
/// finished edge found and append the bytes it returns with a `NinjaLogAppender`, and
/// `recompact(at:isLive:)` when `needsRecompaction` says so, as ninja does when it opens the log.
///
/// The file (version 4) is binary, little-endian: the 12 bytes `# ninjadeps\n` and the version
/// as 4 bytes, then records, each a 4-byte size (high bit set for a deps record) and:
/// - a path record: the path, NUL padding to a multiple of 4, then the one's complement of the
///   path's id (a check against two ninjas writing at once);
/// - a deps record: the output's id, the mtime's low then high 32 bits, the inputs' ids.
public struct NinjaDepsLog: Sendable {
    /// The file's name in the build directory.
    public static let fileName = ".ninja_deps"
    /// The only version ninja (1.11 to 1.13) reads and writes.
    public static let version: Int32 = 4
    /// The first 12 bytes of the file.
    public static let signature: [UInt8] = Array("# ninjadeps\n".utf8)
    /// The signature and the version: the first 16 bytes of the file.
    public static let header: [UInt8] = signature + withUnsafeBytes(of: version.littleEndian) { Array($0) }
    /// The largest record ninja writes or reads, in bytes (without its size field).
    public static let maximumRecordSize = (1 << 19) - 1

    /// A deps list: the output's mtime when it was recorded, and the inputs' ids.
    public struct Deps: Sendable, Equatable {
        /// The output's mtime when the list was recorded (ninja's `TimeStamp`); ninja takes the
        /// list as out of date when the output is newer.
        public var mtime: Int64
        /// The inputs, as ids (`path(ofID:)`), in the order they were recorded.
        public var inputIDs: [Int32]

        /// A list of these values.
        public init(mtime: Int64, inputIDs: [Int32]) {
            self.mtime = mtime
            self.inputIDs = inputIDs
        }
    }

    /// A deps list with paths rather than ids.
    public struct PathDeps: Sendable, Equatable {
        /// The output's mtime when the list was recorded.
        public var mtime: Int64
        /// The inputs' paths, in the order they were recorded.
        public var inputs: [String]

        /// A list of these values.
        public init(mtime: Int64, inputs: [String]) {
            self.mtime = mtime
            self.inputs = inputs
        }
    }

    /// Every path, by id.
    public private(set) var paths: [String] = []
    var idByPath: [String: Int32] = [:]
    /// The deps list of each id (nil for a path that is only an input, or that has none).
    var depsByID: [Deps?] = []
    /// How many deps records the file had when it was read: ninja recompacts a log whose
    /// records are mostly outdated.
    public internal(set) var loadedRecordCount = 0
    /// How many outputs those records were for.
    public internal(set) var loadedOutputCount = 0

    /// An empty log.
    public init() {}

    /// The id of `path`, if the log names it.
    public func id(of path: String) -> Int32? { idByPath[path] }

    /// The path of `id`, if there is one.
    public func path(ofID id: Int32) -> String? {
        paths.indices.contains(Int(id)) ? paths[Int(id)] : nil
    }

    /// The latest deps list of the output of `id`, if any.
    public func deps(ofID id: Int32) -> Deps? {
        depsByID.indices.contains(Int(id)) ? depsByID[Int(id)] : nil
    }

    /// The latest deps list of `output`, with paths, if any.
    public func deps(of output: String) -> PathDeps? {
        guard let id = idByPath[output], let deps = depsByID[Int(id)] else { return nil }
        return PathDeps(mtime: deps.mtime, inputs: deps.inputIDs.map { paths[Int($0)] })
    }

    /// The outputs that have a deps list, in id order.
    public var outputs: [String] {
        paths.indices.compactMap { depsByID[$0] == nil ? nil : paths[$0] }
    }

    /// The first output, in id order, whose deps list has `input` (ninja's `-t query` shows it).
    public func firstOutput(dependingOn input: String) -> String? {
        guard let inputID = idByPath[input] else { return nil }
        for (id, deps) in depsByID.enumerated() where deps?.inputIDs.contains(inputID) == true {
            return paths[id]
        }
        return nil
    }

    /// Whether ninja would rewrite the log before writing to it: more than 1000 deps records,
    /// more than three for each output.
    public var needsRecompaction: Bool {
        loadedRecordCount > 1000 && loadedRecordCount > loadedOutputCount * 3
    }

    /// Adds a path with the next id (its record is the caller's).
    mutating func appendPath(_ path: String) -> Int32 {
        let id = Int32(paths.count)
        paths.append(path)
        idByPath[path] = id
        depsByID.append(nil)
        return id
    }

    /// Sets the deps list of `id`; returns whether it replaced one.
    @discardableResult
    mutating func setDeps(_ deps: Deps, ofID id: Int32) -> Bool {
        let replaced = depsByID[Int(id)] != nil
        depsByID[Int(id)] = deps
        return replaced
    }

    mutating func countLoadedRecord(replaced: Bool) {
        loadedRecordCount += 1
        if !replaced { loadedOutputCount += 1 }
    }
}
