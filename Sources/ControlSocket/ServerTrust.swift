import Glibc

/// Which servers a client believes: the kernel tells who listens on a Unix socket (`SO_PEERCRED`),
/// and an answer counts only if that is someone who may run lifesignald for this client.
///
/// Without this check, whoever gets to a socket path first (a shared /tmp, a directory they made)
/// can answer "Checked in" while nothing is stored.
public struct ServerTrust: Hashable, Sendable {
    /// Users whose server is believed; root (uid 0) always is.
    public var users: Set<UInt32>
    /// The installed service's user, by name and uid, if it exists (named in messages).
    public var serviceUser: ServiceUser?
    /// Also believe the owner of the socket's directory when nobody else could have put a socket
    /// there (see `trustedOwner(ofDirectory:)`): a daemon another user runs in a home of theirs.
    public var trustsPrivateDirectoryOwner: Bool
    /// Believe any server (a probe that only asks whether something listens).
    public var trustsAnyone = false

    public struct ServiceUser: Hashable, Sendable {
        public var name: String
        public var uid: UInt32
    }

    public init(users: Set<UInt32>, serviceUser: ServiceUser? = nil, trustsPrivateDirectoryOwner: Bool = true) {
        self.users = users
        self.serviceUser = serviceUser
        self.trustsPrivateDirectoryOwner = trustsPrivateDirectoryOwner
    }

    /// Root and the user running this process: a daemon one started oneself (the demo).
    public static var sameUser: ServerTrust {
        ServerTrust(users: [0, getuid(), geteuid()])
    }

    /// `sameUser`, and the installed service's user `name` (e.g. "lifesignal") if it exists.
    public static func sameUser(orService name: String) -> ServerTrust {
        var trust = sameUser
        if let uid = userID(named: name) {
            trust.users.insert(uid)
            trust.serviceUser = ServiceUser(name: name, uid: uid)
        }
        return trust
    }

    /// Any server at all.
    public static var anyone: ServerTrust {
        var trust = ServerTrust(users: [])
        trust.trustsAnyone = true
        return trust
    }

    func allows(_ uid: UInt32, directoryOwner: UInt32?) -> Bool {
        trustsAnyone || uid == 0 || users.contains(uid) || (trustsPrivateDirectoryOwner && uid == directoryOwner)
    }

    /// The owner of `directory` when only that user (or root) can have created a socket in it: the
    /// directory is not a link, nobody else may write to it, and its own parent is writable by its
    /// owner only, so nobody else can have made the directory either (as in /tmp). Nil otherwise.
    static func trustedOwner(ofDirectory directory: String) -> UInt32? {
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
              info.st_mode & (S_IWGRP | S_IWOTH) == 0
        else { return nil }
        var parent = stat()
        guard stat(UnixSocket.parentDirectory(of: directory), &parent) == 0,
              parent.st_mode & (S_IWGRP | S_IWOTH) == 0
        else { return nil }
        return info.st_uid
    }
}

/// "uid 65534 (nobody)", or "uid 4242" for a uid without a name.
func userText(_ uid: UInt32) -> String {
    userName(uid).map { "uid \(uid) (\($0))" } ?? "uid \(uid)"
}

func userName(_ uid: UInt32) -> String? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, let found = result else { return nil }
    return String(cString: found.pointee.pw_name)
}

func userID(named name: String) -> UInt32? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, let found = result else { return nil }
    return found.pointee.pw_uid
}
