extension NinjaDepsLog {
    /// Reads the deps log at `path` (`decode(_:)`), deleting it when it is unusable and cutting
    /// off a damaged or unfinished tail, as ninja does when it opens its log.
    ///
    /// - Throws: when the file exists but cannot be read, or its tail cannot be cut off (ninja:
    ///   "loading deps log PATH: …").
    public static func load(from path: String) throws(NinjaLogFileError) -> NinjaLogLoad<NinjaDepsLog> {
        guard let bytes = try NinjaLogFileSystem.readFile(path) else {
            return NinjaLogLoad(log: NinjaDepsLog(), warning: nil, fileExists: false)
        }
        let decoding = decode(bytes)
        switch decoding.repair {
        case .none:
            break
        case .delete:
            // As ninja: the log is only a cache, and a failure to delete it shows on writing.
            try? NinjaLogFileSystem.removeFile(path)
            return NinjaLogLoad(log: decoding.log, warning: decoding.warning, fileExists: false)
        case .truncate(let size):
            try NinjaLogFileSystem.truncateFile(path, toByteCount: size)
        }
        return NinjaLogLoad(log: decoding.log, warning: decoding.warning, fileExists: true)
    }

    /// Rewrites the deps log at `path` with only the latest deps list of each output `isLive`
    /// keeps (`recompacted(isLive:)`), and takes that log's ids. ninja does this for `ninja -t
    /// recompact`, and when it opens a log that `needsRecompaction`.
    ///
    /// The new file is written beside the old one (`PATH.recompact`) and renamed over it.
    public mutating func recompact(at path: String, isLive: (String) -> Bool) throws(NinjaLogFileError) {
        let (fresh, file) = recompacted(isLive: isLive)
        let temporary = path + ".recompact"
        try NinjaLogFileSystem.createFile(temporary, containing: file)
        try NinjaLogFileSystem.renameFile(temporary, to: path)
        self = fresh
    }
}
