import Glibc
import LinuxIO

/// A child process started with posix_spawn, its output appended to a log file.
final class Child {
    let pid: pid_t
    private(set) var exitStatus: Int32?

    init(executable: String, arguments: [String], environment: [String], log: String) throws(SystemError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child = pid_t()
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw SystemError("posix_spawn", executable, errno: result) }
        pid = child
    }

    /// Sends `signal` and waits for the process to end; returns its exit code (128+n for a signal).
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        if let exitStatus { return exitStatus }
        kill(pid, signal)
        return wait()
    }

    /// Waits for the process to end; returns its exit code (128+n for a signal).
    func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    deinit {
        if exitStatus == nil { stop(SIGKILL) }
    }
}

/// CLOCK_MONOTONIC now, for measuring intervals.
func monotonic() -> Duration {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
}

/// Blocks the calling thread (only where nothing in this process needs the executor meanwhile).
func pause(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
