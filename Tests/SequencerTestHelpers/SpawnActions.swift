public import Foundation
import SequencerProcess

/// Makes a `posix_spawn` child keep none of this process's descriptors from 3 up: a test
/// process holds other tests' pipes, and a child that inherited one keeps it open for as long
/// as it lives, so that the other test never reads its end.
public func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    #if os(Linux)
    _ = GNUFunctions.addCloseFrom?(&actions, 3)
    #endif
}

/// A pipe whose two descriptors close when this process starts another program: Foundation's
/// `Process` may hand a child every descriptor this test process holds, so that a long-lived
/// child of another test (a worker, a server) would keep this pipe's write end open after its
/// own writer ended. The child meant to get it still does: it is duplicated onto 0, 1 or 2.
public func closingOnExec() -> Pipe {
    let pipe = Pipe()
    for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
    }
    return pipe
}
