import Glibc
import XCTest

/// Mounts that make a disk fill up or turn read-only. They need CAP_SYS_ADMIN; without it the test
/// is skipped, saying so. `remove()` unmounts them.
extension TemporaryDirectory {
    /// Mounts a tmpfs of `size` (e.g. "512k") at a new subdirectory, to make a disk that fills up quickly.
    public func mountTinyFilesystem(_ name: String, size: String) throws -> String {
        let mountPoint = try makeDirectory(name)
        try mountOrSkip(mountPoint) {
            "size=\(size),mode=0750".withCString { mount("tmpfs", mountPoint, "tmpfs", 0, $0) }
        }
        return mountPoint
    }

    /// Makes an existing subdirectory read-only by bind-mounting it onto itself read-only: unlike
    /// permission bits, this stops root too (EROFS), and the tests run as root.
    public func makeReadOnly(_ directory: String) throws {
        try mountOrSkip(directory) { mount(directory, directory, nil, UInt(MS_BIND), nil) }
        let remounted = mount(nil, directory, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil)
        guard remounted == 0 else {
            throw TestFailure("remount read-only of \(directory) failed: \(String(cString: strerror(errno)))")
        }
    }

    private func mountOrSkip(_ mountPoint: String, _ mountCall: () -> Int32) throws {
        guard mountCall() == 0 else {
            let failure = errno
            if failure == EPERM || failure == EACCES {
                throw XCTSkip("mounting needs CAP_SYS_ADMIN (mount failed: \(String(cString: strerror(failure))))")
            }
            throw TestFailure("mount at \(mountPoint) failed: \(String(cString: strerror(failure)))")
        }
        mounts.append(mountPoint)
    }
}
