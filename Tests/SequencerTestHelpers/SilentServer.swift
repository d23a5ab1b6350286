#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that takes connections (the kernel's backlog) and never answers: a
/// server that hangs. Closed when it goes.
public final class SilentServer: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let socketType: Int32
        #if canImport(Glibc)
        socketType = Int32(SOCK_STREAM.rawValue)
        #else
        socketType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, socketType, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw SilentServerFailure()
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

public struct SilentServerFailure: Error {}
