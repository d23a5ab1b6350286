#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
internal import CSequencerSpawn
#endif

#if canImport(Darwin)
private typealias FileActions = posix_spawn_file_actions_t?
private typealias Attributes = posix_spawnattr_t?
#else
private typealias FileActions = posix_spawn_file_actions_t
private typealias Attributes = posix_spawnattr_t
#endif

extension SpawnPlan {
    /// Starts the process: in a new process group whose ID is its pid, stdin from `/dev/null`,
    /// stdout and stderr to the output file, in the working directory, default signal
    /// dispositions and an empty signal mask, and no other open descriptor (glibc 2.34 or
    /// later, and Darwin: elsewhere, descriptors this program opened without close-on-exec leak in).
    ///
    /// Blocks the calling thread until the child has called `exec` (glibc's `posix_spawn` waits
    /// for it): tens of microseconds, not the run of the program.
    ///
    /// With ``supervised`` (on Linux), the child is a supervisor, forked, that starts the
    /// program in its group the same way and ends as it ends (see `sequencer_spawn_supervised`).
    ///
    /// - Returns: The child's pid, which is also its process group ID, or why it failed.
    func spawn() -> Result<pid_t, SpawnFailure> {
        do throws(SpawnFailure) {
            #if os(Linux)
            if supervised { return .success(try spawnSupervised()) }
            #endif
            return .success(try spawnOrThrow())
        } catch {
            return .failure(error)
        }
    }

    #if os(Linux)
    private func spawnSupervised() throws(SpawnFailure) -> pid_t {
        var error: Int32 = 0
        let pid = sequencer_spawn_supervised(program, argv.pointers, envp.pointers, directory, output, &error)
        guard pid > 0 else { throw failure(error) }
        return pid
    }
    #endif

    private func spawnOrThrow() throws(SpawnFailure) -> pid_t {
        #if canImport(Darwin)
        var actions: FileActions = nil
        var attributes: Attributes = nil
        #else
        var actions = FileActions()
        var attributes = Attributes()
        #endif
        guard posix_spawn_file_actions_init(&actions) == 0 else { throw failure(ENOMEM) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawnattr_init(&attributes) == 0 else { throw failure(ENOMEM) }
        defer { posix_spawnattr_destroy(&attributes) }

        if !usesTerminal {
            try check(posix_spawn_file_actions_adddup2(&actions, output, 1))
            try check(posix_spawn_file_actions_adddup2(&actions, output, 2))
            try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        }
        try check(addChdir(&actions))
        let group = usesTerminal ? 0 : POSIX_SPAWN_SETPGROUP
        #if os(Linux)
        if let addCloseFrom = GNUFunctions.addCloseFrom { try check(addCloseFrom(&actions, 3)) }
        let flags = group | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        #else
        let flags = group | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif

        try check(posix_spawnattr_setflags(&attributes, Int16(flags)))
        try check(posix_spawnattr_setpgroup(&attributes, 0))
        var every = Self.everySignal()
        try check(posix_spawnattr_setsigdefault(&attributes, &every))
        var none = sigset_t()
        sigemptyset(&none)
        try check(posix_spawnattr_setsigmask(&attributes, &none))

        var pid: pid_t = 0
        try check(posix_spawn(&pid, program, &actions, &attributes, argv.pointers, envp.pointers))
        return pid
    }

    /// Every signal, for `setsigdefault`.
    ///
    /// glibc's `sigfillset` leaves out its two internal signals (32 and 33, below `SIGRTMIN`),
    /// and its `posix_spawn` then sets them to "ignored" in the child, which `exec` keeps: every
    /// program it starts would ignore them. They are put in the set by hand (bit `n - 1` of the
    /// set's first word is signal `n`, glibc's stable layout), so the child gets them at their
    /// default too. The child has every signal blocked until just before `exec`, and glibc sends
    /// these two only to its own threads, never to the child.
    private static func everySignal() -> sigset_t {
        var set = sigset_t()
        sigfillset(&set)
        #if canImport(Glibc)
        withUnsafeMutableBytes(of: &set) { bytes in
            guard bytes.count >= MemoryLayout<UInt>.size, UInt.bitWidth >= 33 else { return }
            var word = bytes.load(as: UInt.self)
            word |= (1 << 31) | (1 << 32)
            bytes.storeBytes(of: word, as: UInt.self)
        }
        #endif
        return set
    }

    private func addChdir(_ actions: UnsafeMutablePointer<FileActions>) -> Int32 {
        #if canImport(Darwin)
        return posix_spawn_file_actions_addchdir_np(actions, directory)
        #else
        guard let addChdir = GNUFunctions.addChdir else { return ENOSYS }
        return addChdir(actions, directory)
        #endif
    }

    private func check(_ result: Int32) throws(SpawnFailure) {
        if result != 0 { throw failure(result) }
    }

    private func failure(_ number: Int32) -> SpawnFailure {
        SpawnFailure(number: number, error: ProcessError(code: .cannotRun, message: "cannot run '\(name)': \(systemMessage(number))"))
    }
}

/// Why `posix_spawn` (or the preparation of its arguments) failed.
struct SpawnFailure: Error {
    /// The system's error number, such as `ENOENT`.
    let number: Int32
    /// The error for the caller, naming the program.
    let error: ProcessError
}
