extension NinjaBuildLog {
    /// Reads the log at `path` (`decode(_:readableVersions:)`), deleting it when it is unusable and
    /// cutting off an unfinished last line, as ninja does when it opens its log.
    ///
    /// - Throws: when the file exists but cannot be read (ninja: "loading build log PATH: …").
    public static func load(
        from path: String, readableVersions: ClosedRange<Int> = readableVersions
    ) throws(NinjaLogFileError) -> NinjaLogLoad<NinjaBuildLog> {
        guard let bytes = try NinjaLogFileSystem.readFile(path) else {
            return NinjaLogLoad(log: NinjaBuildLog(), warning: nil, fileExists: false)
        }
        let decoding = decode(bytes, readableVersions: readableVersions)
        switch decoding.repair {
        case .none:
            break
        case .delete:
            // As ninja: the log is only a cache, and a failure to delete it shows on writing.
            try? NinjaLogFileSystem.removeFile(path)
            return NinjaLogLoad(log: decoding.log, warning: decoding.warning, fileExists: false)
        case .truncate(let size):
            try? NinjaLogFileSystem.truncateFile(path, toByteCount: size)
        }
        return NinjaLogLoad(log: decoding.log, warning: decoding.warning, fileExists: true)
    }

    /// Rewrites the log at `path` with one line per output, in `version`, leaving out the outputs
    /// `isDead` says are dead; forgets them too. ninja does this for `ninja -t recompact`, and
    /// when it opens a log that `needsRecompaction(writingVersion:)`; its `isDead` is "no edge
    /// of the manifest writes it and it does not exist on disk".
    ///
    /// The new file is written beside the old one (`PATH.recompact`) and renamed over it.
    public mutating func recompact(
        at path: String, version: Int, isDead: (String) -> Bool
    ) throws(NinjaLogFileError) {
        removeAll { isDead($0.output) }
        try rewrite(at: path, version: version)
    }

    /// Writes the whole log to `path` in `version` (through `PATH.recompact`, renamed over it),
    /// e.g. after changing recorded mtimes for `ninja -t restat`.
    public mutating func rewrite(at path: String, version: Int) throws(NinjaLogFileError) {
        let temporary = path + ".recompact"
        try NinjaLogFileSystem.createFile(temporary, containing: encoded(version: version))
        try NinjaLogFileSystem.renameFile(temporary, to: path)
        self.version = version
        loadedLineCount = entries.count
        loadedOutputCount = entries.count
    }
}
