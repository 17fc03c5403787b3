import Glibc
import LinuxIO

/// Who is on the other end of a Unix socket, as the kernel recorded it at connect time
/// (`SO_PEERCRED`, `SO_PEERGROUPS`): it cannot be forged by the peer.
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// The peer's supplementary groups; empty if the kernel could not tell (before Linux 4.13).
    public var supplementaryGroups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, supplementaryGroups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.supplementaryGroups = supplementaryGroups
    }

    public func isMember(ofGroup group: UInt32) -> Bool {
        gid == group || supplementaryGroups.contains(group)
    }

    public var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

    /// Reads the credentials of the peer connected on `descriptor`.
    static func of(_ descriptor: Int32) throws(SystemError) -> PeerCredentials {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: Glibc hides it without _GNU_SOURCE.
        var raw = (pid: Int32(0), uid: UInt32(0), gid: UInt32(0))
        var length = socklen_t(MemoryLayout.size(ofValue: raw))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0 else {
            throw .current("getsockopt(SO_PEERCRED)", "control connection")
        }
        return PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid, supplementaryGroups: groups(of: descriptor))
    }

    private static func groups(of descriptor: Int32) -> [UInt32] {
        var groups = [UInt32](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * MemoryLayout<UInt32>.size)
            if getsockopt(descriptor, SOL_SOCKET, SO_PEERGROUPS, &groups, &length) == 0 {
                return Array(groups.prefix(Int(length) / MemoryLayout<UInt32>.size))
            }
            // ERANGE: the kernel says how much room it needs.
            guard errno == ERANGE, Int(length) > groups.count * MemoryLayout<UInt32>.size else { return [] }
            groups = [UInt32](repeating: 0, count: Int(length) / MemoryLayout<UInt32>.size)
        }
    }
}
