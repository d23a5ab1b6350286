public import Foundation

/// Makes a `posix_spawn` child keep none of this process's descriptors from 3 up: a test
/// process holds other tests' pipes, and a child that inherited one keeps it open for as long
/// as it lives, so that the other test never reads its end.
public func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    if let addCloseFrom { _ = addCloseFrom(&actions, 3) }
}

/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), which Swift's `Glibc` does not
/// declare: looked up in the running C library.
private let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(address, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()
