import Glibc

/// The process's limit on open files (RLIMIT_NOFILE).
public enum DescriptorLimit {
    /// The soft limit in force (1024 if it cannot be read).
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit and returns the soft limit in force afterwards. A
    /// shell's (and systemd's) soft limit is usually 1024 while the hard one allows far more; every
    /// client of the control socket holds one descriptor. Where the call is refused the limit stays
    /// as it is. (The packaged unit's `SystemCallFilter=~@resources` blocks the old `setrlimit`
    /// system call only; glibc sets limits with `prlimit64`, which `@system-service` allows.)
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        return current
    }
}
