#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the file a command's `arguments[0]` names.
///
/// A name with a `/` is a path, taken from the child's working directory when relative. A name
/// without one is looked up on the `PATH` of the *child's* environment (not this process's, which
/// is what `posix_spawnp` would use), as the shell would do it: the first regular file with execute
/// permission, empty and relative entries taken from the child's working directory. Without `PATH`,
/// dash's default path is used.
package enum ProgramLookup {
    /// The path dash searches when `PATH` is not set.
    static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// The path of the file to execute.
    ///
    /// - Parameters:
    ///   - program: `arguments[0]`.
    ///   - path: The child's `PATH`, if it has one.
    ///   - directory: The child's working directory, absolute.
    /// - Returns: An absolute path (for a path, without checking that the file exists: spawning does).
    /// - Throws: `ProcessError` with code `cannotRun` when a name is on no `PATH` entry.
    static func resolve(_ program: String, path: String?, directory: String) throws(ProcessError) -> String {
        if program.utf8.contains(UInt8(ascii: "/")) {
            return absolute(program, in: directory)
        }
        var refused = false
        for entry in (path ?? defaultPath).split(separator: ":", omittingEmptySubsequences: false) {
            let folder = entry.isEmpty ? directory : absolute(String(entry), in: directory)
            let candidate = folder.hasSuffix("/") ? folder + program : folder + "/" + program
            var info = stat()
            guard stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if access(candidate, X_OK) == 0 { return candidate }
            refused = true
        }
        throw ProcessError(code: .cannotRun, message: "cannot run '\(program)': \(systemMessage(refused ? EACCES : ENOENT))")
    }

    /// `path` if it is absolute, else `path` in `directory`.
    static func absolute(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }
}
