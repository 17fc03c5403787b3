import Glibc
import LinuxIO

/// The directory the control socket goes in, opened (never through a link) and checked before the
/// socket is bound in it.
///
/// Whoever can write to that directory can replace the socket with their own (and answer in the
/// daemon's place), and a setgid directory gives the socket its group (and with it the right to
/// connect). So it is created by the server, or it must already be a real directory that belongs
/// to the server's user (or root), that nobody else may write to (unless it is sticky, as /tmp is:
/// then nobody else may remove or rename what the server puts there), and that is not setgid.
struct SocketDirectory {
    let path: String
    /// The socket's name inside it, for the *at calls that never follow a link.
    let socketName: String
    let descriptor: Int32
    private let device: UInt
    private let inode: UInt

    /// The mode a directory the server creates gets: the owner's, and its group may look in.
    static let createdMode: mode_t = 0o750

    static func open(for socketPath: String) throws(ControlSocketError) -> SocketDirectory {
        let directory = UnixSocket.parentDirectory(of: socketPath)
        let created: Bool
        if mkdir(directory, 0o700) == 0 {
            created = true
        } else if errno == EEXIST {
            created = false
        } else {
            throw .system("create directory", directory, errno: errno)
        }

        var found = stat()
        guard lstat(directory, &found) == 0 else { throw .system("look at", directory, errno: errno) }
        if found.st_mode & S_IFMT == S_IFLNK {
            throw unsafe(directory, "is a symbolic link: lifesignald does not put its socket behind a link (whoever "
                + "controls the link decides where it goes); remove the link, or set [control] socket to a path in "
                + "a directory of your own")
        }
        guard found.st_mode & S_IFMT == S_IFDIR else {
            throw unsafe(directory, "is \(fileKind(found.st_mode)), not a directory: remove it, or set [control] "
                + "socket to a path in a directory of your own")
        }
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open directory", directory, errno: errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = ControlSocketError.system("look at", directory, errno: errno)
            Glibc.close(descriptor)
            throw error
        }
        let opened = SocketDirectory(path: directory, socketName: UnixSocket.fileName(of: socketPath),
                                     descriptor: descriptor, device: info.st_dev, inode: info.st_ino)
        let user = geteuid()
        // Also for one just created: it could have been swapped before it was opened.
        if info.st_uid != user && info.st_uid != 0 {
            opened.close()
            throw unsafe(directory, "belongs to \(userText(info.st_uid)), not to \(userText(user)), as which "
                + "lifesignald runs: someone else created it and could replace the socket with their own; remove it "
                + "(sudo rm -r \(directory)) and start lifesignald again, or set [control] socket, LIFESIGNAL_SOCKET "
                + "or XDG_RUNTIME_DIR to a directory of your own")
        }
        if created {
            // Exactly this mode, whatever the umask filtered out of mkdir's.
            guard fchmod(descriptor, createdMode) == 0 else {
                let error = ControlSocketError.system("chmod 0750", directory, errno: errno)
                opened.close()
                throw error
            }
            return opened
        }
        // Others may create entries in a sticky directory (/tmp, a tmpfs /run) but not remove or
        // rename ours, so the socket stays the daemon's; without the sticky bit they could replace it.
        let othersMayReplace = info.st_mode & (S_IWGRP | S_IWOTH) != 0 && info.st_mode & S_ISVTX == 0
        if othersMayReplace || info.st_mode & S_ISGID != 0 {
            opened.close()
            throw unsafe(directory, "has mode \(octal(info.st_mode & 0o7777)): others could replace the socket or give "
                + "it their group; it must be writable by its owner only (or sticky, as /tmp is) and not setgid "
                + "(lifesignald creates it 0750): remove it (rm -r \(directory)) and start lifesignald again, or "
                + "chmod 0750 \(directory) if it is yours")
        }
        return opened
    }

    /// An error if the directory at `path` is no longer the one opened (renamed and replaced).
    func movedError() -> ControlSocketError? {
        var now = stat()
        guard lstat(path, &now) == 0, now.st_dev == device, now.st_ino == inode else {
            return SocketDirectory.unsafe(path, "was replaced while lifesignald was creating its socket in it; "
                + "start lifesignald again, and find out who is changing \(path)")
        }
        return nil
    }

    func close() {
        Glibc.close(descriptor)
    }

    private static func unsafe(_ directory: String, _ problem: String) -> ControlSocketError {
        ControlSocketError(.unsafeDirectory, path: directory, message: "the control socket's directory \(directory) \(problem)")
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
