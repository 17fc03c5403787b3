import Glibc
import LinuxIO
import Synchronization

/// Puts a terminal into the raw-ish mode the simulator needs, and back.
///
/// Keys arrive one by one without echo, and Ctrl-C arrives as a byte (ISIG off) so the simulator
/// can ask the daemon to stop cleanly. Output processing (OPOST) stays on, so log lines written by
/// anyone still end their lines properly.
///
/// The saved settings also live in a process-wide slot restored by an `atexit` handler: a daemon
/// that exits without calling `restore()` (an error path, `exit()` from deep inside) must not leave
/// the person's shell without echo.
enum TerminalMode {
    private static let saved = Mutex<(descriptor: Int32, settings: termios)?>(nil)
    private static let atexitRegistered = Mutex(false)

    static func enterRaw(_ descriptor: Int32) throws(SystemError) {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else {
            throw .current("tcgetattr", "terminal (fd \(descriptor))")
        }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        saved.withLock { $0 = (descriptor, original) }
        registerAtexitOnce()
        guard retryingOnEINTR({ tcsetattr(descriptor, TCSANOW, &raw) }) == 0 else {
            let error = SystemError.current("tcsetattr", "terminal (fd \(descriptor))")
            saved.withLock { $0 = nil }
            throw error
        }
    }

    /// Restores the settings saved by `enterRaw`. Idempotent; safe from an atexit handler.
    static func restore() {
        guard let (descriptor, settings) = saved.withLock({ slot in
            defer { slot = nil }
            return slot
        }) else { return }
        var original = settings
        _ = retryingOnEINTR { tcsetattr(descriptor, TCSANOW, &original) }
    }

    private static func registerAtexitOnce() {
        let needed = atexitRegistered.withLock { registered in
            defer { registered = true }
            return !registered
        }
        if needed { atexit { TerminalMode.restore() } }
    }
}
