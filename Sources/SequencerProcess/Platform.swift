#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// C functions that glibc declares only for `_GNU_SOURCE`, which Swift's `Glibc` module does not
/// define: looked up by name in the running C library, `nil` where it does not have them.
#if os(Linux)
package enum GNUFunctions {
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29).
    package typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    /// `pidfd_open` (glibc 2.36, Linux 5.3).
    package typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34).
    package typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// `epoll_create1`.
    package typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    /// `epoll_ctl`, with a pointer to an ``EpollEvent``.
    package typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    /// `epoll_wait`, with a pointer to ``EpollEvent``s.
    package typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer, Int32, Int32) -> Int32

    package static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
    package static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    package static let pidfdOpen: PidfdOpen? = symbol("pidfd_open")
    package static let epollCreate1: EpollCreate1? = symbol("epoll_create1")
    package static let epollCtl: EpollCtl? = symbol("epoll_ctl")
    package static let epollWait: EpollWait? = symbol("epoll_wait")

    private static func symbol<Function>(_ name: String) -> Function? {
        // A null file name gives the program's global symbols, the C library's among them.
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
#endif

/// The system's message for an error number: `No such file or directory` for `ENOENT`.
func systemMessage(_ code: Int32) -> String {
    String(cString: strerror(code))
}
