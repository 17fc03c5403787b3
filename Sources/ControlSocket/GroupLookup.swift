import Glibc

extension ControlServer {
    /// The numeric id of the group called `name` (e.g. "lifesignal"), for `socketGroup`; nil if
    /// there is no such group.
    public static func groupID(named name: String) -> UInt32? {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        while true {
            let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
            if status == ERANGE && buffer.count < 1 << 20 {
                buffer = [CChar](repeating: 0, count: buffer.count * 2)
                continue
            }
            guard status == 0, let found = result else { return nil }
            return found.pointee.gr_gid
        }
    }
}
