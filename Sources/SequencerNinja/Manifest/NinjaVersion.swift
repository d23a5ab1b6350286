/// `ninja_required_version` and `ninja_dyndep_version`: ninja's reading of version strings.
enum NinjaVersion {
    /// The major and minor numbers of `version` (ninja's `ParseVersion`: `1.10.2` is 1 and 10,
    /// `1-extra` is 1 and 0).
    static func parse(_ version: String) -> (major: Int32, minor: Int32) {
        guard let dot = version.utf8.firstIndex(of: Byte.dot) else { return (CInteger.atoi(version), 0) }
        let major = CInteger.atoi(version[..<dot])
        let minor = CInteger.atoi(version[version.utf8.index(after: dot)...])
        return (major, minor)
    }

    /// What ninja `ninjaVersion` says of a manifest that requires `required`: nothing, a
    /// warning (the manifest is for an older major version), or a fatal error.
    static func check(required: String, ninjaVersion: String) -> Result<String?, ManifestError> {
        let binary = parse(ninjaVersion)
        let file = parse(required)
        if binary.major > file.major {
            return .success(
                "ninja executable version (\(ninjaVersion)) greater than build file ninja_required_version "
                    + "(\(required)); versions may be incompatible.")
        }
        if (binary.major == file.major && binary.minor < file.minor) || binary.major < file.major {
            return .failure(
                ManifestError(
                    "ninja version (\(ninjaVersion)) incompatible with build file ninja_required_version version "
                        + "(\(required)).",
                    isFatal: true))
        }
        return .success(nil)
    }
}
