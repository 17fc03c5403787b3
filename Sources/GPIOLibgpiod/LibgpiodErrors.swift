import Glibc
import LinuxIO
public import GPIOClient

/// The operations this backend names in its `GPIOError`s, so callers can tell failures apart
/// without parsing text (the daemon waits for a missing chip instead of exiting).
public enum LibgpiodOperation {
    public static let findChip = "find GPIO chip"
    public static let openChip = "open GPIO chip"
    public static let findLine = "find GPIO line"
    public static let requestLine = "request GPIO line"
    public static let readLine = "read GPIO line"
    public static let setLine = "set GPIO line"
    public static let readEvents = "read GPIO events"
    public static let startEventThread = "start GPIO event thread"
}

extension GPIOError {
    /// The configured chip does not exist (yet): worth waiting for rather than exiting, since a
    /// chip can appear late at boot or after a driver is loaded.
    public var isChipMissing: Bool { operation == LibgpiodOperation.findChip }
}

/// What a user must change when the kernel refuses access; names the files shipped in `udev/`.
let permissionHint =
    "the daemon's user needs access to /dev/gpiochip*: install udev/60-lifesignal-gpio.rules "
    + "and add the user to group 'gpio', then log in again or reboot"


/// The hint for the errno values a user can fix, if any.
func hint(forErrno code: Int32) -> String? {
    switch code {
    case EACCES, EPERM: permissionHint
    default: nil
    }
}

/// A `GPIOError` from the current errno: call right after the failing libgpiod function.
func errnoError(_ operation: String, _ target: String, errno code: Int32 = errno) -> GPIOError {
    GPIOError(operation: operation, target: target, reason: errnoDescription(code), hint: hint(forErrno: code))
}
